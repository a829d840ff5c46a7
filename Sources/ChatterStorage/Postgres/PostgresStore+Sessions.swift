import ChatterCore
import Foundation
import PostgresNIO

extension PostgresStore {
    /// `FOR SHARE` holds the account's row until the insert commits: an operator's "disable" (which
    /// updates that row, then ends its sessions) either waits for this session and ends it too, or
    /// commits first and this insert finds the account disabled.
    public func createSession(_ s: NewSession) async throws {
        let inserted = try await rows(
            """
            INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, refresh_hash, created_at, last_used_at,
                absolute_expires_at, user_agent, ip, second_factor, second_factor_at)
            SELECT \(s.id), u.id, \(s.method), \(s.accessHash.bytea), \(s.accessExpiresAt), \(s.refreshHash?.bytea),
                \(s.createdAt), \(s.createdAt), \(s.absoluteExpiresAt), \(s.client.userAgent), \(s.client.ip), \(s.secondFactor), \(s.secondFactorAt)
            FROM (SELECT id FROM users WHERE id = \(s.userID) AND disabled_at IS NULL FOR SHARE) u
            RETURNING id
            """, keepsSessionCache: true)
        guard inserted.isEmpty else { return }
        throw try await sessionRefusal(userID: s.userID)
    }

    public func session(accessHash: [UInt8], at now: Date) async throws -> SessionLookup {
        try await sessionCache.session(
            accessHash, at: now,
            read: { hash in try await sessionsByAccessHash.value(for: hash) },
            delete: { id in try await rows("DELETE FROM sessions WHERE id = \(id)") },
            touch: { id, now in try await rows("UPDATE sessions SET last_used_at = \(now) WHERE id = \(id)", keepsSessionCache: true) })
    }

    // PostgreSQL keeps its unique index on the access hash, so a named token is found by it too.
    public func session(accessHash: [UInt8], naming id: UUID, at now: Date) async throws -> SessionLookup {
        try await session(accessHash: accessHash, at: now)
    }

