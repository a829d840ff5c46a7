import Foundation
import SQLiteNIO

extension SQLiteStore {
    public func createSession(userID: UUID, tokenHash: [UInt8], createdAt: Date, expiresAt: Date) async throws -> UUID {
        let id = UUID()
        _ = try await write(
            "INSERT INTO sessions (id, user_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            [.uuid(id), .uuid(userID), .bytes(tokenHash), .time(createdAt), .time(expiresAt)])
        return id
    }

    public func session(tokenHash: [UInt8], at now: Date) async throws -> SessionLookup {
        let rows = try await reader.query(
            """
            SELECT s.id, s.expires_at, u.id AS user_id, u.display_name
            FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?
            """, [.bytes(tokenHash)])
        guard let row = rows.first else { return .unknown }
        let expiresAt = try row.date("expires_at")
        guard now < expiresAt else {
            let id = try row.uuid("id")
            _ = try await write("DELETE FROM sessions WHERE id = ?", [.uuid(id)])
            return .expired
        }
        return .valid(AuthenticatedSession(
            sessionID: try row.uuid("id"),
            user: User(id: try row.uuid("user_id"), displayName: try row.string("display_name")),
            expiresAt: expiresAt))
    }

    public func purgeExpiredSessions(at now: Date) async throws -> Int {
        try await write("DELETE FROM sessions WHERE expires_at <= ? RETURNING id", [.time(now)]).count
    }

    public func sessionCount() async throws -> Int { try await count("sessions") }
}
