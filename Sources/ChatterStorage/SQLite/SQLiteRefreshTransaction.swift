import ChatterCore
import Foundation
import Synchronization

/// `RefreshTransaction` on the writer connection, inside `SQLiteStore.transaction`: the one writer is
/// the lock, so rows read here cannot change before the transaction ends.
package struct SQLiteRefreshTransaction: RefreshTransaction {
    package let db: SQLiteConnection
    package let ended: SessionsEnded

    package func currentSession(_ presented: Rotation) async throws -> (id: UUID, userID: UUID, boundKey: String?)? {
        let rows =
            if let id = presented.sessionID {
                try await db.query(
                    "SELECT id, user_id, dpop_jkt FROM sessions WHERE id = ? AND refresh_hash = ?", [.uuid(id), .bytes(presented.presentedHash)])
            } else {
                try await db.query(
                    "SELECT id, user_id, dpop_jkt FROM sessions WHERE refresh_hash = ? AND refresh_unnamed = 1", [.bytes(presented.presentedHash)])
            }
        return try rows.first.map { row in (try row.uuid("id"), try row.uuid("user_id"), row.column("dpop_jkt")?.string) }
    }

    /// A token that names its session is not looked for among kept tokens: the session's row knows the one
    /// its latest rotation retired, and every other was retired before. Unnamed tokens are kept by hash.
    package func retiredToken(_ presented: Rotation) async throws -> RetiredRefreshToken? {
        guard let id = presented.sessionID else { return try await keptToken(presented.presentedHash) }
        return try await db.query(
            """
            SELECT id, user_id, rotated_at, previous_refresh_hash, retry_box, access_expires_at, absolute_expires_at, dpop_jkt
            FROM sessions WHERE id = ?
            """, [.uuid(id)]
        ).first.map { row in
            let rotatedAt = row.column("rotated_at")?.double.map(Date.init(timeIntervalSince1970:))
            let previous = row.column("previous_refresh_hash")?.blob
            let retiredByLatest = previous.map { constantTimeEqual($0, presented.presentedHash) } ?? false
            return try token(row, retiredAt: retiredByLatest ? rotatedAt ?? .distantPast : .distantPast, rotatedAt: rotatedAt)
        }
    }

    private func keptToken(_ hash: [UInt8]) async throws -> RetiredRefreshToken? {
        try await db.query(
            """
            SELECT r.retired_at, s.id, s.user_id, s.rotated_at, s.retry_box, s.access_expires_at, s.absolute_expires_at, s.dpop_jkt
            FROM retired_refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.hash = ?
            """, [.bytes(hash)]
        ).first.map { row in
            try token(row, retiredAt: try row.date("retired_at"), rotatedAt: row.column("rotated_at")?.double.map(Date.init(timeIntervalSince1970:)))
        }
    }

    private func token(_ row: SQLiteRow, retiredAt: Date, rotatedAt: Date?) throws -> RetiredRefreshToken {
        RetiredRefreshToken(
            retiredAt: retiredAt, sessionID: try row.uuid("id"), userID: try row.uuid("user_id"), rotatedAt: rotatedAt,
            retryBox: row.column("retry_box")?.blob,
            accessExpiresAt: try row.date("access_expires_at"), absoluteExpiresAt: try row.date("absolute_expires_at"),
            boundKey: row.column("dpop_jkt")?.string)
    }

    package func user(id: UUID) async throws -> User? {
        try await SQLiteStore.user(db, id: id)
    }

    package func deleteSession(id: UUID) async throws {
        _ = try await db.query("DELETE FROM sessions WHERE id = ?", [.uuid(id)])
        ended.note()
    }

    package func emptyRetryBox(sessionID: UUID) async throws {
        _ = try await db.query("UPDATE sessions SET retry_box = NULL WHERE id = ?", [.uuid(sessionID)])
    }
}

/// Whether a transaction ended a session, which decides whether its commit is fsynced.
package final class SessionsEnded: Sendable {
    private let flag = Atomic(false)
    package func note() { flag.store(true, ordering: .relaxed) }
    package var any: Bool { flag.load(ordering: .relaxed) }
}
