import Foundation
import PostgresNIO

extension PostgresStore {
    public func createSession(_ s: NewSession) async throws {
        try await rows(
            """
            INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, refresh_hash, created_at, last_used_at,
                absolute_expires_at, user_agent, ip)
            VALUES (\(s.id), \(s.userID), \(s.method), \(s.accessHash.bytea), \(s.accessExpiresAt), \(s.refreshHash?.bytea),
                \(s.createdAt), \(s.createdAt), \(s.absoluteExpiresAt), \(s.client.userAgent), \(s.client.ip))
            """)
    }

    public func session(accessHash: [UInt8], at now: Date) async throws -> SessionLookup {
        try await sessionCache.session(
            accessHash, at: now,
            read: { hash in try await sessionsByAccessHash.value(for: hash) },
            delete: { id in try await rows("DELETE FROM sessions WHERE id = \(id)", keepsSessionCache: false) },
            touch: { id, now in try await rows("UPDATE sessions SET last_used_at = \(now) WHERE id = \(id)") })
    }

    /// Concurrent lookups share one query (see `BatchingLookup`).
    static func sessionEntries(_ client: PostgresClient, logger: Logger, accessHashes: [[UInt8]]) async throws -> [[UInt8]: SessionCache.Entry] {
        let rows = try await client.query(
            """
            SELECT s.access_hash, s.id AS session_id, s.method, s.access_expires_at, s.refresh_hash IS NOT NULL AS refreshable, s.last_used_at,
                \(unescaped: userColumns)
            FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.access_hash = ANY(\(accessHashes.map(\.bytea)))
            """, logger: logger
        ).collect()
        var found: [[UInt8]: SessionCache.Entry] = [:]
        for row in rows.map({ $0.makeRandomAccess() }) {
            found[try row.bytes("access_hash")] = SessionCache.Entry(
                session: AuthenticatedSession(
                    sessionID: try row.value("session_id"), user: try User(row: row), method: try row.value("method"),
                    accessExpiresAt: try row.value("access_expires_at")),
                refreshable: try row.value("refreshable"), lastUsedAt: try row.value("last_used_at"))
        }
        return found
    }

    /// One statement, so one round trip: the row lock makes a second rotation of the same token wait and
    /// then find it retired.
    public func rotateLive(_ r: Rotation) async throws -> RotatedSession? {
        let rotated = try await rows(
            """
            WITH rotated AS (
                UPDATE sessions SET access_hash = \(r.newAccessHash.bytea),
                    access_expires_at = LEAST(\(r.now.addingTimeInterval(r.accessLifetime)), absolute_expires_at),
                    refresh_hash = \(r.newRefreshHash.bytea), last_used_at = \(r.now), rotated_at = \(r.now), retry_box = \(r.retryBox.bytea)
                WHERE refresh_hash = \(r.presentedHash.bytea) AND absolute_expires_at > \(r.now)
                    AND last_used_at > \(r.now.addingTimeInterval(-r.idleLifetime))
                RETURNING id, user_id, access_expires_at, absolute_expires_at
            ), retired AS (
                INSERT INTO retired_refresh_tokens (hash, session_id, retired_at) SELECT \(r.presentedHash.bytea), id, \(r.now) FROM rotated
            )
            SELECT r.id AS session_id, r.access_expires_at, r.absolute_expires_at, \(unescaped: Self.userColumns)
            FROM rotated r JOIN users u ON u.id = r.user_id
            """, keepsSessionCache: false)
        return try rotated.first.map { row in
            RotatedSession(
                sessionID: try row.value("session_id"), user: try User(row: row), accessExpiresAt: try row.value("access_expires_at"),
                absoluteExpiresAt: try row.value("absolute_expires_at"))
        }
    }

    public func refreshTransaction<T: Sendable>(_ body: @Sendable (any RefreshTransaction) async throws -> T) async throws -> T {
        try await transaction { [logger] db in try await body(PostgresRefreshTransaction(db: db, logger: logger)) }
    }

    public func sessions(of userID: UUID) async throws -> [SessionRecord] {
        try await rows("SELECT id, method, user_agent, ip, created_at, last_used_at FROM sessions WHERE user_id = \(userID) ORDER BY created_at")
            .map { row in
                SessionRecord(
                    id: try row.value("id"), method: try row.value("method"), userAgent: try row.value("user_agent"), ip: try row.value("ip"),
                    createdAt: try row.value("created_at"), lastUsedAt: try row.value("last_used_at"))
            }
    }

    public func revokeSession(id: UUID, userID: UUID) async throws -> Bool {
        try await !rows("DELETE FROM sessions WHERE id = \(id) AND user_id = \(userID) RETURNING id", keepsSessionCache: false).isEmpty
    }

    public func revokeSessions(of userID: UUID, except keeping: UUID?) async throws -> Int {
        try await rows(
            "DELETE FROM sessions WHERE user_id = \(userID) AND id IS DISTINCT FROM \(keeping) RETURNING id", keepsSessionCache: false
        ).count
    }

    public func revokeSessions(of userID: UUID, method: String) async throws -> Int {
        try await rows("DELETE FROM sessions WHERE user_id = \(userID) AND method = \(method) RETURNING id", keepsSessionCache: false).count
    }

    public func purgeExpiredSessions(at now: Date, idleLifetime: Double) async throws -> Int {
        try await rows(
            """
            DELETE FROM sessions WHERE absolute_expires_at <= \(now) OR (refresh_hash IS NULL AND access_expires_at <= \(now))
                OR (refresh_hash IS NOT NULL AND last_used_at <= \(now.addingTimeInterval(-idleLifetime))) RETURNING id
            """, keepsSessionCache: false
        ).count
    }

    public func sessionCount() async throws -> Int { try await count("sessions") }
}
