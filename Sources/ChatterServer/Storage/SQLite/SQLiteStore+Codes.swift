import Foundation
import SQLiteNIO

// None of these tables says anything about a session, so their writes keep the session cache.
extension SQLiteStore {
    public func emailCode(for email: String) async throws -> EmailCodeRecord? {
        guard let row = try await reader.query(
            "SELECT code_hash, expires_at, failed_attempts, sent_at FROM email_codes WHERE email = ?", [.text(email)]
        ).first, let hash = row.column("code_hash")?.blob else { return nil }
        return EmailCodeRecord(
            codeHash: Array(hash.readableBytesView), expiresAt: try row.date("expires_at"),
            failedAttempts: row.column("failed_attempts")?.integer ?? 0, sentAt: try row.date("sent_at"))
    }

    public func storeEmailCode(_ record: EmailCodeRecord, for email: String) async throws {
        _ = try await write(
            """
            INSERT INTO email_codes (email, code_hash, expires_at, failed_attempts, sent_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(email) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                failed_attempts = excluded.failed_attempts, sent_at = excluded.sent_at
            """, [.text(email), .bytes(record.codeHash), .time(record.expiresAt), .integer(record.failedAttempts), .time(record.sentAt)],
            keepsSessionCache: true)
    }

    public func recordFailedGuess(for email: String) async throws -> Int {
        try await write(
            "UPDATE email_codes SET failed_attempts = failed_attempts + 1 WHERE email = ? RETURNING failed_attempts", [.text(email)],
            keepsSessionCache: true).first?.column("failed_attempts")?.integer ?? 0
    }

    public func deleteEmailCode(for email: String) async throws {
        _ = try await write("DELETE FROM email_codes WHERE email = ?", [.text(email)], keepsSessionCache: true)
    }

    public func hit(_ key: String, window: Double, at now: Date) async throws -> Int {
        try await write(
            """
            INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
            ON CONFLICT(key) DO UPDATE SET
                count = CASE WHEN ?2 - window_start >= ?3 THEN 1 ELSE count + 1 END,
                window_start = CASE WHEN ?2 - window_start >= ?3 THEN ?2 ELSE window_start END
            RETURNING count
            """, [.text(key), .time(now), .float(window)], keepsSessionCache: true).first?.column("count")?.integer ?? 1
    }

    public func count(_ key: String, window: Double, at now: Date) async throws -> Int {
        guard let row = try await reader.query("SELECT window_start, count FROM rate_limits WHERE key = ?", [.text(key)]).first,
            now.timeIntervalSince(try row.date("window_start")) < window
        else { return 0 }
        return row.column("count")?.integer ?? 0
    }

    public func reset(_ key: String) async throws {
        _ = try await write("DELETE FROM rate_limits WHERE key = ?", [.text(key)], keepsSessionCache: true)
    }

    public func purgeStaleRecords(before cutoff: Date) async throws {
        try await transaction { db in
            _ = try await db.query("DELETE FROM rate_limits WHERE window_start < ?", [.time(cutoff)])
            _ = try await db.query("DELETE FROM email_codes WHERE expires_at < ?", [.time(cutoff)])
            _ = try await db.query("DELETE FROM web_handoffs WHERE expires_at < ?", [.time(cutoff)])
        }
    }

    public func storeHandoff(codeHash: [UInt8], userID: UUID, expiresAt: Date) async throws {
        _ = try await write(
            "INSERT INTO web_handoffs (code_hash, user_id, expires_at) VALUES (?, ?, ?)", [.bytes(codeHash), .uuid(userID), .time(expiresAt)],
            keepsSessionCache: true)
    }

    public func redeemHandoff(codeHash: [UInt8], at now: Date) async throws -> UUID? {
        guard let row = try await write(
            "DELETE FROM web_handoffs WHERE code_hash = ? RETURNING user_id, expires_at", [.bytes(codeHash)], keepsSessionCache: true).first, now < (try row.date("expires_at")) else { return nil }
        return try row.uuid("user_id")
    }

    /// Batched with concurrent events (every sign-in records one).
    public func record(_ event: AuditEvent) async throws {
        try await auditInserts.insert(event)
    }

    static let auditColumns = ["at", "event", "user_id", "method", "ip", "user_agent", "detail"]

    static func binds(_ event: AuditEvent) -> [SQLiteData] {
        [.time(event.at), .text(event.event), event.userID.map(SQLiteData.uuid) ?? .null, event.method.map(SQLiteData.text) ?? .null,
         event.client.ip.map(SQLiteData.text) ?? .null, event.client.userAgent.map(SQLiteData.text) ?? .null,
         event.detail.map(SQLiteData.text) ?? .null]
    }

    public func auditEvents(userID: UUID?) async throws -> [AuditEvent] {
        let rows = try await reader.query(
            "SELECT at, event, user_id, method, ip, user_agent, detail FROM audit_events WHERE ?1 IS NULL OR user_id = ?1 ORDER BY seq",
            [userID.map(SQLiteData.uuid) ?? .null])
        return try rows.map { row in
            AuditEvent(
                at: try row.date("at"), event: try row.string("event"), userID: try? row.uuid("user_id"), method: row.column("method")?.string,
                client: ClientInfo(ip: row.column("ip")?.string, userAgent: row.column("user_agent")?.string), detail: row.column("detail")?.string)
        }
    }
}
