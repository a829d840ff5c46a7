import ChatterCore
import Foundation

extension SQLiteStore {
    /// Batched with concurrent sign-ins (see `insertSessions`).
    public func createSession(_ s: NewSession) async throws {
        guard try await sessionInserts.value(for: s) == nil else { return }
        throw try await sessionRefusal(userID: s.userID)
    }

    /// One statement for a batch of sign-ins: each row goes in only while its account exists and is not
    /// disabled, which the single writer decides with the insert. Answers the sessions inserted.
    package static func insertSessions(_ batch: [NewSession], on writer: SQLiteConnection, lock: AsyncMutex) async throws -> [NewSession: Bool] {
        let tuple = "(" + Array(repeating: "?", count: sessionColumns.count).joined(separator: ", ") + ")"
        let rows = try await lock.withLock {
            try await writer.query(
                """
                INSERT INTO sessions (\(sessionColumns.joined(separator: ", ")))
                SELECT v.* FROM (VALUES \(Array(repeating: tuple, count: batch.count).joined(separator: ", "))) AS v
                JOIN users u ON u.id = v.column2 WHERE u.disabled_at IS NULL
                RETURNING id
                """, batch.flatMap(binds))
        }
        let inserted = Set(rows.compactMap { $0.column("id")?.string })
        return Dictionary(uniqueKeysWithValues: batch.filter { inserted.contains($0.id.text) }.map { ($0, true) })
    }

    package static let sessionColumns = [
        "id", "user_id", "method", "access_hash", "access_expires_at", "refresh_hash", "created_at", "last_used_at",
        "absolute_expires_at", "user_agent", "ip", "access_unnamed", "second_factor", "second_factor_at", "dpop_jkt",
        "app_attest_key", "app_attest_app",
    ]

    package static func binds(_ s: NewSession) -> [SQLiteData] {
        [
            .uuid(s.id), .uuid(s.userID), .text(s.method), .bytes(s.accessHash), .time(s.accessExpiresAt),
            s.refreshHash.map(SQLiteData.bytes) ?? .null, .time(s.createdAt), .time(s.createdAt), .time(s.absoluteExpiresAt),
            s.client.userAgent.map(SQLiteData.text) ?? .null, s.client.ip.map(SQLiteData.text) ?? .null, .integer(s.accessTokenNamed ? 0 : 1),
            s.secondFactor.map(SQLiteData.text) ?? .null, s.secondFactorAt.map(SQLiteData.time) ?? .null,
            s.client.boundKey.map(SQLiteData.text) ?? .null, s.client.attested.map { .bytes($0.keyID) } ?? .null,
            s.client.attested.map { .text($0.appID) } ?? .null,
        ]
    }

    public func session(accessHash: [UInt8], at now: Date) async throws -> SessionLookup {
        try await session(AccessKey(hash: accessHash, session: nil), at: now)
    }

    public func session(accessHash: [UInt8], naming id: UUID, at now: Date) async throws -> SessionLookup {
        try await session(AccessKey(hash: accessHash, session: id), at: now)
    }

    private func session(_ key: AccessKey, at now: Date) async throws -> SessionLookup {
        try await sessionCache.session(
            key.hash, at: now,
            read: { _ in
                guard let row = try await sessionsByAccessKey.value(for: key) else { return nil }
                return SessionCache.Entry(
                    session: AuthenticatedSession(
                        sessionID: try row.uuid("session_id"), user: try User(row: row), method: try row.string("method"),
                        accessExpiresAt: try row.date("access_expires_at"), boundKey: row.column("dpop_jkt")?.string),
                    refreshable: row.column("refreshable")?.bool == true, lastUsedAt: try row.date("last_used_at"))
            },
            delete: { id in _ = try await write("DELETE FROM sessions WHERE id = ?", [.uuid(id)]) },
            // When it was last used changes no answer, so this write keeps the cache.
            touch: { id, now in
                _ = try await write("UPDATE sessions SET last_used_at = ? WHERE id = ?", [.time(now), .uuid(id)], keepsSessionCache: true)
            })
    }

    /// A presented access token: a named one is found by its session's id (primary key), an unnamed one by
    /// its hash (a partial index holds only those).
    package struct AccessKey: Hashable, Sendable {
        package var hash: [UInt8]
        package var session: UUID?
    }

