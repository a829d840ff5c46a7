import ChatterCore
import ChatterWire
import Foundation

extension SQLiteStore {
    package static let userColumns = "u.id, u.display_name, u.given_name, u.family_name, u.middle_name, u.nickname, u.name_prefix, u.name_suffix"

    package static func linkedIdentity(_ db: SQLiteConnection, _ key: IdentityKey) async throws -> LinkedIdentity? {
        try await db.query(
            """
            SELECT \(userColumns), i.issuer, i.subject, i.email, i.email_verified FROM identities i JOIN users u ON u.id = i.user_id
            WHERE i.issuer = ? AND i.subject = ?
            """, [.text(key.issuer), .text(key.subject)]
        ).first.map { row in
            LinkedIdentity(user: try User(row: row), identity: try Identity(row: row))
        }
    }

    public func linkedIdentity(_ key: IdentityKey) async throws -> LinkedIdentity? {
        try await Self.linkedIdentity(reader, key)
    }

    public func accountTransaction<T: Sendable>(_ body: @Sendable (any AccountTransaction) async throws -> T) async throws -> T {
        try await transaction { db in try await body(SQLiteAccountTransaction(db: db)) }
    }

    package static func user(_ db: SQLiteConnection, id: UUID) async throws -> User? {
        try await db.query("SELECT \(userColumns) FROM users u WHERE u.id = ?", [.uuid(id)]).first.map(User.init(row:))
    }

    public func user(id: UUID) async throws -> User? {
        try await Self.user(reader, id: id)
    }

    public func accountSummary(userID: UUID) async throws -> AccountSummary {
        try await Self.accounts(reader, userIDs: [userID])[userID]?.account ?? AccountSummary(identities: [], hasPassword: false)
    }

    /// The users of `userIDs` that exist, each with its account, in one read.
    package static func accounts(_ db: SQLiteConnection, userIDs: [UUID]) async throws -> [UUID: (user: User, account: AccountSummary)] {
        let ids = Array(Set(userIDs))
        let rows = try await db.query(
            """
            SELECT u.id, u.display_name, u.given_name, u.family_name, u.middle_name, u.nickname, u.name_prefix, u.name_suffix,
                EXISTS (SELECT 1 FROM passwords p WHERE p.user_id = u.id) AS has_password,
                EXISTS (SELECT 1 FROM passkeys k WHERE k.user_id = u.id) AS has_passkey, i.issuer, i.subject, i.email, i.email_verified
            FROM users u LEFT JOIN identities i ON i.user_id = u.id
            WHERE u.id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", "))) ORDER BY i.created_at
            """, ids.map(SQLiteData.uuid))
        var accounts: [UUID: (user: User, account: AccountSummary)] = [:]
        for row in rows {
            let id = try row.uuid("id")
            var entry =
                try accounts[id] ?? (
                    User(row: row),
                    AccountSummary(
                        identities: [], hasPassword: row.column("has_password")?.bool == true, hasPasskey: row.column("has_passkey")?.bool == true)
                )
            if row.column("issuer")?.string != nil { entry.account.identities.append(try Identity(row: row)) }
            accounts[id] = entry
        }
        return accounts
    }

    public func deleteIdentity(_ key: IdentityKey) async throws -> UUID? {
        let user = try await durable { try await deleteIdentityInTransaction(key) }
        if user != nil { chattDeletions.add(1, ordering: .releasing) }  // its last identity takes the account and its chatts
        return user
    }

