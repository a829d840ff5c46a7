import Foundation
import PostgresNIO

// Apple's tokens say nothing about a live session, so their writes keep the session cache.
extension PostgresStore {
    public func keepAppleToken(_ record: AppleTokenRecord) async throws -> Bool {
        guard let userID = record.userID else { return false }
        // FOR KEY SHARE: the account cannot be deleted between this read and the insert that refers to it.
        return try await !rows(
            """
            INSERT INTO apple_tokens (subject, client_id, user_id, sealed_token, kept_at)
            SELECT \(record.subject), \(record.clientID), id, \(record.sealedToken.bytea), \(record.keptAt)
            FROM (SELECT id FROM users WHERE id = \(userID) FOR KEY SHARE) AS account
            ON CONFLICT (subject, client_id) WHERE user_id IS NOT NULL
            DO UPDATE SET user_id = excluded.user_id, sealed_token = excluded.sealed_token, kept_at = excluded.kept_at
            RETURNING subject
            """, keepsSessionCache: true
        ).isEmpty
    }

    public func hasAppleToken(subject: String, clientID: String) async throws -> Bool {
        try await !rows(
            "SELECT 1 FROM apple_tokens WHERE subject = \(subject) AND client_id = \(clientID) AND user_id IS NOT NULL", keepsSessionCache: true
        ).isEmpty
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

    public func forgetAppleToken(_ record: AppleTokenRecord) async throws {
        _ = try await rows(
            """
            DELETE FROM apple_tokens
            WHERE subject = \(record.subject) AND client_id = \(record.clientID) AND sealed_token = \(record.sealedToken.bytea) AND user_id IS NULL
            """, keepsSessionCache: true)
    }
}
