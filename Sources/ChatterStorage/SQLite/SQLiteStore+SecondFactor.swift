import ChatterCore
import Foundation

// The second factor says nothing about a live session's token, so its writes keep the session cache.
extension SQLiteStore {
    public func totp(userID: UUID) async throws -> TOTPRecord? {
        guard
            let row = try await reader.query(
                """
                SELECT sealed_secret, confirmed_at, last_step, (SELECT count(*) FROM recovery_codes WHERE user_id = ?1) AS codes
                FROM totp_authenticators WHERE user_id = ?1
                """, [.uuid(userID)]
            ).first
        else { return nil }
        return TOTPRecord(
            sealedSecret: row.column("sealed_secret")?.blob ?? [],
            confirmedAt: row.column("confirmed_at")?.double.map(Date.init(timeIntervalSince1970:)),
            lastStep: Int64(row.column("last_step")?.integer ?? 0), recoveryCodesLeft: row.column("codes")?.integer ?? 0)
    }

    public func hasSecondFactor(userID: UUID) async throws -> Bool {
        try await !reader.query("SELECT 1 FROM totp_authenticators WHERE user_id = ? AND confirmed_at IS NOT NULL", [.uuid(userID)]).isEmpty
    }

    public func storePendingTOTP(userID: UUID, sealedSecret: [UInt8], at now: Date) async throws -> Bool {
        try await transaction(keepsSessionCache: true) { db in
            guard try await !db.query("SELECT 1 FROM users WHERE id = ?", [.uuid(userID)]).isEmpty else { throw StoreError.userGone }
            return try await !db.query(
                """
                INSERT INTO totp_authenticators (user_id, sealed_secret, confirmed_at, last_step, created_at) VALUES (?, ?, NULL, 0, ?)
                ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at
                WHERE totp_authenticators.confirmed_at IS NULL
                RETURNING user_id
                """, [.uuid(userID), .bytes(sealedSecret), .time(now)]
            ).isEmpty
        }
    }

    public func confirmTOTP(userID: UUID, sealedSecret: [UInt8], resealed: [UInt8], step: Int64, recoveryCodes: [[UInt8]], at now: Date) async throws
        -> Bool
    {
        try await durable {
            try await transaction(keepsSessionCache: true) { db in
                guard
                    try await !db.query(
                        """
                        UPDATE totp_authenticators SET confirmed_at = ?, last_step = ?, sealed_secret = ?,
                            guesses = max(guesses - 1, 0), day_guesses = max(day_guesses - 1, 0)
                        WHERE user_id = ? AND sealed_secret = ? AND confirmed_at IS NULL RETURNING user_id
                        """, [.time(now), .integer(Int(step)), .bytes(resealed), .uuid(userID), .bytes(sealedSecret)]
                    ).isEmpty
                else { return false }
                try await Self.replaceRecoveryCodes(db, userID: userID, hashes: recoveryCodes)
                return true
            }
        }
    }

    public func takeGuess(userID: UUID, confirmed: Bool, window: Double, at now: Date) async throws -> TOTPGuess? {
        // SET reads every column as it was before the statement, so each CASE sees the old window.
        guard
            let row = try await write(
                """
                UPDATE totp_authenticators SET
                    guesses = CASE WHEN guess_window_start > ?2 THEN guesses + 1 ELSE 1 END,
                    guess_window_start = CASE WHEN guess_window_start > ?2 THEN guess_window_start ELSE ?1 END,
                    day_guesses = CASE WHEN day_window_start > ?3 THEN day_guesses + 1 ELSE 1 END,
                    day_window_start = CASE WHEN day_window_start > ?3 THEN day_window_start ELSE ?1 END
                WHERE user_id = ?4 AND (confirmed_at IS NOT NULL) = ?5
                RETURNING sealed_secret, last_step, guesses, day_guesses
                """,
                [.time(now), .time(now.addingTimeInterval(-window)), .time(now.addingTimeInterval(-86_400)), .uuid(userID), .bool(confirmed)],
                keepsSessionCache: true
            ).first
        else { return nil }
        return TOTPGuess(
            sealedSecret: row.column("sealed_secret")?.blob ?? [], lastStep: Int64(row.column("last_step")?.integer ?? 0),
            guesses: row.column("guesses")?.integer ?? 0, dayGuesses: row.column("day_guesses")?.integer ?? 0)
    }

    public func useTOTPStep(userID: UUID, step: Int64) async throws -> Bool {
        try await !write(Self.useStepSQL, [.integer(Int(step)), .uuid(userID)], keepsSessionCache: true).isEmpty
    }

    /// Two statements, not a transaction: SQLite's `BEGIN` and `COMMIT` would cost as much as both, and each
    /// is decided on its own (the step used once; the waiting sign-in taken once).
    public func useTOTPStep(userID: UUID, step: Int64, completing hash: [UInt8], at now: Date) async throws -> (used: Bool, taken: PendingSecondStep?) {
        guard try await useTOTPStep(userID: userID, step: step) else { return (false, nil) }
        guard
            let row = try await write(
                "DELETE FROM second_steps WHERE hash = ? AND user_id = ? RETURNING *", [.bytes(hash), .uuid(userID)], keepsSessionCache: true
            ).first
        else { return (true, nil) }
        let taken = try Self.secondStep(row)
        return (true, now < taken.expiresAt ? taken : nil)
    }