    private func deleteIdentityInTransaction(_ key: IdentityKey) async throws -> UUID? {
        try await transaction { db in
            guard let user = try await Self.linkedIdentity(db, key)?.user else { return nil }
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
        chattDeletions.add(1, ordering: .releasing)
    }

    /// Account deletion policy: the user's chatts go with them, as do codes sent to the addresses it
    /// verified and the devices that proved them. An address an identity only claimed (a provider's
    /// `email_verified: false`) may be someone else's, whose codes and devices are theirs.
    package static func deleteUser(_ db: SQLiteConnection, id: UUID) async throws {
        _ = try await db.query(
            "DELETE FROM email_codes WHERE email IN (SELECT email FROM identities WHERE user_id = ? AND email IS NOT NULL AND email_verified = 1)", [.uuid(id)])
        _ = try await db.query(
            "DELETE FROM device_tokens WHERE email IN (SELECT email FROM identities WHERE user_id = ? AND email IS NOT NULL AND email_verified = 1)",
            [.uuid(id)])
        let counters = RateLimitKeys.naming(id)
        _ = try await db.query(
            "DELETE FROM rate_limits WHERE key IN (\(Array(repeating: "?", count: counters.count).joined(separator: ", ")))", counters.map { .text($0) })
        _ = try await db.query("DELETE FROM chatts WHERE user_id = ?", [.uuid(id)])
        _ = try await db.query("DELETE FROM users WHERE id = ?", [.uuid(id)])
    }

    public func userCount() async throws -> Int { try await count("users") }

    public func passwordHash(userID: UUID) async throws -> String? {
        try await reader.query("SELECT hash FROM passwords WHERE user_id = ?", [.uuid(userID)]).first?.column("hash")?.string
    }

    public func setPasswordHash(_ hash: String, userID: UUID, at now: Date) async throws {
        _ = try await durable {
            try await write(
                "INSERT INTO passwords (user_id, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at",
                [.uuid(userID), .text(hash), .time(now)], keepsSessionCache: true)
        }
    }

    public func changeEmailIdentity(userID: UUID, to address: String, at now: Date) async throws -> EmailIdentityChange {
        do {
            return try await transaction { db in
                let owner = try await db.query(
                    "SELECT user_id FROM identities WHERE issuer = ? AND subject = ?", [.text(IdentityKey.emailIssuer), .text(address)]
                ).first.flatMap { $0.column("user_id")?.string }
                if let owner { return owner == userID.text ? .unchanged : .taken }
                let previous = try await db.query(
                    "DELETE FROM identities WHERE issuer = ? AND user_id = ? RETURNING subject", [.text(IdentityKey.emailIssuer), .uuid(userID)]
                ).first.flatMap { $0.column("subject")?.string }
                _ = try await db.query(
                    "INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at) VALUES (?, ?, ?, ?, 1, ?)",
                    [.text(IdentityKey.emailIssuer), .text(address), .uuid(userID), .text(address), .time(now)])
                return .changed(previous: previous)
            }
        } catch let error as SQLiteError where error.isConstraint {
            // The transaction holds the file's write lock from its start, so no other writer comes between the
            // read and the insert; the primary key decides all the same, should one.
            return .taken
        }
    }

    public func addPasswordHash(_ hash: String, userID: UUID, at now: Date) async throws -> Bool {
        try await durable {
            try await !write(
                "INSERT INTO passwords (user_id, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT(user_id) DO NOTHING RETURNING user_id",
                [.uuid(userID), .text(hash), .time(now)], keepsSessionCache: true
            ).isEmpty
        }
    }

    public func setPasswordHashUnlessSecondFactor(_ hash: String, userID: UUID, at now: Date) async throws -> Bool {
        try await durable {
            try await !write(
                """
                INSERT INTO passwords (user_id, hash, updated_at) SELECT ?1, ?2, ?3
                WHERE NOT EXISTS (SELECT 1 FROM totp_authenticators WHERE user_id = ?1 AND confirmed_at IS NOT NULL)
                ON CONFLICT(user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at RETURNING user_id
                """, [.uuid(userID), .text(hash), .time(now)], keepsSessionCache: true
            ).isEmpty
        }
    }
}

extension Identity {
    package init(row: SQLiteRow) throws {
        self.init(
            key: IdentityKey(issuer: try row.string("issuer"), subject: try row.string("subject")),
            email: row.column("email")?.string, emailVerified: row.column("email_verified")?.bool ?? false)
    }
}

extension User {
    package init(row: SQLiteRow) throws {
        let parts = NameParts(
            givenName: row.column("given_name")?.string, familyName: row.column("family_name")?.string,
            middleName: row.column("middle_name")?.string, nickname: row.column("nickname")?.string,
            namePrefix: row.column("name_prefix")?.string, nameSuffix: row.column("name_suffix")?.string)
        self.init(id: try row.uuid("id"), displayName: try row.string("display_name"), name: parts.isEmpty ? nil : parts)
    }
}