    /// One query for the named tokens of a batch and one for the unnamed. A row answers a key only when its
    /// access hash is the key's (for a named token, the session's current one).
    package static func sessions(_ db: SQLiteConnection, keys: [AccessKey]) async throws -> [AccessKey: SQLiteRow] {
        let select = """
            SELECT s.access_hash, s.id AS session_id, s.method, s.access_expires_at, s.refresh_hash IS NOT NULL AS refreshable,
                s.last_used_at, s.dpop_jkt, \(userColumns)
            FROM sessions s JOIN users u ON u.id = s.user_id
            """
        let ids = keys.compactMap(\.session)
        let hashes = keys.filter { $0.session == nil }.map(\.hash)
        var rows: [SQLiteRow] = []
        if !ids.isEmpty {
            rows += try await db.query(
                select + " WHERE s.id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))", ids.map(SQLiteData.uuid))
        }
        if !hashes.isEmpty {
            rows += try await db.query(
                select + " WHERE s.access_unnamed = 1 AND s.access_hash IN (\(Array(repeating: "?", count: hashes.count).joined(separator: ", ")))",
                hashes.map(SQLiteData.bytes))
        }
        var byHash: [[UInt8]: SQLiteRow] = [:]
        for row in rows {
            if let hash = row.column("access_hash")?.blob { byHash[hash] = row }
        }
        var found: [AccessKey: SQLiteRow] = [:]
        for key in keys {
            guard let row = byHash[key.hash] else { continue }
            if let id = key.session, (try? row.uuid("session_id")) != id { continue }
            found[key] = row
        }
        return found
    }

    public func sessionID(unnamedRefreshHash hash: [UInt8]) async throws -> UUID? {
        try await reader.query("SELECT id FROM sessions WHERE refresh_hash = ? AND refresh_unnamed = 1", [.bytes(hash)]).first?.uuid("id")
    }

    public func refreshHash(sessionID: UUID) async throws -> [UInt8]? {
        try await reader.query("SELECT refresh_hash FROM sessions WHERE id = ?", [.uuid(sessionID)]).first?.column("refresh_hash")?.blob
    }

    /// Rotations arriving together are applied together (see `rotate(_:on:lock:accounts:)`).
    /// Session inserts arriving together go in one statement: 11 binds a session, within SQLite's 32,766.
    package static func sessionInsertBatches(writer: SQLiteConnection, lock: AsyncMutex) -> BatchingLookup<NewSession, Bool> {
        BatchingLookup(maximumBatch: 200, maximumFetchers: 1) { batch in try await insertSessions(batch, on: writer, lock: lock) }
    }

    /// Lookups by access token arriving together are read in one statement, on any reader.
    package static func sessionLookupBatches(readers: ReaderConnections) -> BatchingLookup<AccessKey, SQLiteRow> {
        BatchingLookup(maximumBatch: 200, maximumFetchers: readers.all.count) { keys in try await sessions(readers.next, keys: keys) }
    }

    /// Rotations arriving together are applied in one statement (`rotate`): 10 binds a rotation, within
    /// SQLite's 32,766. Two fetchers: one batch's accounts are read while the next batch rotates on the writer.
    package static func rotationBatches(
        writer: SQLiteConnection, lock: AsyncMutex, readers: ReaderConnections, cache: SessionCache
    ) -> BatchingLookup<Rotation, RotatedSession> {
        BatchingLookup(maximumBatch: 200, maximumFetchers: 2) { batch in
            try await cache.evictingRotated(batch) { try await rotate(batch, on: writer, lock: lock, accounts: { readers.next }) }
        }
    }

    public func rotateLive(_ r: Rotation) async throws -> RotatedSession? {
        try await rotations.value(for: r)
    }

