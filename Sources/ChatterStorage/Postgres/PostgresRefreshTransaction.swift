import ChatterCore
import Foundation
import PostgresNIO

/// `RefreshTransaction` on one connection, inside `PostgresStore.transaction`. Rows are read `FOR UPDATE`,
/// so concurrent presentations of one token, on any instance, are settled one after another.
package struct PostgresRefreshTransaction: RefreshTransaction {
    package let db: PostgresConnection
    package let logger: Logger

    // PostgreSQL keeps a unique index on the current refresh hash and every retired one by hash, so it finds
    // a presented token by its hash whether or not it names its session.
    package func currentSession(_ presented: Rotation) async throws -> (id: UUID, userID: UUID, boundKey: String?)? {
        try await db.rows("SELECT id, user_id, dpop_jkt FROM sessions WHERE refresh_hash = \(presented.presentedHash.bytea) FOR UPDATE", logger: logger)
            .first.map { row in (try row.value("id"), try row.value("user_id"), try row.value("dpop_jkt", as: String?.self)) }
    }

    package func retiredToken(_ presented: Rotation) async throws -> RetiredRefreshToken? {
        try await db.rows(
            """
            SELECT r.retired_at, s.id, s.user_id, s.rotated_at, s.retry_box, s.access_expires_at, s.absolute_expires_at, s.dpop_jkt
            FROM retired_refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.hash = \(presented.presentedHash.bytea)
            FOR UPDATE OF s
            """, logger: logger
        ).first.map { row in
            RetiredRefreshToken(
                retiredAt: try row.value("retired_at"), sessionID: try row.value("id"), userID: try row.value("user_id"),
                rotatedAt: try row.value("rotated_at"), retryBox: try row.optionalBytes("retry_box"),
                accessExpiresAt: try row.value("access_expires_at"), absoluteExpiresAt: try row.value("absolute_expires_at"),
                boundKey: try row.value("dpop_jkt", as: String?.self))
        }
    }

    package func user(id: UUID) async throws -> User? {
        try await db.rows(UserByID(id: id), logger: logger).first.map(User.init(row:))
    }

    package func deleteSession(id: UUID) async throws {
        try await db.query("DELETE FROM sessions WHERE id = \(id)", logger: logger)
    }

    package func emptyRetryBox(sessionID: UUID) async throws {
        try await db.query("UPDATE sessions SET retry_box = NULL WHERE id = \(sessionID)", logger: logger)
    }
}