    package static let useStepSQL = """
        UPDATE totp_authenticators SET last_step = ?1, guesses = max(guesses - 1, 0), day_guesses = max(day_guesses - 1, 0)
        WHERE user_id = ?2 AND confirmed_at IS NOT NULL AND last_step < ?1 RETURNING user_id
        """

    public func useRecoveryCode(userID: UUID, hash: [UInt8]) async throws -> Int? {
        try await durable {
            try await transaction(keepsSessionCache: true) { db in
                guard try await !db.query("DELETE FROM recovery_codes WHERE user_id = ? AND hash = ? RETURNING hash", [.uuid(userID), .bytes(hash)]).isEmpty
                else { return nil }
                _ = try await db.query(
                    "UPDATE totp_authenticators SET guesses = max(guesses - 1, 0), day_guesses = max(day_guesses - 1, 0) WHERE user_id = ?",
                    [.uuid(userID)])
                return try await db.query("SELECT count(*) AS n FROM recovery_codes WHERE user_id = ?", [.uuid(userID)]).first?.column("n")?.integer ?? 0
            }
        }
    }

    public func replaceRecoveryCodes(userID: UUID, hashes: [[UInt8]]) async throws -> Bool {
        try await durable {
            try await transaction(keepsSessionCache: true) { db in
                guard
                    try await !db.query("SELECT 1 FROM totp_authenticators WHERE user_id = ? AND confirmed_at IS NOT NULL", [.uuid(userID)]).isEmpty
                else { return false }
                try await Self.replaceRecoveryCodes(db, userID: userID, hashes: hashes)
                return true
            }
        }
    }

    package static func replaceRecoveryCodes(_ db: SQLiteConnection, userID: UUID, hashes: [[UInt8]]) async throws {
        _ = try await db.query("DELETE FROM recovery_codes WHERE user_id = ?", [.uuid(userID)])
        guard !hashes.isEmpty else { return }
        _ = try await db.query(
            "INSERT INTO recovery_codes (user_id, hash) VALUES \(Array(repeating: "(?, ?)", count: hashes.count).joined(separator: ", "))",
            hashes.flatMap { [.uuid(userID), .bytes($0)] })
    }

    public func deleteSecondFactor(userID: UUID) async throws -> Bool {
        try await durable {
            try await transaction(keepsSessionCache: true) { db in
                _ = try await db.query("DELETE FROM recovery_codes WHERE user_id = ?", [.uuid(userID)])
                _ = try await db.query("DELETE FROM second_steps WHERE user_id = ?", [.uuid(userID)])
                _ = try await db.query(
                    """
                    UPDATE device_tokens SET second_factor_until = NULL WHERE second_factor_until IS NOT NULL AND email IN
                        (SELECT email FROM identities WHERE user_id = ? AND email IS NOT NULL AND email_verified = 1)
                    """, [.uuid(userID)])
                return try await !db.query("DELETE FROM totp_authenticators WHERE user_id = ? RETURNING user_id", [.uuid(userID)]).isEmpty
            }
        }
    }

    public func storeSecondStep(_ step: PendingSecondStep) async throws {
        let kept = try await write(
            """
            INSERT INTO second_steps (hash, user_id, method, email, expires_at, new_password_hash) SELECT ?1, ?2, ?3, ?4, ?5, ?6
            WHERE EXISTS (SELECT 1 FROM users WHERE id = ?2 AND disabled_at IS NULL) RETURNING hash
            """,
            [
                .bytes(step.hash), .uuid(step.userID), .text(step.method), step.email.map(SQLiteData.text) ?? .null, .time(step.expiresAt),
                step.newPasswordHash.map(SQLiteData.text) ?? .null,
            ],
            keepsSessionCache: true)
        if kept.isEmpty { throw StoreError.accountDisabled }
    }

    public func secondStep(hash: [UInt8], at now: Date) async throws -> PendingSecondStep? {
        try await reader.query("SELECT * FROM second_steps WHERE hash = ? AND expires_at > ?", [.bytes(hash), .time(now)]).first.map(Self.secondStep)
    }

    public func takeSecondStep(hash: [UInt8], at now: Date) async throws -> PendingSecondStep? {
        guard let row = try await write("DELETE FROM second_steps WHERE hash = ? RETURNING *", [.bytes(hash)], keepsSessionCache: true).first else {
            return nil
        }
        let step = try Self.secondStep(row)
        return now < step.expiresAt ? step : nil
    }

    public func sessionTimes(sessionID: UUID) async throws -> SessionTimes? {
        guard let row = try await reader.query("SELECT created_at, second_factor_at FROM sessions WHERE id = ?", [.uuid(sessionID)]).first else {
            return nil
        }
        return SessionTimes(
            createdAt: try row.date("created_at"), secondFactorAt: row.column("second_factor_at")?.double.map(Date.init(timeIntervalSince1970:)))
    }

    public func recordStepUp(sessionID: UUID, userID: UUID, factor: String, at now: Date) async throws -> Bool {
        try await !write(
            "UPDATE sessions SET second_factor = ?, second_factor_at = ? WHERE id = ? AND user_id = ? RETURNING id",
            [.text(factor), .time(now), .uuid(sessionID), .uuid(userID)], keepsSessionCache: true
        ).isEmpty
    }

    package static func secondStep(_ row: SQLiteRow) throws -> PendingSecondStep {
        PendingSecondStep(
            hash: row.column("hash")?.blob ?? [], userID: try row.uuid("user_id"), method: try row.string("method"),
            email: row.column("email")?.string, expiresAt: try row.date("expires_at"), newPasswordHash: row.column("new_password_hash")?.string)
    }
}
