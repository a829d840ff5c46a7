import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Turns a native bearer session into a cookie session for a web view in the same app (F3): the app asks
/// for a one-time link, the web view opens it, and chatterd answers with the cookie and a redirect.
/// The link signs a browser in at once only when the app opened it (`WebSessionResponse.appHeader`) and the
/// browser has no session; otherwise it asks first, naming the account, so a link sent by someone else
/// cannot quietly sign a browser into their account or switch it away from its own.
struct WebSessionRoutes {
    let services: ChatterServices
    let authenticator: Authenticator
    let pages: WebPages
    let web: WebSessions
    static let handoffLifetime: Double = 60
    static let appHeader = HTTPField.Name(WebSessionResponse.appHeader)!

    static let expiredCookie = WebCookie.expired(Authenticator.cookieName)

    func register(on router: Router<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.webSession)) { request, context in try await start(request, context) }
        router.get(RouterPath(NativePath.webSession + "/redeem")) { request, context in try await open(request, context) }
        router.post(RouterPath(NativePath.webSession + "/redeem")) { request, context in try await confirm(request, context) }
        router.get(RouterPath(NativePath.webSession + "/csrf")) { request, _ in try await csrf(request) }
    }

    /// Hand-off links one account may ask for per 10 minutes: an app asks for one when it opens a web view.
    static let handoffsPerWindow = 30

    func start(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        guard try await services.store.hit(RateLimitKeys.handoff(session.user.id), window: 600, at: services.now()) <= Self.handoffsPerWindow else {
            throw APIError.tooMany("web_session", retryAfter: 600, "Too many sign-in links; try again in a few minutes.")
        }
        let code = SessionToken.generate()
        try await services.store.storeHandoff(
            codeHash: code.hash, userID: session.user.id, expiresAt: services.now().addingTimeInterval(Self.handoffLifetime))
        return JSONResponse.make(WebSessionResponse(url: NativePath.webSession + "/redeem?code=" + code.secret, expiresIn: Int(Self.handoffLifetime)))
    }

    static let invalid = APIError(.unauthorized, "invalid_handoff", "This sign-in link is expired or was already used.")

    struct ConfirmPage: PageContent {
        let frame: PageFrame
        let name: String
        let current: String?
        let code: String
        let next: String
        let action = NativePath.webSession + "/redeem"
    }

    func open(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try await web.visitor(request)
        let next = request.uri.queryParameters.get("next").flatMap(Self.sameSitePath)
        guard let code = request.uri.queryParameters.get("code"), code.utf8.count <= 128,
            let userID = try await services.store.handoffUser(codeHash: SessionToken.hash(code), at: services.now()),
            let user = try await services.store.user(id: userID)
        else { throw Self.invalid }
        if let current = visitor.session, current.user.id == userID {
            // Already this account here: the link has nothing left to do but be used up.
            _ = try await services.store.redeemHandoff(codeHash: SessionToken.hash(code), at: services.now())
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

    struct ConfirmForm: WebForm {
        let csrf: String
        let code: String
        let next: String?
    }

    func confirm(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try await web.visitor(request)
        let form = try await web.form(ConfirmForm.self, for: .handoff, request, context, visitor: visitor)
        return try await redeem(form.code, next: form.next, request, context, visitor: visitor)
    }

    /// Uses the code up (one atomic delete decides), then signs the browser in.
    private func redeem(_ code: String, next: String?, _ request: Request, _ context: ChatterRequestContext, visitor: WebVisitor) async throws -> Response {
        guard let userID = try await services.store.redeemHandoff(codeHash: SessionToken.hash(code), at: services.now()),
            let user = try await services.store.user(id: userID)
        else { throw Self.invalid }
        return try await web.signedIn(user, method: "web", client: context.client(request), next: next, replacing: visitor)
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

    /// The CSRF token a page sends back in `X-CSRF-Token` with state-changing requests.
    func csrf(_ request: Request) async throws -> Response {
        _ = try await authenticator.require(request)
        guard let (cookie, viaCookie) = Authenticator.credentials(in: request), viaCookie else {
            throw APIError(.badRequest, "no_cookie_session", "Only cookie sessions need a CSRF token.")
        }
        return JSONResponse.make(["csrfToken": Authenticator.csrfToken(forCookie: cookie)])
    }
}
