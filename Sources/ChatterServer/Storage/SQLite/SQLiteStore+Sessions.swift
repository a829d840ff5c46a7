import Foundation
import SQLiteNIO

extension SQLiteStore {
    /// Batched with concurrent sign-ins.
    public func createSession(_ s: NewSession) async throws {
        try await sessionInserts.insert(s)
        admit(s.accessHash)
    }

    /// Lets the filter pass a committed session's token; run before the token is handed out.
    func admit(_ accessHash: [UInt8]) {
        guard accessFilter.insert(accessHash) else { return }
        // Off the request's path: reading every session takes a while on a large table.
        Task { [accessFilter, reader] in
            try? await accessFilter.rebuild(count: { try await Self.count("sessions", on: reader) }, forEach: { try await Self.forEachAccessHash(reader, $0) })
        }
    }

    /// Streams the hashes: a million sessions must not become a million rows in memory.
    static func forEachAccessHash(_ db: SQLiteConnection, _ body: @escaping @Sendable ([UInt8]) -> Void) async throws {
        try await db.query("SELECT access_hash FROM sessions", []) { row in
            if let hash = row.column("access_hash")?.blob { body(Array(hash.readableBytesView)) }
        }
    }

    static let sessionColumns = [
        "id", "user_id", "method", "access_hash", "access_expires_at", "refresh_hash", "created_at", "last_used_at",
        "absolute_expires_at", "user_agent", "ip",
    ]

    static func binds(_ s: NewSession) -> [SQLiteData] {
        [.uuid(s.id), .uuid(s.userID), .text(s.method), .bytes(s.accessHash), .time(s.accessExpiresAt),
         s.refreshHash.map(SQLiteData.bytes) ?? .null, .time(s.createdAt), .time(s.createdAt), .time(s.absoluteExpiresAt),
         s.client.userAgent.map(SQLiteData.text) ?? .null, s.client.ip.map(SQLiteData.text) ?? .null]
    }

    public func session(accessHash: [UInt8], at now: Date) async throws -> SessionLookup {
        try await sessionCache.session(
            accessHash, at: now,
            read: { hash in
                guard accessFilter.mightContain(hash), let row = try await sessionsByAccessHash.value(for: hash) else { return nil }
                return SessionCache.Entry(
                    session: AuthenticatedSession(
                        sessionID: try row.uuid("session_id"), user: try User(row: row), method: try row.string("method"),
                        accessExpiresAt: try row.date("access_expires_at")),
                    refreshable: row.column("refreshable")?.bool == true, lastUsedAt: try row.date("last_used_at"))
            },
            delete: { id in _ = try await write("DELETE FROM sessions WHERE id = ?", [.uuid(id)]) },
            // When it was last used changes no answer, so this write keeps the cache.
            touch: { id, now in
                _ = try await write("UPDATE sessions SET last_used_at = ? WHERE id = ?", [.time(now), .uuid(id)], keepsSessionCache: true)
            })
    }

    static func sessions(_ db: SQLiteConnection, accessHashes: [[UInt8]]) async throws -> [[UInt8]: SQLiteRow] {
        let rows = try await db.query(
            """
            SELECT s.access_hash, s.id AS session_id, s.method, s.access_expires_at, s.refresh_hash IS NOT NULL AS refreshable,
                s.last_used_at, \(userColumns)
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.access_hash IN (\(Array(repeating: "?", count: accessHashes.count).joined(separator: ", ")))
            """, accessHashes.map(SQLiteData.bytes))
        var found: [[UInt8]: SQLiteRow] = [:]
        for row in rows {
            if let hash = row.column("access_hash")?.blob { found[Array(hash.readableBytesView)] = row }
        }
        return found
    }

    public func rotate(_ r: Rotation) async throws -> RotationOutcome {
        let outcome = try await rotateInTransaction(r)
        switch outcome {
        case .rotated: admit(r.newAccessHash)
        // The family was deleted: that must not come back after a power loss.
        case .reused, .expired: try await walSync.sync()
        case .retry, .unknown: break
        }
        return outcome
    }

