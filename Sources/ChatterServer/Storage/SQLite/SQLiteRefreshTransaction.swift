import Foundation
import SQLiteNIO
import Synchronization

/// `RefreshTransaction` on the writer connection, inside `SQLiteStore.transaction`: the one writer is
/// the lock, so rows read here cannot change before the transaction ends.
struct SQLiteRefreshTransaction: RefreshTransaction {
    let db: SQLiteConnection
    let ended: SessionsEnded

    func session(refreshHash: [UInt8]) async throws -> (id: UUID, userID: UUID)? {
        try await db.query("SELECT id, user_id FROM sessions WHERE refresh_hash = ?", [.bytes(refreshHash)]).first.map { row in
            (try row.uuid("id"), try row.uuid("user_id"))
        }
    }

    func retiredToken(_ hash: [UInt8]) async throws -> RetiredRefreshToken? {
        try await db.query(
            """
            SELECT r.retired_at, s.id, s.user_id, s.rotated_at, s.retry_box, s.access_expires_at, s.absolute_expires_at
            FROM retired_refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.hash = ?
            """, [.bytes(hash)]
        ).first.map { row in
            RetiredRefreshToken(
                retiredAt: try row.date("retired_at"), sessionID: try row.uuid("id"), userID: try row.uuid("user_id"),
                rotatedAt: row.column("rotated_at")?.double.map(Date.init(timeIntervalSince1970:)),
                retryBox: row.column("retry_box")?.blob.map { Array($0.readableBytesView) },
                accessExpiresAt: try row.date("access_expires_at"), absoluteExpiresAt: try row.date("absolute_expires_at"))
        }
    }

    func user(id: UUID) async throws -> User? {
        try await SQLiteStore.user(db, id: id)
    }

    func deleteSession(id: UUID) async throws {
        _ = try await db.query("DELETE FROM sessions WHERE id = ?", [.uuid(id)])
        ended.note()
    }

    func emptyRetryBox(sessionID: UUID) async throws {
        _ = try await db.query("UPDATE sessions SET retry_box = NULL WHERE id = ?", [.uuid(sessionID)])
    }
}

/// Whether a transaction ended a session, which decides whether its commit is fsynced.
final class SessionsEnded: Sendable {
    private let flag = Atomic(false)
    func note() { flag.store(true, ordering: .relaxed) }
    var any: Bool { flag.load(ordering: .relaxed) }
}
