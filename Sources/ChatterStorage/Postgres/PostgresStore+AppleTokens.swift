import ChatterCore
import Foundation
import PostgresNIO

// Apple's tokens say nothing about a live session, so their writes keep the session cache.
extension PostgresStore {
    public func keepAppleToken(_ record: AppleTokenRecord) async throws -> Bool {
        guard let userID = record.userID else { return false }
        // FOR KEY SHARE: a deletion racing the insert either waits for it (and then leaves the token waiting to be
        // revoked, through ON DELETE SET NULL) or went first, and the token is kept without an account.
        let rows = try await rows(
            """
            INSERT INTO apple_tokens (subject, client_id, user_id, sealed_token, kept_at)
            VALUES (\(record.subject), \(record.clientID), (SELECT id FROM users WHERE id = \(userID) FOR KEY SHARE),
                \(record.sealedToken.bytea), \(record.keptAt))
            ON CONFLICT (subject, client_id) WHERE user_id IS NOT NULL
            DO UPDATE SET user_id = excluded.user_id, sealed_token = excluded.sealed_token, kept_at = excluded.kept_at
            RETURNING user_id IS NOT NULL AS live
            """, keepsSessionCache: true)
        return try rows.first?.value("live", as: Bool.self) ?? false
    }

    public func appleTokenKeptAt(subject: String, clientID: String) async throws -> Date? {
        try await rows(
            "SELECT kept_at FROM apple_tokens WHERE subject = \(subject) AND client_id = \(clientID) AND user_id IS NOT NULL",
            keepsSessionCache: true
        ).first?.value("kept_at", as: Date.self)
    }

    public func appleTokensToRevoke(limit: Int) async throws -> [AppleTokenRecord] {
        try await rows(
            "SELECT subject, client_id, sealed_token, kept_at FROM apple_tokens WHERE user_id IS NULL ORDER BY kept_at LIMIT \(limit)",
            keepsSessionCache: true
        ).map { row in
            AppleTokenRecord(
                subject: try row.value("subject"), clientID: try row.value("client_id"), userID: nil, sealedToken: try row.bytes("sealed_token"),
                keptAt: try row.value("kept_at"))
        }
    }

    public func releaseAppleTokens(subject: String) async throws -> Int {
        try await rows(
            "UPDATE apple_tokens SET user_id = NULL WHERE subject = \(subject) AND user_id IS NOT NULL RETURNING subject", keepsSessionCache: true
        ).count
    }

    public func postponeAppleToken(_ record: AppleTokenRecord, to date: Date) async throws {
        _ = try await rows(
            """
            UPDATE apple_tokens SET kept_at = \(date)
            WHERE subject = \(record.subject) AND client_id = \(record.clientID) AND sealed_token = \(record.sealedToken.bytea) AND user_id IS NULL
            """, keepsSessionCache: true)
    }

    public func forgetAppleToken(_ record: AppleTokenRecord) async throws {
        _ = try await rows(
            """
            DELETE FROM apple_tokens
            WHERE subject = \(record.subject) AND client_id = \(record.clientID) AND sealed_token = \(record.sealedToken.bytea) AND user_id IS NULL
            """, keepsSessionCache: true)
    }
}
