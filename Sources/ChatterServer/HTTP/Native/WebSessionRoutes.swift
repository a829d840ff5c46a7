import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Web sessions (F4): a signed-in native app asks `POST /v1/auth/web-session` for a one-time link, the web
/// view opens it, and chatterd answers with the cookie and a redirect. The link signs a browser in at once
/// only when the app opened it (`WebSessionResponse.appHeader`) and the browser has no session; otherwise
/// it asks first, naming the account, so a link sent by someone else cannot quietly sign a browser into
/// their account or switch it away from its own.
struct WebSessionRoutes {
    let handoffs: WebHandoffs
    let pages: WebPages
    let web: WebSessions
    static let appHeader = HTTPField.Name(WebSessionResponse.appHeader)!

    func register(
        on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>,
        browsers: some RouterMethods<ChatterRequestContext>
    ) {
        signedIn.post(RouterPath(NativePath.webSession)) { _, context in
            let code = try await handoffs.create(for: try context.requireSession().user)
            return JSONResponse.make(
                WebSessionResponse(url: NativePath.webSession + "/redeem?code=" + code, expiresIn: Int(WebHandoffs.lifetime)))
        }
        browsers.get(RouterPath(NativePath.webSession + "/redeem")) { request, context in try await open(request, context) }
        browsers.post(RouterPath(NativePath.webSession + "/redeem")) { request, context in
            let visitor = try context.requireVisitor()
            let form = try await web.form(ConfirmForm.self, for: .handoff, request, context, visitor: visitor)
            return try await redeem(form.code, next: form.next, request, context, visitor: visitor)
        }
        // The CSRF token a page sends back in `X-CSRF-Token` with state-changing requests.
        signedIn.get(RouterPath(NativePath.webSession + "/csrf")) { request, _ in
            guard let (cookie, presented) = SessionAuthenticator.credentials(in: request), presented == .cookie else {
                throw APIError(.badRequest, .noCookieSession, "Only cookie sessions need a CSRF token.")
            }
            return JSONResponse.make(["csrfToken": SessionAuthenticator.csrfToken(forCookie: cookie)])
        }
    }

    struct ConfirmPage: PageContent {
        let frame: PageFrame
        let name: String
        let current: String?
        let code: String
        let next: String
        let action = NativePath.webSession + "/redeem"
    }

    struct ConfirmForm: WebForm {
        let csrf: String
        let code: String
        let next: String?
    }

    func open(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let next = request.uri.queryParameters.get("next").flatMap(WebSessions.sameSitePath)
        guard let code = request.uri.queryParameters.get("code") else { throw SessionError.invalidHandoff }
        let user = try await handoffs.account(code)
        if let current = visitor.session, current.user.id == user.id {
            // Already this account here: the link has nothing left to do but be used up.
            try await handoffs.discard(code)
            return WebSessions.redirect(to: next ?? "/")
        }
        if visitor.session == nil, request.headers[Self.appHeader] == WebSessionResponse.appHeaderValue {
            return try await redeem(code, next: next, request, context, visitor: visitor)
        }
        let page = ConfirmPage(
            frame: pages.frame("Continue as \(user.displayName)?", visitor), name: user.displayName, current: visitor.session?.user.displayName,
            code: code, next: next ?? "")
        return pages.render("handoff", page, visitor: visitor)
    }

    /// Uses the code up, then signs the browser in.
    private func redeem(_ code: String, next: String?, _ request: Request, _ context: ChatterRequestContext, visitor: WebVisitor) async throws -> Response {
        let user = try await handoffs.redeem(code)
        return try await web.signedIn(SignInFlow(user: user, method: .web), client: context.client(request), next: next, replacing: visitor)
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension WebSessionRoutes.ConfirmPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "name": name
        case "current": current
        case "code": code
        case "next": next
        case "action": action
        default: nil
        }
    }
}
