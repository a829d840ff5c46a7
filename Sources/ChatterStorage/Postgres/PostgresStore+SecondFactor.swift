import ChatterCore
import Foundation
import PostgresNIO

// The second factor says nothing about a live session's token, so its writes keep the session cache. Each
// use of a code is one statement: a concurrent one waits for the row and re-checks its condition.
extension PostgresStore {
    public func totp(userID: UUID) async throws -> TOTPRecord? {
        guard
            let row = try await rows(
                """
                SELECT sealed_secret, confirmed_at, last_step, (SELECT count(*) FROM recovery_codes WHERE user_id = \(userID)) AS codes
                FROM totp_authenticators WHERE user_id = \(userID)
                """, keepsSessionCache: true
            ).first
        else { return nil }
        return TOTPRecord(
            sealedSecret: try row.bytes("sealed_secret"), confirmedAt: try row.value("confirmed_at"), lastStep: try row.value("last_step"),
            recoveryCodesLeft: Int(try row.value("codes", as: Int64.self)))
    }

    public func hasSecondFactor(userID: UUID) async throws -> Bool {
        try await !rows(HasSecondFactor(userID: userID), keepsSessionCache: true).isEmpty
    }

    public func storePendingTOTP(userID: UUID, sealedSecret: [UInt8], at now: Date) async throws -> Bool {
        let rows = try await rows(
            """
            WITH account AS (SELECT id FROM users WHERE id = \(userID) FOR KEY SHARE),
                stored AS (
                    INSERT INTO totp_authenticators (user_id, sealed_secret, confirmed_at, last_step, created_at)
                    SELECT id, \(sealedSecret.bytea), NULL, 0, \(now) FROM account
                    ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at
                    WHERE totp_authenticators.confirmed_at IS NULL
                    RETURNING user_id
                )
            SELECT (SELECT count(*) FROM account) AS accounts, (SELECT count(*) FROM stored) AS stored
            """, keepsSessionCache: true)
        guard let row = rows.first, try row.value("accounts", as: Int64.self) == 1 else { throw StoreError.userGone }
        return try row.value("stored", as: Int64.self) == 1
    }

    public func confirmTOTP(userID: UUID, sealedSecret: [UInt8], resealed: [UInt8], step: Int64, recoveryCodes: [[UInt8]], at now: Date) async throws
        -> Bool
    {
        try await transaction(keepsSessionCache: true) { [logger] db in
            let confirmed = try await db.query(
                """
                UPDATE totp_authenticators SET confirmed_at = \(now), last_step = \(step), sealed_secret = \(resealed.bytea),
                    guesses = GREATEST(guesses - 1, 0), day_guesses = GREATEST(day_guesses - 1, 0)
                WHERE user_id = \(userID) AND sealed_secret = \(sealedSecret.bytea) AND confirmed_at IS NULL RETURNING user_id
                """, logger: logger
            ).collect()
            guard !confirmed.isEmpty else { return false }
            try await Self.replaceRecoveryCodes(db, userID: userID, hashes: recoveryCodes, logger: logger)
            return true
        }
    }

    public func takeGuess(userID: UUID, confirmed: Bool, window: Double, at now: Date) async throws -> TOTPGuess? {
        // A concurrent guess waits for the row and re-reads it, so each counts on the one before.
        let windowStart = now.addingTimeInterval(-window)
        let dayStart = now.addingTimeInterval(-86_400)
        guard
            let row = try await rows(
                TakeTOTPGuess(windowStart: windowStart, dayStart: dayStart, now: now, userID: userID, confirmed: confirmed), keepsSessionCache: true
            ).first
        else { return nil }
        return TOTPGuess(
            sealedSecret: try row.bytes("sealed_secret"), lastStep: try row.value("last_step"), guesses: Int(try row.value("guesses", as: Int32.self)),
            dayGuesses: Int(try row.value("day_guesses", as: Int32.self)))
    }

    public func useTOTPStep(userID: UUID, step: Int64) async throws -> Bool {
        try await !rows(
            """
            UPDATE totp_authenticators SET last_step = \(step), guesses = GREATEST(guesses - 1, 0), day_guesses = GREATEST(day_guesses - 1, 0)
            WHERE user_id = \(userID) AND confirmed_at IS NOT NULL AND last_step < \(step) RETURNING user_id
            """, keepsSessionCache: true
        ).isEmpty
    }

    public func useTOTPStep(userID: UUID, step: Int64, completing hash: [UInt8], at now: Date) async throws -> (used: Bool, taken: PendingSecondStep?) {
        let rows = try await rows(UseTOTPStepCompleting(step: step, userID: userID, hash: hash), keepsSessionCache: true)
        guard let row = rows.first, try row.value("used", as: Int64.self) == 1 else { return (false, nil) }
        guard try row.optionalBytes("hash") != nil else { return (true, nil) }
        let taken = try Self.secondStep(row)
        return (true, now < taken.expiresAt ? taken : nil)
    }

