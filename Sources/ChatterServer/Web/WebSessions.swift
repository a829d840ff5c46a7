import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Cookie sessions for browsers: what every web sign-in ends with, and the checks every web form passes.
struct WebSessions: Sendable {
    /// A browser session cannot be refreshed; it simply ends, and the browser signs in again.
    static let lifetime: Double = 7 * 86_400

    let services: ChatterServices

    func visitor(_ request: Request, known: WebVisitor? = nil) async throws -> WebVisitor {
        if let known { return known }
        return try await WebVisitor.of(request, sessions: services.sessions)
    }

    /// Decodes a posted form after checking its CSRF token against the browser's cookie: a form without this
    /// browser's token is refused before anything in it is read.
    func form<Form: WebForm>(
        _ type: Form.Type, for action: FormAction, _ request: Request, _ context: ChatterRequestContext, visitor: WebVisitor
    ) async throws -> Form {
        try Self.decode(Form.self, for: action, String(buffer: try await request.body.collect(upTo: context.maxUploadSize)), visitor: visitor)
    }

    /// Whatever `text` holds, the answer is a form or an `APIError`: 403 without this browser's token for
    /// `action`, else 400.
    static func decode<Form: WebForm>(_ type: Form.Type, for action: FormAction, _ text: String, visitor: WebVisitor) throws -> Form {
        guard visitor.accepts(csrf: (try? URLEncodedFormDecoder().decode(CSRFField.self, from: text))?.csrf, for: action) else {
            throw APIError(.forbidden, "csrf_failed", "This form has expired or came from another site. Reload the page and try again.")
        }
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: text)
        } catch {
            throw APIError(.badRequest, "invalid_form", "The form was incomplete; go back and try again.")
        }
    }

    /// Starts a cookie session for `user`, ending the browser's previous one, and sends the browser to `next`.
    /// `deviceFor`: the address the sign-in proved, whose device cookie the browser then keeps (`presenting`
    /// the one it has keeps that one).
    func signedIn(
        _ user: User, method: String, client: ClientInfo, deviceFor email: String? = nil, presenting device: String? = nil, next: String?,
        replacing visitor: WebVisitor
    ) async throws -> Response {
        if let previous = visitor.session {
            _ = try await services.store.revokeSession(id: previous.sessionID, userID: previous.user.id)
        }
        let token = try await services.audit.signIn(user: user.id, method: method, client: client) {
            try await services.sessions.startUnrefreshable(user: user, method: method, lifetime: Self.lifetime, client: client)
        }
        var response = Self.redirect(to: next.flatMap(WebSessionRoutes.sameSitePath) ?? "/")
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.make(Authenticator.cookieName, token.secret, maxAge: Int(Self.lifetime))))
        if let email {
            let device = try await services.devices.issue(for: email, presented: device)
            response.headers.append(HTTPField(name: .setCookie, value: WebCookie.make(WebVisitor.deviceCookieName, device, maxAge: 400 * 86_400)))
        }
        if visitor.isNewBrowser { response.headers.append(HTTPField(name: .setCookie, value: visitor.browserCookie)) }
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(WebVisitor.pendingCookieName)))
        return response
    }

    /// Post/redirect/get: every form that succeeds answers with a 303 to a page.
    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

private struct CSRFField: Decodable {
    let csrf: String?
}

/// A posted web form: each carries the CSRF token of the page that showed it.
protocol WebForm: Decodable {
    var csrf: String { get }
}
