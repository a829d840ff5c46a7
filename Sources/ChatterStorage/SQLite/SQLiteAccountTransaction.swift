import ChatterCore
import ChatterWire
import Foundation

/// `AccountTransaction` on the writer connection, inside `SQLiteStore.transaction`.
package struct SQLiteAccountTransaction: AccountTransaction {
    package let db: SQLiteConnection

    package func linkedIdentity(_ key: IdentityKey) async throws -> LinkedIdentity? {
        try await SQLiteStore.linkedIdentity(db, key)
    }

    package func accounts(withVerifiedEmail email: String) async throws -> [UUID] {
        try await db.query(
            "SELECT user_id FROM identities WHERE email = ? AND email_verified = 1 ORDER BY created_at, issuer, subject", [.text(email)]
        ).map { try $0.uuid("user_id") }
    }

    package func issuers(of userID: UUID) async throws -> Set<String> {
        Set(try await db.query("SELECT issuer FROM identities WHERE user_id = ?", [.uuid(userID)]).map { try $0.string("issuer") })
    }

    package func insertUser(id: UUID, displayName: String, at now: Date) async throws {
        _ = try await db.query("INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)", [.uuid(id), .text(displayName), .time(now)])
    }

    package func insertIdentity(_ identity: Identity, userID: UUID, at now: Date) async throws {
        _ = try await db.query(
            "INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(identity.key.issuer), .text(identity.key.subject), .uuid(userID), identity.email.map(SQLiteData.text) ?? .null,
                .bool(identity.emailVerified), .time(now),
            ])
    }

    package func setDisplayName(_ name: String, userID: UUID) async throws {
        _ = try await db.query("UPDATE users SET display_name = ? WHERE id = ?", [.text(name), .uuid(userID)])
    }

    package func fillName(_ name: NameParts, userID: UUID) async throws {
        guard !name.isEmpty else { return }
        let parts: [(String, String?)] = [
            ("given_name", name.givenName), ("family_name", name.familyName), ("middle_name", name.middleName),
            ("nickname", name.nickname), ("name_prefix", name.namePrefix), ("name_suffix", name.nameSuffix),
        ]
        let assignments = parts.map { "\($0.0) = COALESCE(NULLIF(?, ''), \($0.0))" }.joined(separator: ", ")
        _ = try await db.query(
            "UPDATE users SET \(assignments) WHERE id = ?", parts.map { $0.1.map(SQLiteData.text) ?? .null } + [.uuid(userID)])
    }

    package func setEmail(_ email: String, verified: Bool, of key: IdentityKey) async throws {
        _ = try await db.query(
            "UPDATE identities SET email = ?, email_verified = ? WHERE issuer = ? AND subject = ?",
            [.text(email), .bool(verified), .text(key.issuer), .text(key.subject)])
    }
}
