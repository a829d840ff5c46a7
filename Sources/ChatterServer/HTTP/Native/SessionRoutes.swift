import ChatterWire
import Foundation
import Hummingbird

/// The session lifecycle: refresh, who am I, list and revoke sessions, sign out, delete the account.
struct SessionRoutes {
    let services: ChatterServices
    let authenticator: Authenticator

    func register(on router: Router<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.refresh)) { request, context in try await refresh(request, context) }
        router.post(RouterPath(NativePath.signOut)) { request, context in try await signOut(request, context) }
        router.get(RouterPath(NativePath.me)) { request, _ in try await me(request) }
        router.delete(RouterPath(NativePath.me)) { request, context in try await deleteAccount(request, context) }
        router.get(RouterPath(NativePath.sessions)) { request, _ in try await list(request) }
        router.delete(RouterPath(NativePath.sessions + "/:id")) { request, context in try await revoke(request, context) }
    }

    func refresh(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(RefreshRequest.self, context: context)
        switch try await services.sessions.refresh(body.refreshToken, profile: { try await services.profile($0, account: $1) }) {
        case .refreshed(let response):
            return JSONResponse.make(response)
        case .reused(let userID):
            await services.audit.record(.refreshReused, user: userID, client: context.client(request), detail: "session revoked")
            throw APIError(.unauthorized, AuthErrorCode.refreshTokenReused, "This refresh token was already used; the session has been revoked. Sign in again.")
        case .invalid:
            throw APIError(.unauthorized, AuthErrorCode.invalidRefreshToken, "The refresh token is not valid; sign in again.")
        }
    }

    func signOut(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        let all = try await request.decodeOptionalJSON(SignOutRequest.self, context: context)?.all ?? false
        try await SessionEnding(services: services).signOut(session, everywhere: all, client: context.client(request))
        var response = Response(status: .noContent)
        response.headers[.setCookie] = WebSessionRoutes.expiredCookie
        return response
    }

    func me(_ request: Request) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        return JSONResponse.make(try await services.profile(session.user))
    }

    func list(_ request: Request) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        let records = try await services.store.sessions(of: session.user.id)
        return JSONResponse.make(records.map {
            SessionInfo(
                id: $0.id.uuidString, userAgent: $0.userAgent, createdAt: $0.createdAt.timeIntervalSince1970,
                lastUsedAt: $0.lastUsedAt.timeIntervalSince1970, current: $0.id == session.sessionID)
        })
    }

    func revoke(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        try await SessionEnding(services: services).revoke(
            context.parameters.get("id").flatMap(UUID.init(uuidString:)), of: session, client: context.client(request))
        return Response(status: .noContent)
    }

    func deleteAccount(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        try await SessionEnding(services: services).deleteAccount(session, client: context.client(request))
        var response = Response(status: .noContent)
        response.headers[.setCookie] = WebSessionRoutes.expiredCookie
        return response
    }
}
