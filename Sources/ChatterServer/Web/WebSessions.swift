import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Cookie sessions for browsers: what every web sign-in answers with, and the checks every web form passes.
struct WebSessions: Sendable {
    let signIn: SignInService

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
        // fail-closed: a CSRF field that does not decode is nil, which accepts never takes: the form is refused with 403
        guard visitor.accepts(csrf: (try? URLEncodedFormDecoder().decode(CSRFField.self, from: text))?.csrf, for: action) else {
            throw APIError(.forbidden, .csrfFailed, "This form has expired or came from another site. Reload the page and try again.")
        }
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: text)
        } catch {
            throw APIError(.badRequest, .invalidForm, "The form was incomplete; go back and try again.")
        }
    }

    /// Ends `flow` with a cookie session, ending the browser's previous one, and sends the browser to `next`.
    /// The address the sign-in proved gets its device cookie (the browser's own device token, presented in
    /// `flow.device`, is kept).
    func signedIn(_ flow: SignInFlow, client: ClientInfo, next: String?, replacing visitor: WebVisitor) async throws -> Response {
        let session: SignInService.BrowserSession
        do {
            session = try await signIn.browser(flow, client: client, replacing: visitor.session)
        } catch SecondFactorError.required(let challenge?) {
            return SecondFactorPages.ask(challenge, next: next, visitor: visitor)
        }
        var response = Self.redirect(to: next.flatMap(Self.sameSitePath) ?? "/")
        response.headers.append(
            HTTPField(name: .setCookie, value: WebCookie.make(SessionAuthenticator.cookieName, session.token, maxAge: Int(session.lifetime))))
        if let deviceToken = session.deviceToken {
            response.headers.append(HTTPField(name: .setCookie, value: WebCookie.make(WebVisitor.deviceCookieName, deviceToken, maxAge: 400 * 86_400)))
        }
        if visitor.isNewBrowser { response.headers.append(HTTPField(name: .setCookie, value: visitor.browserCookie)) }
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(WebVisitor.pendingCookieName)))
        return response
    }

    /// What a query value keeps unescaped: RFC 3986's unreserved characters, ASCII only.
    static let queryValue = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Post/redirect/get: every form that succeeds answers with a 303 to a page.
    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// `next` only when it is plainly a path on this site: an open redirect would hand the signed-in web
    /// view to anyone. Browsers read `\` as `/` and drop tabs and newlines, so anything beyond a
    /// conservative character set is refused rather than interpreted.
    static func sameSitePath(_ candidate: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/-._~?=&%+")
        guard candidate.hasPrefix("/"), !candidate.hasPrefix("//"), candidate.count <= 512, candidate.allSatisfy(allowed.contains) else {
            return nil
        }
        return candidate
    }
}

private struct CSRFField: Decodable {
    let csrf: String?
}

/// A posted web form: each carries the CSRF token of the page that showed it.
protocol WebForm: Decodable {
    var csrf: String { get }
}
