import ChatterCore
import Foundation

// None of these tables says anything about a session, so their writes keep the session cache.
extension SQLiteStore {
    public func emailCodes(for email: String) async throws -> [EmailCodeRecord] {
        try await reader.query(
            "SELECT code_hash, expires_at, attempts, sent_at FROM email_codes WHERE email = ? ORDER BY id", [.text(email)]
        ).map { row in
            EmailCodeRecord(
                codeHash: row.column("code_hash")?.blob ?? [], expiresAt: try row.date("expires_at"),
                guesses: row.column("attempts")?.integer ?? 0, sentAt: try row.date("sent_at"))
        }
    }

    public func storeEmailCode(
        _ record: EmailCodeRecord, for email: String, scope: String, cooldown: Double, maximumLive: Int
    ) async throws -> Double? {
        let stored = try await write(
            """
            INSERT INTO email_codes (email, scope, code_hash, expires_at, attempts, sent_at)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6
            WHERE NOT EXISTS (SELECT 1 FROM email_codes WHERE email = ?1 AND scope = ?2 AND sent_at > ?6 - ?7)
                AND (SELECT count(*) FROM email_codes WHERE email = ?1 AND expires_at > ?6) < ?8
            RETURNING id
            """,
            [
                .text(email), .text(scope), .bytes(record.codeHash), .time(record.expiresAt), .integer(record.guesses), .time(record.sentAt),
                .float(cooldown), .integer(min(maximumLive, Int(Int32.max))),
            ],
            keepsSessionCache: true)
        guard stored.isEmpty else { return nil }
        // Refused: how long is left only shapes the message. At the cap, it is until the oldest live code expires.
        if let live = try await reader.query(
            "SELECT count(*) AS n, min(expires_at) AS first FROM email_codes WHERE email = ? AND expires_at > ?", [.text(email), .time(record.sentAt)]
        ).first, (live.column("n")?.integer ?? 0) >= maximumLive, let first = live.column("first")?.double {
            return max(1, first - record.sentAt.timeIntervalSince1970)
        }
        let last = try await reader.query(
            "SELECT max(sent_at) AS last FROM email_codes WHERE email = ? AND scope = ?", [.text(email), .text(scope)]
        ).first?.column("last")?.double
        return max(1, (last ?? record.sentAt.timeIntervalSince1970) + cooldown - record.sentAt.timeIntervalSince1970)
    }

    public func takeGuess(for email: String, maximumGuesses: Int, at now: Date) async throws -> [[UInt8]] {
        try await write(
            "UPDATE email_codes SET attempts = attempts + 1 WHERE email = ? AND expires_at > ? AND attempts < ? RETURNING code_hash",
            [.text(email), .time(now), .integer(maximumGuesses)], keepsSessionCache: true
        ).compactMap { $0.column("code_hash")?.blob }
    }

    public func consumeEmailCode(for email: String, codeHash: [UInt8]) async throws -> Bool {
        try await transaction(keepsSessionCache: true) { db in
            let removed = try await db.query(
                "DELETE FROM email_codes WHERE email = ? AND code_hash = ? RETURNING id", [.text(email), .bytes(codeHash)])
            guard !removed.isEmpty else { return false }
            _ = try await db.query("DELETE FROM email_codes WHERE email = ?", [.text(email)])
            return true
        }
    }

    public func storeDeviceToken(hash: [UInt8], email: String, at now: Date, keeping: Int) async throws {
        try await transaction(keepsSessionCache: true) { db in
            _ = try await db.query(
                "INSERT INTO device_tokens (hash, email, created_at, last_used_at) VALUES (?, ?, ?, ?)",
                [.bytes(hash), .text(email), .time(now), .time(now)])
            _ = try await db.query(
                """
                DELETE FROM device_tokens WHERE email = ?1 AND hash NOT IN
                    (SELECT hash FROM device_tokens WHERE email = ?1 ORDER BY created_at DESC, rowid DESC LIMIT ?2)
                """, [.text(email), .integer(keeping)])
        }
    }

