import ChatterCore
import Foundation

// Apple's tokens say nothing about a live session, so their writes keep the session cache.
extension SQLiteStore {
    public func keepAppleToken(_ record: AppleTokenRecord) async throws -> Bool {
        guard let userID = record.userID else { return false }
        // The account's id is read in the insert: an account deleted meanwhile leaves the token waiting to be revoked.
        let rows = try await write(
            """
            INSERT INTO apple_tokens (subject, client_id, user_id, sealed_token, kept_at)
            VALUES (?1, ?2, (SELECT id FROM users WHERE id = ?3), ?4, ?5)
            ON CONFLICT (subject, client_id) WHERE user_id IS NOT NULL
            DO UPDATE SET user_id = excluded.user_id, sealed_token = excluded.sealed_token, kept_at = excluded.kept_at
            RETURNING user_id
            """, [.text(record.subject), .text(record.clientID), .uuid(userID), .bytes(record.sealedToken), .time(record.keptAt)],
            keepsSessionCache: true)
        // The test is made here, not in RETURNING: SQLite 3.40's `RETURNING user_id IS NOT NULL` answers 1
        // for a NULL user_id inserted by this statement.
        return rows.first?.column("user_id").map { $0 != .null } ?? false
    }

    public func appleTokenKeptAt(subject: String, clientID: String) async throws -> Date? {
        try await reader.query(
            "SELECT kept_at FROM apple_tokens WHERE subject = ? AND client_id = ? AND user_id IS NOT NULL", [.text(subject), .text(clientID)]
        ).first?.column("kept_at")?.double.map(Date.init(timeIntervalSince1970:))
    }

    public func appleTokensToRevoke(limit: Int) async throws -> [AppleTokenRecord] {
        try await reader.query(
            "SELECT subject, client_id, sealed_token, kept_at FROM apple_tokens WHERE user_id IS NULL ORDER BY kept_at LIMIT ?", [.integer(limit)]
        ).map { row in
            AppleTokenRecord(
                subject: row.column("subject")?.string ?? "", clientID: row.column("client_id")?.string ?? "", userID: nil,
                sealedToken: row.column("sealed_token")?.blob ?? [],
                keptAt: Date(timeIntervalSince1970: row.column("kept_at")?.double ?? 0))
        }
    }

    public func releaseAppleTokens(subject: String) async throws -> Int {
        try await write(
            "UPDATE apple_tokens SET user_id = NULL WHERE subject = ? AND user_id IS NOT NULL RETURNING subject", [.text(subject)],
            keepsSessionCache: true
        ).count
    }

    public func postponeAppleToken(_ record: AppleTokenRecord, to date: Date) async throws {
        _ = try await write(
            "UPDATE apple_tokens SET kept_at = ? WHERE subject = ? AND client_id = ? AND sealed_token = ? AND user_id IS NULL",
            [.time(date), .text(record.subject), .text(record.clientID), .bytes(record.sealedToken)], keepsSessionCache: true)
    }

    public func forgetAppleToken(_ record: AppleTokenRecord) async throws {
        _ = try await write(
            "DELETE FROM apple_tokens WHERE subject = ? AND client_id = ? AND sealed_token = ? AND user_id IS NULL",
            [.text(record.subject), .text(record.clientID), .bytes(record.sealedToken)], keepsSessionCache: true)
    }
}