    /// Concurrent lookups share one query (see `BatchingLookup`).
    package static func sessionEntries(_ client: PostgresClient, logger: Logger, accessHashes: [[UInt8]]) async throws -> [[UInt8]: SessionCache.Entry] {
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

    public func sessionID(unnamedRefreshHash hash: [UInt8]) async throws -> UUID? {
        try await rows("SELECT id FROM sessions WHERE refresh_hash = \(hash.bytea)", keepsSessionCache: true).first?.value("id")
    }

    public func refreshHash(sessionID: UUID) async throws -> [UInt8]? {
        guard let row = try await rows("SELECT refresh_hash FROM sessions WHERE id = \(sessionID)", keepsSessionCache: true).first else { return nil }
        return try row.optionalBytes("refresh_hash")
    }

    /// Rotations arriving together are applied together (see `rotate(_:on:logger:)`).
    public func rotateLive(_ r: Rotation) async throws -> RotatedSession? {
        try await rotations.value(for: r)
    }

    /// One statement, so one round trip and one commit, for a batch of rotations: it rotates each live
    /// token, retires it, and reads the sessions' users and accounts. The row lock makes a second rotation
    /// of the same token wait and then find it retired; of two in one batch one wins, which the session's
    /// new refresh hash tells.
    package static func rotate(_ batch: [Rotation], on client: PostgresClient, logger: Logger) async throws -> [Rotation: RotatedSession] {
        var binds = PostgresBindings(capacity: 7)
        binds.append(batch.map(\.presentedHash.bytea))
        binds.append(batch.map(\.newAccessHash.bytea))
        binds.append(batch.map(\.newRefreshHash.bytea))
        binds.append(batch.map { $0.now.addingTimeInterval($0.accessLifetime) })
        binds.append(batch.map(\.now))
        binds.append(batch.map { $0.now.addingTimeInterval(-$0.idleLifetime) })
        binds.append(batch.map(\.retryBox.bytea))
        let query = PostgresQuery(unsafeSQL: rotateSQL, binds: binds)
        var attempt = 1
        while true {
            do {
                let rows = try await client.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
                return try rotatedSessions(rows, batch)
            } catch let error as PSQLError where error.sqlState == PSQLError.deadlock && attempt < 3 {
                // Two batches locking the same sessions in opposite orders (one token presented twice at once).
                attempt += 1
            }
        }
    }

    private static let rotateSQL = """
        WITH v AS (
            SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], $7::bytea[])
                AS v(presented, access_hash, refresh_hash, access_expires_at, at_time, idle_cutoff, retry_box)
        ), rotated AS (
            UPDATE sessions s SET access_hash = v.access_hash, access_expires_at = LEAST(v.access_expires_at, s.absolute_expires_at),
                refresh_hash = v.refresh_hash, last_used_at = v.at_time, rotated_at = v.at_time, retry_box = v.retry_box
            FROM v WHERE s.refresh_hash = v.presented AND s.absolute_expires_at > v.at_time AND s.last_used_at > v.idle_cutoff
            RETURNING s.id, s.user_id, s.refresh_hash, s.access_expires_at, s.absolute_expires_at, v.presented, v.at_time
        ), retired AS (
            INSERT INTO retired_refresh_tokens (hash, session_id, retired_at) SELECT presented, id, at_time FROM rotated
        )
        SELECT r.id AS session_id, r.refresh_hash, r.access_expires_at, r.absolute_expires_at, \(userColumns),
            EXISTS (SELECT 1 FROM passwords p WHERE p.user_id = r.user_id) AS has_password,
            EXISTS (SELECT 1 FROM passkeys k WHERE k.user_id = r.user_id) AS has_passkey, i.issuer, i.subject, i.email, i.email_verified
        FROM rotated r JOIN users u ON u.id = r.user_id LEFT JOIN identities i ON i.user_id = r.user_id
        ORDER BY r.id, i.created_at
        """

    /// The statement's rows (a session's row once per identity, oldest first) as the batch's answers.
    private static func rotatedSessions(_ rows: [PostgresRandomAccessRow], _ batch: [Rotation]) throws -> [Rotation: RotatedSession] {
        let byNewRefreshHash = Dictionary(batch.map { ($0.newRefreshHash, $0) }, uniquingKeysWith: { first, _ in first })
        var rotated: [Rotation: RotatedSession] = [:]
        for row in rows {
            guard let rotation = byNewRefreshHash[try row.bytes("refresh_hash")] else { continue }
            var session =
                try rotated[rotation]
                ?? RotatedSession(
                    sessionID: row.value("session_id"), user: User(row: row),
                    account: AccountSummary(identities: [], hasPassword: row.value("has_password"), hasPasskey: row.value("has_passkey")),
                    accessExpiresAt: row.value("access_expires_at"), absoluteExpiresAt: row.value("absolute_expires_at"))
            if try row.value("issuer", as: String?.self) != nil { session.account.identities.append(try Identity(row: row)) }
            rotated[rotation] = session
        }
        return rotated
    }

    public func refreshTransaction<T: Sendable>(_ body: @Sendable (any RefreshTransaction) async throws -> T) async throws -> T {
        try await transaction { [logger] db in try await body(PostgresRefreshTransaction(db: db, logger: logger)) }
    }

    public func sessions(of userID: UUID) async throws -> [SessionRecord] {
        try await rows(
            "SELECT id, method, user_agent, ip, created_at, last_used_at, second_factor FROM sessions WHERE user_id = \(userID) ORDER BY created_at",
            keepsSessionCache: true
        )
        .map { row in
            SessionRecord(
                id: try row.value("id"), method: try row.value("method"), userAgent: try row.value("user_agent"), ip: try row.value("ip"),
                createdAt: try row.value("created_at"), lastUsedAt: try row.value("last_used_at"), secondFactor: try row.value("second_factor"))
        }
    }

    public func revokeSession(id: UUID, userID: UUID) async throws -> Bool {
        try await !rows("DELETE FROM sessions WHERE id = \(id) AND user_id = \(userID) RETURNING id").isEmpty
    }

    public func revokeSessions(of userID: UUID, except keeping: UUID?) async throws -> Int {
        try await rows(
            "DELETE FROM sessions WHERE user_id = \(userID) AND id IS DISTINCT FROM \(keeping) RETURNING id"
        ).count
    }

    public func revokeSessions(of userID: UUID, method: String) async throws -> Int {
        try await rows("DELETE FROM sessions WHERE user_id = \(userID) AND method = \(method) RETURNING id").count
    }

    public func purgeExpiredSessions(at now: Date, lifetimes: SessionLifetimes) async throws -> Int {
        try await rows(
            """
            DELETE FROM sessions WHERE absolute_expires_at <= \(now) OR (refresh_hash IS NULL AND access_expires_at <= \(now))
                OR (refresh_hash IS NOT NULL AND last_used_at <= \(now.addingTimeInterval(-lifetimes.idle))) RETURNING id
            """
        ).count
    }

    public func sessionCount() async throws -> Int { try await count("sessions") }
}