    private func rotateInTransaction(_ r: Rotation) async throws -> RotationOutcome {
        try await transaction { db in
            let current = try await db.query(
                "SELECT id, user_id, last_used_at, absolute_expires_at FROM sessions WHERE refresh_hash = ?", [.bytes(r.presentedHash)]
            ).first
            if let current {
                let id = try current.uuid("id"), userID = try current.uuid("user_id")
                let absolute = try current.date("absolute_expires_at")
                guard r.now < absolute, r.now.timeIntervalSince(try current.date("last_used_at")) < r.idleLifetime else {
                    _ = try await db.query("DELETE FROM sessions WHERE id = ?", [.uuid(id)])
                    return .expired(userID: userID)
                }
                let accessExpiresAt = min(r.now.addingTimeInterval(r.accessLifetime), absolute)
                _ = try await db.query(
                    "INSERT INTO retired_refresh_tokens (hash, session_id, retired_at) VALUES (?, ?, ?)",
                    [.bytes(r.presentedHash), .uuid(id), .time(r.now)])
                _ = try await db.query(
                    """
                    UPDATE sessions SET access_hash = ?, access_expires_at = ?, refresh_hash = ?, last_used_at = ?, rotated_at = ?,
                        retry_box = ? WHERE id = ?
                    """,
                    [.bytes(r.newAccessHash), .time(accessExpiresAt), .bytes(r.newRefreshHash), .time(r.now), .time(r.now),
                     .bytes(r.retryBox), .uuid(id)])
                guard let user = try await Self.user(db, id: userID) else { throw StoreError.corruptRow("session without user") }
                return .rotated(sessionID: id, user: user, accessExpiresAt: accessExpiresAt, absoluteExpiresAt: absolute)
            }
            let retired = try await db.query(
                """
                SELECT r.retired_at, s.id, s.user_id, s.rotated_at, s.retry_box, s.access_expires_at, s.absolute_expires_at
                FROM retired_refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.hash = ?
                """, [.bytes(r.presentedHash)]
            ).first
            guard let retired else { return .unknown }
            let id = try retired.uuid("id"), userID = try retired.uuid("user_id")
            let retiredAt = try retired.date("retired_at")
            // Only the token retired by the latest rotation, only briefly, and only once may replay that
            // rotation's answer (a client whose answer was lost retries once); the box is emptied as it is
            // handed out, so a second presentation is reuse.
            if retired.column("rotated_at")?.double == retiredAt.timeIntervalSince1970,
                r.now.timeIntervalSince(retiredAt) <= r.graceWindow,
                let box = retired.column("retry_box")?.blob,
                let user = try await Self.user(db, id: userID)
            {
                _ = try await db.query("UPDATE sessions SET retry_box = NULL WHERE id = ?", [.uuid(id)])
                return .retry(
                    sessionID: id, user: user, retryBox: Array(box.readableBytesView),
                    accessExpiresAt: try retired.date("access_expires_at"), absoluteExpiresAt: try retired.date("absolute_expires_at"))
            }
            _ = try await db.query("DELETE FROM sessions WHERE id = ?", [.uuid(id)])
            return .reused(sessionID: id, userID: userID)
        }
    }

    static func user(_ db: SQLiteConnection, id: UUID) async throws -> User? {
        try await db.query("SELECT \(userColumns) FROM users u WHERE u.id = ?", [.uuid(id)]).first.map(User.init(row:))
    }

    public func sessions(of userID: UUID) async throws -> [SessionRecord] {
        try await reader.query(
            "SELECT id, method, user_agent, ip, created_at, last_used_at FROM sessions WHERE user_id = ? ORDER BY created_at",
            [.uuid(userID)]
        ).map { row in
            SessionRecord(
                id: try row.uuid("id"), method: try row.string("method"), userAgent: row.column("user_agent")?.string,
                ip: row.column("ip")?.string, createdAt: try row.date("created_at"), lastUsedAt: try row.date("last_used_at"))
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

    public func purgeExpiredSessions(at now: Date, idleLifetime: Double) async throws -> Int {
        try await write(
            """
            DELETE FROM sessions WHERE absolute_expires_at <= ? OR (refresh_hash IS NULL AND access_expires_at <= ?)
                OR (refresh_hash IS NOT NULL AND last_used_at <= ?) RETURNING id
            """, [.time(now), .time(now), .time(now.addingTimeInterval(-idleLifetime))]
        ).count
    }

    public func sessionCount() async throws -> Int { try await count("sessions") }
}