    public func deviceTokenEmail(hash: [UInt8], issuedAfter: Date) async throws -> String? {
        try await reader.query(
            "SELECT email FROM device_tokens WHERE hash = ? AND created_at > ?", [.bytes(hash), .time(issuedAfter)]
        ).first?.column("email")?.string
    }

    public func rememberSecondFactor(hash: [UInt8], email: String, until: Date) async throws -> Bool {
        try await !write(
            "UPDATE device_tokens SET second_factor_until = ? WHERE hash = ? AND email = ? RETURNING hash", [.time(until), .bytes(hash), .text(email)],
            keepsSessionCache: true
        ).isEmpty
    }

    public func deviceSecondFactorUntil(hash: [UInt8], email: String, issuedAfter: Date) async throws -> Date? {
        try await reader.query(
            "SELECT second_factor_until FROM device_tokens WHERE hash = ? AND email = ? AND created_at > ?",
            [.bytes(hash), .text(email), .time(issuedAfter)]
        ).first?.column("second_factor_until")?.double.map(Date.init(timeIntervalSince1970:))
    }

    public func deleteDeviceTokens(userID: UUID) async throws -> Int {
        try await transaction(keepsSessionCache: true) { db in
            _ = try await db.query("DELETE FROM second_steps WHERE user_id = ?", [.uuid(userID)])
            return try await db.query(
                """
                DELETE FROM device_tokens WHERE email IN
                    (SELECT email FROM identities WHERE user_id = ? AND email IS NOT NULL AND email_verified = 1) RETURNING hash
                """, [.uuid(userID)]
            ).count
        }
    }

    public func markNotificationSeen(jti: String, expiresAt: Date) async throws -> Bool {
        try await !write(
            "INSERT INTO seen_notifications (jti, expires_at) VALUES (?, ?) ON CONFLICT(jti) DO NOTHING RETURNING jti",
            [.text(jti), .time(expiresAt)], keepsSessionCache: true
        ).isEmpty
    }

    public func hit(_ key: String, window: Double, at now: Date) async throws -> Int {
        try await write(
            """
            INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
            ON CONFLICT(key) DO UPDATE SET
                count = CASE WHEN ?2 - window_start >= ?3 THEN 1 ELSE count + 1 END,
                window_start = CASE WHEN ?2 - window_start >= ?3 THEN ?2 ELSE window_start END
            RETURNING count
            """, [.text(key), .time(now), .float(window)], keepsSessionCache: true
        ).first?.column("count")?.integer ?? 1
    }

    public func count(_ key: String, window: Double, at now: Date) async throws -> Int {
        guard let row = try await reader.query("SELECT window_start, count FROM rate_limits WHERE key = ?", [.text(key)]).first,
            now.timeIntervalSince(try row.date("window_start")) < window
        else { return 0 }
        return row.column("count")?.integer ?? 0
    }

    public func release(_ key: String) async throws {
        _ = try await write("UPDATE rate_limits SET count = count - 1 WHERE key = ? AND count > 0", [.text(key)], keepsSessionCache: true)
    }

    public func purgeStaleRecords(_ cutoffs: StaleCutoffs) async throws {
        try await transaction(keepsSessionCache: true) { db in
            _ = try await db.query("DELETE FROM rate_limits WHERE window_start < ?", [.time(cutoffs.counters)])
            _ = try await db.query("DELETE FROM email_codes WHERE expires_at < ?", [.time(cutoffs.counters)])
            _ = try await db.query("DELETE FROM web_handoffs WHERE expires_at <= ?", [.time(cutoffs.now)])
            _ = try await db.query("DELETE FROM passkey_challenges WHERE expires_at <= ?", [.time(cutoffs.now)])
            _ = try await db.query("DELETE FROM second_steps WHERE expires_at <= ?", [.time(cutoffs.now)])
            _ = try await db.query("DELETE FROM dpop_proofs WHERE expires_at <= ?", [.time(cutoffs.now)])
            _ = try await db.query(
                "DELETE FROM app_attest_keys WHERE (last_used_at IS NULL AND created_at < ?) OR last_used_at < ?",
                [.time(cutoffs.unusedAppAttestKeys), .time(cutoffs.idleAppAttestKeys)])
            // An enrolment never confirmed: its secret was shown and never used.
            _ = try await db.query("DELETE FROM totp_authenticators WHERE confirmed_at IS NULL AND created_at < ?", [.time(cutoffs.counters)])
            _ = try await db.query("DELETE FROM seen_notifications WHERE expires_at < ?", [.time(cutoffs.counters)])
            _ = try await db.query("DELETE FROM device_tokens WHERE created_at <= ?", [.time(cutoffs.deviceTokens)])
            if let audit = cutoffs.audit { _ = try await db.query("DELETE FROM audit_events WHERE at < ?", [.time(audit)]) }
        }
    }

