import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird

/// The session lifecycle: refresh, who am I, list and revoke sessions, sign out, delete the account.
struct SessionRoutes {
    let sessions: SessionService
    let accounts: AccountService

    func register(on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.refresh)) { request, context in
            let body = try await request.decodeJSON(RefreshRequest.self, context: context)
            return JSONResponse.make(try await sessions.refresh(body.refreshToken, boundKey: context.proof?.thumbprint, client: context.client(request)))
        }
        signedIn.post(RouterPath(NativePath.signOut)) { request, context in
            let session = try context.requireSession()
            let all = try await request.decodeOptionalJSON(SignOutRequest.self, context: context)?.all ?? false
            try await accounts.signOut(session, everywhere: all, client: context.client(request))
            return Self.signedOut
        }
        signedIn.get(RouterPath(NativePath.me)) { _, context in
            JSONResponse.make(try await accounts.profile(try context.requireSession().user))
        }
        signedIn.delete(RouterPath(NativePath.me)) { request, context in
            try await accounts.deleteAccount(try context.requireSession(), client: context.client(request))
            return Self.signedOut
        }
        signedIn.get(RouterPath(NativePath.sessions)) { _, context in
            let session = try context.requireSession()
            return JSONResponse.make(
                try await accounts.sessions(of: session.user).map {
                    SessionInfo(
                        id: $0.id.uuidString, userAgent: $0.userAgent, createdAt: $0.createdAt.timeIntervalSince1970,
                        lastUsedAt: $0.lastUsedAt.timeIntervalSince1970, current: $0.id == session.sessionID, secondFactor: $0.secondFactor,
                        attestedApp: $0.attestedApp)
                })
        }
        signedIn.get(RouterPath(NativePath.accountHistory)) { _, context in
            JSONResponse.make(try await accounts.history(of: try context.requireSession().user))
        }
        signedIn.delete(RouterPath(NativePath.sessions + "/:id")) { request, context in
            try await accounts.revoke(
                context.parameters.get("id").flatMap(UUID.init(uuidString:)), of: try context.requireSession(), client: context.client(request))
            return Response(status: .noContent)
        }
    }

    /// No content, and the web view's cookie (if any) expired.
    static var signedOut: Response {
        var response = Response(status: .noContent)
        response.headers[.setCookie] = WebCookie.expired(SessionAuthenticator.cookieName)
        return response
    }
}