    /// One statement for a batch of rotations, on the writer: each session is found by its id and keeps
    /// the token it replaces as its previous one (an unnamed token is also kept by the trigger
    /// `retire_refresh_token`, migration 7). Then one read of the rotated sessions' users and accounts on a
    /// reader, which keeps the writer's statement short. Of two rotations of one token in a batch one wins,
    /// which the session's new refresh hash tells; a session whose account was deleted in between is not
    /// answered, as if it had not rotated.
    package static func rotate(_ batch: [Rotation], on writer: SQLiteConnection, lock: AsyncMutex, accounts reader: @Sendable () -> SQLiteConnection)
        async throws -> [Rotation: RotatedSession]
    {
        let rows = try await lock.withLock {
            try await writer.query(
                """
                UPDATE sessions SET access_hash = v.column3, access_expires_at = min(v.column5, absolute_expires_at),
                    previous_refresh_hash = refresh_hash, refresh_hash = v.column4, refresh_unnamed = 0, access_unnamed = v.column9,
                    last_used_at = v.column6, rotated_at = v.column6, retry_box = v.column8, dpop_jkt = coalesce(dpop_jkt, v.column10)
                FROM (VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: batch.count).joined(separator: ", "))) AS v
                WHERE sessions.id = v.column1 AND sessions.refresh_hash = v.column2
                    AND sessions.absolute_expires_at > v.column6 AND sessions.last_used_at > v.column7
                    AND (sessions.dpop_jkt IS NULL OR sessions.dpop_jkt = v.column10)
                RETURNING id, user_id, refresh_hash, access_expires_at, absolute_expires_at, dpop_jkt
                """,
                batch.flatMap { r in
                    [
                        r.sessionID.map(SQLiteData.uuid) ?? .null, .bytes(r.presentedHash), .bytes(r.newAccessHash), .bytes(r.newRefreshHash),
                        .time(r.now.addingTimeInterval(r.accessLifetime)), .time(r.now), .time(r.now.addingTimeInterval(-r.idleLifetime)),
                        .bytes(r.retryBox), .integer(r.accessTokenNamed ? 0 : 1), r.boundKey.map(SQLiteData.text) ?? .null,
                    ] as [SQLiteData]
                })
        }
        guard !rows.isEmpty else { return [:] }
        let accounts = try await accounts(reader(), userIDs: rows.map { try $0.uuid("user_id") })
        let byNewRefreshHash = Dictionary(batch.map { ($0.newRefreshHash, $0) }, uniquingKeysWith: { first, _ in first })
        var rotated: [Rotation: RotatedSession] = [:]
        for row in rows {
            guard let hash = row.column("refresh_hash")?.blob, let rotation = byNewRefreshHash[hash],
                let (user, account) = accounts[try row.uuid("user_id")]
            else { continue }
            rotated[rotation] = RotatedSession(
                sessionID: try row.uuid("id"), user: user, account: account,
                accessExpiresAt: try row.date("access_expires_at"), absoluteExpiresAt: try row.date("absolute_expires_at"),
                boundKey: row.column("dpop_jkt")?.string)
        }
        return rotated
    }

    /// A transaction that ended a session (reuse, expiry) is fsynced before its answer: that must not come
    /// back after a power loss.
    public func refreshTransaction<T: Sendable>(_ body: @Sendable (any RefreshTransaction) async throws -> T) async throws -> T {
        let ended = SessionsEnded()
        let value = try await transaction { db in try await body(SQLiteRefreshTransaction(db: db, ended: ended)) }
        if ended.any { try await walSync.sync() }
        return value
    }

    public func sessions(of userID: UUID) async throws -> [SessionRecord] {
        try await reader.query(
            """
            SELECT id, method, user_agent, ip, created_at, last_used_at, second_factor, app_attest_app FROM sessions
            WHERE user_id = ? ORDER BY created_at
            """,
            [.uuid(userID)]
        ).map { row in
            SessionRecord(
                id: try row.uuid("id"), method: try row.string("method"), userAgent: row.column("user_agent")?.string,
                ip: row.column("ip")?.string, createdAt: try row.date("created_at"), lastUsedAt: try row.date("last_used_at"),
                secondFactor: row.column("second_factor")?.string, attestedApp: row.column("app_attest_app")?.string)
        }
    }

    public func revokeSession(id: UUID, userID: UUID) async throws -> Bool {
        try await durable { try await !write("DELETE FROM sessions WHERE id = ? AND user_id = ? RETURNING id", [.uuid(id), .uuid(userID)]).isEmpty }
    }

    public func revokeSessions(of userID: UUID, except keeping: UUID?) async throws -> Int {
        try await durable {
            try await write(
                "DELETE FROM sessions WHERE user_id = ? AND id IS NOT ? RETURNING id", [.uuid(userID), keeping.map(SQLiteData.uuid) ?? .null]
            ).count
        }
    }

    public func revokeSessions(of userID: UUID, method: String) async throws -> Int {
        try await durable {
            try await write("DELETE FROM sessions WHERE user_id = ? AND method = ? RETURNING id", [.uuid(userID), .text(method)]).count
        }
    }

    public func purgeExpiredSessions(at now: Date, lifetimes: SessionLifetimes) async throws -> Int {
        let purged = try await write(
            """
            DELETE FROM sessions WHERE absolute_expires_at <= ? OR (refresh_hash IS NULL AND access_expires_at <= ?)
                OR (refresh_hash IS NOT NULL AND last_used_at <= ?) RETURNING id
            """, [.time(now), .time(now), .time(now.addingTimeInterval(-lifetimes.idle))]
        ).count
        // A token retired longer ago than a session lives belongs to a session that has ended, unless the
        // lifetime was shortened since: the session is asked too.
        _ = try await write(
            """
            DELETE FROM retired_refresh_tokens WHERE retired_at <= ?
                AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = retired_refresh_tokens.session_id)
            """, [.time(now.addingTimeInterval(-lifetimes.absolute))])
        return purged
    }

    public func sessionCount() async throws -> Int { try await count("sessions") }
}