    public func storeHandoff(codeHash: [UInt8], userID: UUID, expiresAt: Date) async throws {
        _ = try await write(
            "INSERT INTO web_handoffs (code_hash, user_id, expires_at) VALUES (?, ?, ?)", [.bytes(codeHash), .uuid(userID), .time(expiresAt)],
            keepsSessionCache: true)
    }

    public func redeemHandoff(codeHash: [UInt8], at now: Date) async throws -> UUID? {
        guard
            let row = try await write(
                "DELETE FROM web_handoffs WHERE code_hash = ? RETURNING user_id, expires_at", [.bytes(codeHash)], keepsSessionCache: true
            ).first, now < (try row.date("expires_at"))
        else { return nil }
        return try row.uuid("user_id")
    }

    public func handoffUser(codeHash: [UInt8], at now: Date) async throws -> UUID? {
        guard
            let row = try await reader.query(
                "SELECT user_id FROM web_handoffs WHERE code_hash = ? AND expires_at > ?", [.bytes(codeHash), .time(now)]
            ).first
        else { return nil }
        return try row.uuid("user_id")
    }

    /// Batched with concurrent events (every sign-in records one).
    public func record(_ event: AuditEvent) async throws {
        try await auditInserts.insert(event)
    }

    package static let auditColumns = ["at", "event", "user_id", "method", "ip", "user_agent", "detail", "actor"]

    package static func binds(_ event: AuditEvent) -> [SQLiteData] {
        [
            .time(event.at), .text(event.event), event.userID.map(SQLiteData.uuid) ?? .null, event.method.map(SQLiteData.text) ?? .null,
            event.client.ip.map(SQLiteData.text) ?? .null, event.client.userAgent.map(SQLiteData.text) ?? .null,
            event.detail.map(SQLiteData.text) ?? .null, event.actor.map { SQLiteData.text($0.description) } ?? .null,
        ]
    }

    public func auditEvents(_ filter: AuditFilter) async throws -> [AuditEvent] {
        var conditions: [String] = []
        var binds: [SQLiteData] = []
        if let user = filter.userID {
            conditions.append("user_id = ?")
            binds.append(.uuid(user))
        }
        if !filter.events.isEmpty {
            conditions.append("event IN (\(Array(repeating: "?", count: filter.events.count).joined(separator: ", ")))")
            binds += filter.events.map(SQLiteData.text)
        }
        if let since = filter.since {
            conditions.append("at >= ?")
            binds.append(.time(since))
        }
        if let until = filter.until {
            conditions.append("at < ?")
            binds.append(.time(until))
        }
        let rows = try await reader.query(
            """
            SELECT at, event, user_id, method, ip, user_agent, detail, actor FROM audit_events
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")) ORDER BY seq DESC LIMIT ?
            """, binds + [.integer(min(filter.limit, Int(Int64.max)))])
        return try rows.map { row in
            AuditEvent(
                at: try row.date("at"), event: try row.string("event"), userID: try? row.uuid("user_id"), method: row.column("method")?.string,
                client: ClientInfo(ip: row.column("ip")?.string, userAgent: row.column("user_agent")?.string), detail: row.column("detail")?.string,
                actor: row.column("actor")?.string.flatMap(AuditActor.init(stored:)))
        }
    }
}
