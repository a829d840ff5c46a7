import ChatterCore
import Foundation
import PostgresNIO

// None of these tables says anything about a session, so their writes keep the session cache.
extension PostgresStore {
    public func emailCodes(for email: String) async throws -> [EmailCodeRecord] {
        try await rows("SELECT code_hash, expires_at, attempts, sent_at FROM email_codes WHERE email = \(email) ORDER BY id", keepsSessionCache: true).map {
            row in
            EmailCodeRecord(
                codeHash: try row.bytes("code_hash"), expiresAt: try row.value("expires_at"), guesses: try row.value("attempts"),
                sentAt: try row.value("sent_at"))
        }
    }

    /// The cooldown is decided on the address's `email_code_sends` row: `ON CONFLICT … DO UPDATE … WHERE`
    /// locks it, so of two requests at once the second sees the first's send and is refused. The cap on
    /// live codes spans scopes, so sends to one address take turns on a transaction lock of its own first.
    public func storeEmailCode(
        _ record: EmailCodeRecord, for email: String, scope: String, cooldown: Double, maximumLive: Int
    ) async throws -> Double? {
        let stored = try await transaction(keepsSessionCache: true) { [logger] db in
            try await db.query("SELECT pg_advisory_xact_lock(hashtextextended(\("email-codes:" + email), 0))", logger: logger)
            return try await db.query(
                """
                WITH gate AS (
                    INSERT INTO email_code_sends AS s (email, scope, sent_at)
                    SELECT \(email), \(scope), \(record.sentAt)
                    WHERE (SELECT count(*) FROM email_codes WHERE email = \(email) AND expires_at > \(record.sentAt)) < \(min(maximumLive, Int(Int32.max)))
                    ON CONFLICT (email, scope) DO UPDATE SET sent_at = excluded.sent_at
                        WHERE s.sent_at <= \(record.sentAt.addingTimeInterval(-cooldown))
                    RETURNING 1
                )
                INSERT INTO email_codes (email, scope, code_hash, expires_at, attempts, sent_at)
                SELECT \(email), \(scope), \(record.codeHash.bytea), \(record.expiresAt), \(record.guesses), \(record.sentAt) FROM gate
                RETURNING id
                """, logger: logger
            ).collect().count
        }
        guard stored == 0 else { return nil }
        // Refused: how long is left only shapes the message. At the cap, it is until the oldest live code expires.
        if let live = try await rows(
            "SELECT count(*) AS n, min(expires_at) AS first FROM email_codes WHERE email = \(email) AND expires_at > \(record.sentAt)", keepsSessionCache: true
        ).first, try live.value("n", as: Int.self) >= maximumLive, let first = try live.value("first", as: Date?.self) {
            return max(1, first.timeIntervalSince(record.sentAt))
        }
        let last = try await rows("SELECT sent_at FROM email_code_sends WHERE email = \(email) AND scope = \(scope)", keepsSessionCache: true).first?
            .value("sent_at", as: Date.self)
        return max(1, (last ?? record.sentAt).timeIntervalSince(record.sentAt) + cooldown)
    }

    public func takeGuess(for email: String, maximumGuesses: Int, at now: Date) async throws -> [[UInt8]] {
        // Concurrent guesses wait on each code's row lock and then re-check `attempts`, so none passes the limit.
        try await rows(
            """
            UPDATE email_codes SET attempts = attempts + 1 WHERE email = \(email) AND expires_at > \(now) AND attempts < \(maximumGuesses)
            RETURNING code_hash
            """, keepsSessionCache: true
        ).map { try $0.bytes("code_hash") }
    }

    public func consumeEmailCode(for email: String, codeHash: [UInt8]) async throws -> Bool {
        // The DELETE whose row count decides: of requests racing for one code, one removes it.
        try await !rows(
            """
            WITH used AS (DELETE FROM email_codes WHERE email = \(email) AND code_hash = \(codeHash.bytea) RETURNING id),
                others AS (DELETE FROM email_codes WHERE email = \(email) AND code_hash <> \(codeHash.bytea) AND EXISTS (SELECT 1 FROM used)),
                sends AS (DELETE FROM email_code_sends WHERE email = \(email) AND EXISTS (SELECT 1 FROM used))
            SELECT id FROM used
            """, keepsSessionCache: true
        ).isEmpty
    }