    public func useRecoveryCode(userID: UUID, hash: [UInt8]) async throws -> Int? {
        // The outer counts see the snapshot from before the delete, so the code used is subtracted.
        guard
            let row = try await rows(
                """
                WITH used AS (DELETE FROM recovery_codes WHERE user_id = \(userID) AND hash = \(hash.bytea) RETURNING hash),
                    released AS (
                        UPDATE totp_authenticators SET guesses = GREATEST(guesses - 1, 0), day_guesses = GREATEST(day_guesses - 1, 0)
                        WHERE user_id = \(userID) AND EXISTS (SELECT 1 FROM used)
                    )
                SELECT (SELECT count(*) FROM used) AS used, (SELECT count(*) FROM recovery_codes WHERE user_id = \(userID)) AS codes
                """, keepsSessionCache: true
            ).first, try row.value("used", as: Int64.self) == 1
        else { return nil }
        return Int(try row.value("codes", as: Int64.self)) - 1
    }

    public func replaceRecoveryCodes(userID: UUID, hashes: [[UInt8]]) async throws -> Bool {
        try await transaction(keepsSessionCache: true) { [logger] db in
            // Locks the authenticator, so two regenerations at once leave one set, not both.
            let confirmed = try await db.query(
                "SELECT 1 FROM totp_authenticators WHERE user_id = \(userID) AND confirmed_at IS NOT NULL FOR UPDATE", logger: logger
            ).collect()
            guard !confirmed.isEmpty else { return false }
            try await Self.replaceRecoveryCodes(db, userID: userID, hashes: hashes, logger: logger)
            return true
        }
    }

    package static func replaceRecoveryCodes(_ db: PostgresConnection, userID: UUID, hashes: [[UInt8]], logger: Logger) async throws {
        try await db.query("DELETE FROM recovery_codes WHERE user_id = \(userID)", logger: logger)
        try await db.query(
            "INSERT INTO recovery_codes (user_id, hash) SELECT \(userID), unnest(\(hashes.map(\.bytea))::bytea[])", logger: logger)
    }

    public func deleteSecondFactor(userID: UUID) async throws -> Bool {
        try await !rows(
            """
            WITH codes AS (DELETE FROM recovery_codes WHERE user_id = \(userID)),
                steps AS (DELETE FROM second_steps WHERE user_id = \(userID)),
                devices AS (
                    UPDATE device_tokens SET second_factor_until = NULL WHERE second_factor_until IS NOT NULL AND email IN
                        (SELECT email FROM identities WHERE user_id = \(userID) AND email IS NOT NULL AND email_verified)
                )
            DELETE FROM totp_authenticators WHERE user_id = \(userID) RETURNING user_id
            """, keepsSessionCache: true
        ).isEmpty
    }

    public func storeSecondStep(_ step: PendingSecondStep) async throws {
        let kept = try await rows(
            """
            INSERT INTO second_steps (hash, user_id, method, email, expires_at, new_password_hash)
            SELECT \(step.hash.bytea), \(step.userID), \(step.method), \(step.email), \(step.expiresAt), \(step.newPasswordHash)
            WHERE EXISTS (SELECT 1 FROM users WHERE id = \(step.userID) AND disabled_at IS NULL) RETURNING hash
            """, keepsSessionCache: true)
        if kept.isEmpty { throw StoreError.accountDisabled }
    }

    public func secondStep(hash: [UInt8], at now: Date) async throws -> PendingSecondStep? {
        try await rows(WaitingSecondStep(hash: hash, now: now), keepsSessionCache: true).first.map(Self.secondStep)
    }

    public func takeSecondStep(hash: [UInt8], at now: Date) async throws -> PendingSecondStep? {
        guard let row = try await rows("DELETE FROM second_steps WHERE hash = \(hash.bytea) RETURNING *", keepsSessionCache: true).first else {
            return nil
        }
        let step = try Self.secondStep(row)
        return now < step.expiresAt ? step : nil
    }

    public func sessionTimes(sessionID: UUID) async throws -> SessionTimes? {
        guard let row = try await rows("SELECT created_at, second_factor_at FROM sessions WHERE id = \(sessionID)", keepsSessionCache: true).first else {
            return nil
        }
        return SessionTimes(createdAt: try row.value("created_at"), secondFactorAt: try row.value("second_factor_at"))
    }

    public func recordStepUp(sessionID: UUID, userID: UUID, factor: String, at now: Date) async throws -> Bool {
        try await !rows(
            "UPDATE sessions SET second_factor = \(factor), second_factor_at = \(now) WHERE id = \(sessionID) AND user_id = \(userID) RETURNING id",
            keepsSessionCache: true
        ).isEmpty
    }

    /// The columns `secondStep(_:)` reads, named in every statement that answers a waiting step.
    package static let secondStepColumns = "hash, user_id, method, email, expires_at, new_password_hash"

    package static func secondStep(_ row: PostgresRandomAccessRow) throws -> PendingSecondStep {
        PendingSecondStep(
            hash: try row.bytes("hash"), userID: try row.value("user_id"), method: try row.value("method"), email: try row.value("email"),
            expiresAt: try row.value("expires_at"), newPasswordHash: try row.value("new_password_hash"))
    }
}
