import ChatterWire
import Foundation
import Hummingbird

/// Turns a native bearer session into a cookie session for a web view in the same app (F3): the app asks
/// for a one-time link, the web view opens it, and chatterd answers with the cookie and a redirect.
struct WebSessionRoutes {
    let services: ChatterServices
    let authenticator: Authenticator
    static let handoffLifetime: Double = 60
    static let cookieLifetime: Double = 12 * 3600

    static let expiredCookie = "\(Authenticator.cookieName)=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax"

    func register(on router: Router<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.webSession)) { request, context in try await start(request, context) }
        router.get(RouterPath(NativePath.webSession + "/redeem")) { request, context in try await redeem(request, context) }
        router.get(RouterPath(NativePath.webSession + "/csrf")) { request, _ in try await csrf(request) }
    }

    func start(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        let code = SessionToken.generate()
        try await services.store.storeHandoff(
            codeHash: code.hash, userID: session.user.id, expiresAt: services.now().addingTimeInterval(Self.handoffLifetime))
        return JSONResponse.make(WebSessionResponse(url: NativePath.webSession + "/redeem?code=" + code.secret, expiresIn: Int(Self.handoffLifetime)))
    }

    func redeem(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        guard let code = request.uri.queryParameters.get("code"),
            let userID = try await services.store.redeemHandoff(codeHash: SessionToken.hash(code), at: services.now()),
            let user = try await services.store.user(id: userID)
        else {
            throw APIError(.unauthorized, "invalid_handoff", "This sign-in link is expired or was already used.")
        }
        let token = try await services.sessions.startUnrefreshable(
            user: user, method: "web", lifetime: Self.cookieLifetime, client: context.client(request))
        let next = request.uri.queryParameters.get("next").flatMap(Self.sameSitePath) ?? "/"
        return Response(status: .seeOther, headers: [
            .location: next,
            .setCookie: "\(Authenticator.cookieName)=\(token.secret); Path=/; Max-Age=\(Int(Self.cookieLifetime)); Secure; HttpOnly; SameSite=Lax",
            .cacheControl: "no-store",
        ])
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