    /// One statement: its DELETE sees the table as it was, so it keeps the newest `keeping − 1` of the
    /// tokens from before and never the one being inserted.
    public func storeDeviceToken(hash: [UInt8], email: String, at now: Date, keeping: Int) async throws {
        try await rows(
            """
            WITH added AS (INSERT INTO device_tokens (hash, email, created_at, last_used_at) VALUES (\(hash.bytea), \(email), \(now), \(now)))
            DELETE FROM device_tokens WHERE email = \(email) AND hash NOT IN
                (SELECT hash FROM device_tokens WHERE email = \(email) ORDER BY created_at DESC LIMIT \(max(0, keeping - 1)))
            """, keepsSessionCache: true)
    }

    public func deviceTokenEmail(hash: [UInt8], issuedAfter: Date) async throws -> String? {
        try await rows("SELECT email FROM device_tokens WHERE hash = \(hash.bytea) AND created_at > \(issuedAfter)", keepsSessionCache: true).first?.value(
            "email")
    }

    public func rememberSecondFactor(hash: [UInt8], email: String, until: Date) async throws -> Bool {
        try await !rows(
            "UPDATE device_tokens SET second_factor_until = \(until) WHERE hash = \(hash.bytea) AND email = \(email) RETURNING hash",
            keepsSessionCache: true
        ).isEmpty
    }

    public func deviceSecondFactorUntil(hash: [UInt8], email: String, issuedAfter: Date) async throws -> Date? {
        try await rows(
            """
            SELECT second_factor_until FROM device_tokens WHERE hash = \(hash.bytea) AND email = \(email) AND created_at > \(issuedAfter)
            """, keepsSessionCache: true
        ).first?.value("second_factor_until")
    }

    public func deleteDeviceTokens(userID: UUID) async throws -> Int {
        try await rows(
            """
            WITH steps AS (DELETE FROM second_steps WHERE user_id = \(userID))
            DELETE FROM device_tokens WHERE email IN
                (SELECT email FROM identities WHERE user_id = \(userID) AND email IS NOT NULL AND email_verified) RETURNING hash
            """, keepsSessionCache: true
        ).count
    }

    public func markNotificationSeen(jti: String, expiresAt: Date) async throws -> Bool {
        try await !rows(
            "INSERT INTO seen_notifications (jti, expires_at) VALUES (\(jti), \(expiresAt)) ON CONFLICT (jti) DO NOTHING RETURNING jti", keepsSessionCache: true
        ).isEmpty
    }

    public func hit(_ key: String, window: Double, at now: Date) async throws -> Int {
        try await rows(HitRateLimit(key: key, now: now, cutoff: now.addingTimeInterval(-window)), keepsSessionCache: true).first?
            .value("count") ?? 1
    }

    public func count(_ key: String, window: Double, at now: Date) async throws -> Int {
        try await rows("SELECT count FROM rate_limits WHERE key = \(key) AND window_start > \(now.addingTimeInterval(-window))", keepsSessionCache: true).first?
            .value("count") ?? 0
    }

    public func release(_ key: String) async throws {
        try await rows("UPDATE rate_limits SET count = count - 1 WHERE key = \(key) AND count > 0", keepsSessionCache: true)
    }

    public func purgeStaleRecords(_ cutoffs: StaleCutoffs) async throws {
        try await rows(
            """
            WITH limits AS (DELETE FROM rate_limits WHERE window_start < \(cutoffs.counters)),
                codes AS (DELETE FROM email_codes WHERE expires_at < \(cutoffs.counters)),
                sends AS (DELETE FROM email_code_sends WHERE sent_at < \(cutoffs.counters)),
                handoffs AS (DELETE FROM web_handoffs WHERE expires_at <= \(cutoffs.now)),
                challenges AS (DELETE FROM passkey_challenges WHERE expires_at <= \(cutoffs.now)),
                steps AS (DELETE FROM second_steps WHERE expires_at <= \(cutoffs.now)),
                proofs AS (DELETE FROM dpop_proofs WHERE expires_at <= \(cutoffs.now)),
                keys AS (
                    DELETE FROM app_attest_keys
                    WHERE (last_used_at IS NULL AND created_at < \(cutoffs.unusedAppAttestKeys)) OR last_used_at < \(cutoffs.idleAppAttestKeys)
                ),
                enrolments AS (DELETE FROM totp_authenticators WHERE confirmed_at IS NULL AND created_at < \(cutoffs.counters)),
                devices AS (DELETE FROM device_tokens WHERE created_at <= \(cutoffs.deviceTokens)),
                audit AS (DELETE FROM audit_events WHERE at < \(cutoffs.audit ?? .distantPast))
            DELETE FROM seen_notifications WHERE expires_at < \(cutoffs.counters)
            """, keepsSessionCache: true)
    }

