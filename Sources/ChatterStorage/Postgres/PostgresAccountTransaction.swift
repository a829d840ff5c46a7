import ChatterCore
import ChatterWire
import Foundation
import PostgresNIO

/// `AccountTransaction` on one connection, inside `PostgresStore.transaction`.
package struct PostgresAccountTransaction: AccountTransaction {
    package let db: PostgresConnection
    package let logger: Logger

    package func linkedIdentity(_ key: IdentityKey) async throws -> LinkedIdentity? {
        try await db.rows(PostgresStore.linkedIdentity(key), logger: logger).first.map(LinkedIdentity.init(row:))
    }

    package func accounts(withVerifiedEmail email: String) async throws -> [UUID] {
        try await db.rows(
            "SELECT user_id FROM identities WHERE email = \(email) AND email_verified ORDER BY created_at, issuer, subject", logger: logger
        ).map { try $0.value("user_id") }
    }

    package func issuers(of userID: UUID) async throws -> Set<String> {
        Set(try await db.rows("SELECT issuer FROM identities WHERE user_id = \(userID)", logger: logger).map { try $0.value("issuer") })
    }

    package func insertUser(id: UUID, displayName: String, at now: Date) async throws {
        try await db.query("INSERT INTO users (id, display_name, created_at) VALUES (\(id), \(displayName), \(now))", logger: logger)
    }

    package func insertIdentity(_ identity: Identity, userID: UUID, at now: Date) async throws {
        try await db.query(
            """
            INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at)
            VALUES (\(identity.key.issuer), \(identity.key.subject), \(userID), \(identity.email), \(identity.emailVerified), \(now))
            """, logger: logger)
    }

    package func setDisplayName(_ name: String, userID: UUID) async throws {
        try await db.query("UPDATE users SET display_name = \(name) WHERE id = \(userID)", logger: logger)
    }

    package func fillName(_ name: NameParts, userID: UUID) async throws {
        guard !name.isEmpty else { return }
        try await db.query(
            """
            UPDATE users SET given_name = COALESCE(NULLIF(\(name.givenName), ''), given_name),
                family_name = COALESCE(NULLIF(\(name.familyName), ''), family_name),
                middle_name = COALESCE(NULLIF(\(name.middleName), ''), middle_name),
                nickname = COALESCE(NULLIF(\(name.nickname), ''), nickname),
                name_prefix = COALESCE(NULLIF(\(name.namePrefix), ''), name_prefix),
                name_suffix = COALESCE(NULLIF(\(name.nameSuffix), ''), name_suffix)
            WHERE id = \(userID)
            """, logger: logger)
    }

    package func setEmail(_ email: String, verified: Bool, of key: IdentityKey) async throws {
        try await db.query(
            "UPDATE identities SET email = \(email), email_verified = \(verified) WHERE issuer = \(key.issuer) AND subject = \(key.subject)",
            logger: logger)
    }
}
