import ChatterWire
import Foundation
import SQLiteNIO

extension SQLiteStore {
    static let userColumns = "u.id, u.display_name, u.given_name, u.family_name, u.middle_name, u.nickname, u.name_prefix, u.name_suffix"

    public func signIn(_ claims: IdentityClaims, fallbackName: String, at now: Date) async throws -> User {
        // Most sign-ins are returning users whose details have not changed: answer them with one read.
        if let row = try await reader.query(
            "SELECT \(Self.userColumns), i.email, i.email_verified FROM identities i JOIN users u ON u.id = i.user_id WHERE i.issuer = ? AND i.subject = ?",
            [.text(claims.key.issuer), .text(claims.key.subject)]
        ).first {
            let user = try User(row: row)
            let change = SignInChange(
                claims: claims, user: user, email: row.column("email")?.string, emailVerified: row.column("email_verified")?.bool ?? false)
            if change.isNone { return user }
        }
        return try await transaction { db in
            if let existing = try await Self.user(db, key: claims.key) {
                if let name = claims.displayName, name != existing.displayName {
                    _ = try await db.query("UPDATE users SET display_name = ? WHERE id = ?", [.text(name), .uuid(existing.id)])
                }
                try await Self.fillName(db, claims.name, userID: existing.id)
                if let email = claims.email {
                    _ = try await db.query(
                        "UPDATE identities SET email = ?, email_verified = ? WHERE issuer = ? AND subject = ?",
                        [.text(email), .bool(claims.emailVerified), .text(claims.key.issuer), .text(claims.key.subject)])
                }
                return try await Self.user(db, key: claims.key) ?? existing
            }
            // Link to an existing account only when both sides' emails are verified, and never to another
            // subject of the same issuer: that is another person (an address can be reassigned). Several
            // candidates: the oldest identity's account, so the answer never depends on row order.
            var userID: UUID?
            if claims.emailVerified, let email = claims.email {
                userID = try await db.query(
                    """
                    SELECT user_id FROM identities WHERE email = ? AND email_verified = 1
                        AND user_id NOT IN (SELECT user_id FROM identities WHERE issuer = ?)
                    ORDER BY created_at, issuer, subject LIMIT 1
                    """, [.text(email), .text(claims.key.issuer)]
                ).first.map { try $0.uuid("user_id") }
            }
            if userID == nil {
                let id = UUID()
                _ = try await db.query(
                    "INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)",
                    [.uuid(id), .text(claims.displayName ?? fallbackName), .time(now)])
                userID = id
            }
            try await Self.fillName(db, claims.name, userID: userID!)
            _ = try await db.query(
                "INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(claims.key.issuer), .text(claims.key.subject), .uuid(userID!), claims.email.map(SQLiteData.text) ?? .null,
                 .bool(claims.emailVerified), .time(now)])
            guard let user = try await Self.user(db, key: claims.key) else { throw StoreError.corruptRow("identity without user") }
            return user
        }
    }

    /// Stores name parts the provider sent; an absent or empty part never erases a stored one.
    static func fillName(_ db: SQLiteConnection, _ name: NameParts?, userID: UUID) async throws {
        guard let name, !name.isEmpty else { return }
        let parts: [(String, String?)] = [
            ("given_name", name.givenName), ("family_name", name.familyName), ("middle_name", name.middleName),
            ("nickname", name.nickname), ("name_prefix", name.namePrefix), ("name_suffix", name.nameSuffix),
        ]
        let assignments = parts.map { "\($0.0) = COALESCE(NULLIF(?, ''), \($0.0))" }.joined(separator: ", ")
        _ = try await db.query(
            "UPDATE users SET \(assignments) WHERE id = ?", parts.map { $0.1.map(SQLiteData.text) ?? .null } + [.uuid(userID)])
    }

    static func user(_ db: SQLiteConnection, key: IdentityKey) async throws -> User? {
        try await db.query(
            "SELECT \(userColumns) FROM identities i JOIN users u ON u.id = i.user_id WHERE i.issuer = ? AND i.subject = ?",
            [.text(key.issuer), .text(key.subject)]
        ).first.map(User.init(row:))
    }

    public func user(for key: IdentityKey) async throws -> User? {
        try await Self.user(reader, key: key)
    }

    public func user(id: UUID) async throws -> User? {
        try await reader.query("SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", [.uuid(id)]).first.map(User.init(row:))
    }

    public func identities(of userID: UUID) async throws -> [Identity] {
        try await reader.query(
            "SELECT issuer, subject, email, email_verified FROM identities WHERE user_id = ? ORDER BY created_at", [.uuid(userID)]
        ).map { row in
            Identity(
                key: IdentityKey(issuer: try row.string("issuer"), subject: try row.string("subject")),
                email: row.column("email")?.string, emailVerified: row.column("email_verified")?.bool ?? false)
        }
    }

    public func deleteIdentity(_ key: IdentityKey) async throws -> UUID? {
        try await durable { try await deleteIdentityInTransaction(key) }
    }

    private func deleteIdentityInTransaction(_ key: IdentityKey) async throws -> UUID? {
        try await transaction { db in
            guard let user = try await Self.user(db, key: key) else { return nil }
            _ = try await db.query("DELETE FROM identities WHERE issuer = ? AND subject = ?", [.text(key.issuer), .text(key.subject)])
            let left = try await db.query("SELECT count(*) AS n FROM identities WHERE user_id = ?", [.uuid(user.id)]).first?.column("n")?.integer ?? 0
            if left == 0 { try await Self.deleteUser(db, id: user.id) }
            return user.id
        }
    }

    public func setEmailForwarding(_ key: IdentityKey, enabled: Bool) async throws {
        _ = try await write(
            "UPDATE identities SET email_forwarding = ? WHERE issuer = ? AND subject = ?",
            [.bool(enabled), .text(key.issuer), .text(key.subject)])
    }

    public func deleteUser(id: UUID) async throws {
        try await durable { try await transaction { db in try await Self.deleteUser(db, id: id) } }
    }

    /// Account deletion policy: the user's chatts go with them, as do codes sent to their addresses.
    static func deleteUser(_ db: SQLiteConnection, id: UUID) async throws {
        _ = try await db.query(
            "DELETE FROM email_codes WHERE email IN (SELECT email FROM identities WHERE user_id = ? AND email IS NOT NULL)", [.uuid(id)])
        _ = try await db.query(
            "DELETE FROM device_tokens WHERE email IN (SELECT email FROM identities WHERE user_id = ? AND email IS NOT NULL)", [.uuid(id)])
        _ = try await db.query("DELETE FROM chatts WHERE user_id = ?", [.uuid(id)])
        _ = try await db.query("DELETE FROM users WHERE id = ?", [.uuid(id)])
    }

    public func userCount() async throws -> Int { try await count("users") }

    public func passwordHash(userID: UUID) async throws -> String? {
        try await reader.query("SELECT hash FROM passwords WHERE user_id = ?", [.uuid(userID)]).first?.column("hash")?.string
    }

    public func setPasswordHash(_ hash: String, userID: UUID, at now: Date) async throws {
        _ = try await durable { try await write(
            "INSERT INTO passwords (user_id, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at",
            [.uuid(userID), .text(hash), .time(now)], keepsSessionCache: true) }
    }
}

extension User {
    init(row: SQLiteRow) throws {
        let parts = NameParts(
            givenName: row.column("given_name")?.string, familyName: row.column("family_name")?.string,
            middleName: row.column("middle_name")?.string, nickname: row.column("nickname")?.string,
            namePrefix: row.column("name_prefix")?.string, nameSuffix: row.column("name_suffix")?.string)
        self.init(id: try row.uuid("id"), displayName: try row.string("display_name"), name: parts.isEmpty ? nil : parts)
    }
}
