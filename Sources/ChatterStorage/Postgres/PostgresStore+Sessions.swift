import ChatterCore
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Inserted only while the account exists and is not disabled (`InsertSession`).
    public func createSession(_ s: NewSession) async throws {
        let inserted = try await rows(InsertSession(session: s), keepsSessionCache: true)
        guard inserted.isEmpty else { return }
        throw try await sessionRefusal(userID: s.userID)
    }

    public func session(accessHash: [UInt8], at now: Date) async throws -> SessionLookup {
        try await sessionCache.session(
            accessHash, at: now,
            read: { hash in try await sessionsByAccessHash.value(for: hash) },
            delete: { id in try await rows("DELETE FROM sessions WHERE id = \(id)") },
            touch: { id, now in try await rows(TouchSession(id: id, now: now), keepsSessionCache: true) })
    }

    // PostgreSQL keeps its unique index on the access hash, so a named token is found by it too.
    public func session(accessHash: [UInt8], naming id: UUID, at now: Date) async throws -> SessionLookup {
        try await session(accessHash: accessHash, at: now)
    }

    /// Concurrent lookups share one query (see `BatchingLookup`).
    package static func sessionEntries(_ client: PostgresClient, logger: Logger, accessHashes: [[UInt8]]) async throws -> [[UInt8]: SessionCache.Entry] {
        let rows = try await rows(SessionsByAccessHash(hashes: accessHashes), on: client, logger: logger)
        var found: [[UInt8]: SessionCache.Entry] = [:]
        for row in rows {
            found[try row.bytes("access_hash")] = SessionCache.Entry(
                session: AuthenticatedSession(
                    sessionID: try row.value("session_id"), user: try User(row: row), method: try row.value("method"),
                    accessExpiresAt: try row.value("access_expires_at"), boundKey: try row.value("dpop_jkt")),
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
        var attempt = 1
        while true {
            do {
                return try rotatedSessions(try await rows(RotateSessions(batch: batch), on: client, logger: logger), batch)
            } catch let error as PSQLError where error.sqlState == PSQLError.deadlock && attempt < 3 {
                // Two batches locking the same sessions in opposite orders (one token presented twice at once).
                attempt += 1
            }
        }
    }

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
                    accessExpiresAt: row.value("access_expires_at"), absoluteExpiresAt: row.value("absolute_expires_at"),
                    boundKey: row.value("dpop_jkt"))
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
            """
            SELECT id, method, user_agent, ip, created_at, last_used_at, second_factor, app_attest_app FROM sessions
            WHERE user_id = \(userID) ORDER BY created_at
            """,
            keepsSessionCache: true
        )
        .map { row in
            SessionRecord(
                id: try row.value("id"), method: try row.value("method"), userAgent: try row.value("user_agent"), ip: try row.value("ip"),
                createdAt: try row.value("created_at"), lastUsedAt: try row.value("last_used_at"), secondFactor: try row.value("second_factor"),
                attestedApp: try row.value("app_attest_app"))
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
