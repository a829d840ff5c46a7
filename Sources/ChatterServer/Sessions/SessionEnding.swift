import ChatterWire
import Foundation

/// What a signed-in user can end, audited alike whether they ask through the native API or the account
/// page: this session or all of them, one other session, or the whole account.
struct SessionEnding {
    let services: ChatterServices

    func signOut(_ session: AuthenticatedSession, everywhere: Bool, client: ClientInfo) async throws {
        if everywhere {
            try await services.store.revokeSessions(of: session.user.id, except: nil)
            try await services.devices.endAll(of: session.user.id)
            await services.audit.record(.signOutAll, user: session.user.id, method: session.method, client: client)
        } else {
            _ = try await services.store.revokeSession(id: session.sessionID, userID: session.user.id)
            await services.audit.record(.signOut, user: session.user.id, method: session.method, client: client)
        }
    }

    /// Ends the user's session `id`; a 404 when they have none by that id.
    func revoke(_ id: UUID?, of session: AuthenticatedSession, client: ClientInfo) async throws {
        guard let id, try await services.store.revokeSession(id: id, userID: session.user.id) else {
            throw APIError(.notFound, "not_found", "You have no session with that id.")
        }
        await services.audit.record(.sessionRevoked, user: session.user.id, client: client, detail: id.uuidString)
    }

    /// Removes the user, their identities, password, sessions and chatts; the audit log keeps the event.
    func deleteAccount(_ session: AuthenticatedSession, client: ClientInfo) async throws {
        try await services.store.deleteUser(id: session.user.id)
        await services.audit.record(.accountDeleted, user: session.user.id, client: client)
    }
}