    public func storeHandoff(codeHash: [UInt8], userID: UUID, expiresAt: Date) async throws {
        try await rows("INSERT INTO web_handoffs (code_hash, user_id, expires_at) VALUES (\(codeHash.bytea), \(userID), \(expiresAt))", keepsSessionCache: true)
    }

    public func redeemHandoff(codeHash: [UInt8], at now: Date) async throws -> UUID? {
        guard
            let row = try await rows("DELETE FROM web_handoffs WHERE code_hash = \(codeHash.bytea) RETURNING user_id, expires_at", keepsSessionCache: true)
                .first,
            now < (try row.value("expires_at", as: Date.self))
        else { return nil }
        return try row.value("user_id")
    }

    public func handoffUser(codeHash: [UInt8], at now: Date) async throws -> UUID? {
        try await rows("SELECT user_id FROM web_handoffs WHERE code_hash = \(codeHash.bytea) AND expires_at > \(now)", keepsSessionCache: true).first?.value(
            "user_id")
    }

    public func record(_ event: AuditEvent) async throws {
        try await rows(RecordAuditEvent(event: event), keepsSessionCache: true)
    }

    public func auditEvents(_ filter: AuditFilter) async throws -> [AuditEvent] {
        try await rows(
            """
            SELECT at, event, user_id, method, ip, user_agent, detail, actor FROM audit_events
            WHERE (\(filter.userID)::uuid IS NULL OR user_id = \(filter.userID)) AND (cardinality(\(filter.events)::text[]) = 0 OR event = ANY(\(filter.events)))
                AND (\(filter.since)::timestamptz IS NULL OR at >= \(filter.since)) AND (\(filter.until)::timestamptz IS NULL OR at < \(filter.until))
            ORDER BY seq DESC LIMIT \(filter.limit)
            """, keepsSessionCache: true
        ).map { row in
            AuditEvent(
                at: try row.value("at"), event: try row.value("event"), userID: try row.value("user_id"), method: try row.value("method"),
                client: ClientInfo(ip: try row.value("ip"), userAgent: try row.value("user_agent")), detail: try row.value("detail"),
                actor: try row.value("actor", as: String?.self).flatMap(AuditActor.init(stored:)))
        }
    }

    /// Batched with concurrent posts (one statement and one synchronous commit for a burst); rows keep the
    /// order they were submitted in, and so their `seq` order.
    public func addChatt(_ chatt: Chatt) async throws {
        do {
            try await chattInserts.submit(chatt)
        } catch let error as PSQLError where error.sqlState == PSQLError.foreignKeyViolation && chatt.userID != nil {
            // The author's account was deleted while they posted: its foreign key is all that failed.
            throw StoreError.userGone
        }
    }

    package static func insertChatts(_ chatts: [Chatt], into client: PostgresClient, logger: Logger) async throws {
        // An account deletion racing the batch may deadlock with it (see `deleteUser`): the batch is tried again.
        try await retryingDeadlocks { try await rows(InsertChatts(chatts: chatts), on: client, logger: logger) }
    }

    public func forEachChatt(_ body: @escaping @Sendable (Chatt) -> Void) async throws {
        // Rows arrive in batches as PostgreSQL sends them; each is handed over and dropped.
        for try await row in try await client.query("SELECT id, user_id, name, message, created_at FROM chatts ORDER BY seq", logger: logger) {
            body(try Chatt(row: row.makeRandomAccess()))
        }
    }

    public func chatts(before: UUID?, limit: Int) async throws -> [Chatt] {
        try await rows(
            """
            SELECT id, user_id, name, message, created_at FROM chatts
            WHERE \(before)::uuid IS NULL OR seq < (SELECT seq FROM chatts WHERE id = \(before)) ORDER BY seq DESC LIMIT \(limit)
            """, keepsSessionCache: true
        ).map(Chatt.init(row:))
    }

    public func chattCount() async throws -> Int { try await count("chatts") }

    /// `timeline_version`'s one counter, raised by the statement that posts a batch of chatts or deletes
    /// an account's (migration 3): one row, far cheaper than the answers it guards.
    public func timelineStamp() async throws -> TimelineStamp {
        guard let row = try await rows(TimelineVersion(), keepsSessionCache: true).first else {
            throw StoreError.corruptRow("no timeline_version row")
        }
        return TimelineStamp([try row.value("n")])
    }
}

extension Chatt {
    package init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row.value("id"), name: try row.value("name"), message: try row.value("message"), time: try row.value("created_at"),
            userID: try row.value("user_id"))
    }
}
