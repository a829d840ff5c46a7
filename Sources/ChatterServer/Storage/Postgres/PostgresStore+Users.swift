import ChatterWire
import Foundation
import PostgresNIO

extension PostgresStore {
    static let userColumns = "u.id, u.display_name, u.given_name, u.family_name, u.middle_name, u.nickname, u.name_prefix, u.name_suffix"

    public func signIn(_ claims: IdentityClaims, fallbackName: String, at now: Date) async throws -> User {
        // Most sign-ins are returning users whose details have not changed: answer them with one read.
        if let row = try await rows(
            """
            SELECT \(unescaped: Self.userColumns), i.email, i.email_verified FROM identities i JOIN users u ON u.id = i.user_id
            WHERE i.issuer = \(claims.key.issuer) AND i.subject = \(claims.key.subject)
            """
        ).first {
            let user = try User(row: row)
            if try SignInChange(claims: claims, user: user, email: row.value("email"), emailVerified: row.value("email_verified")).isNone {
                return user
            }
        }
        // Two first sign-ins of one identity at once: the second insert of the identity fails on its key,
        // and the retry finds the identity the first one made.
        for attempt in 1...3 {
            do {
                return try await transaction { db in try await Self.signIn(db, claims, fallbackName: fallbackName, at: now, logger: logger) }
            } catch let error as PSQLError where error.sqlState == PSQLError.uniqueViolation && attempt < 3 {
                continue
            }
        }
        throw StoreError.corruptRow("sign-in kept conflicting")
    }

    private static func signIn(_ db: PostgresConnection, _ claims: IdentityClaims, fallbackName: String, at now: Date, logger: Logger) async throws -> User {
        if let existing = try await user(db, key: claims.key, logger: logger) {
            if let name = claims.displayName, name != existing.displayName {
                try await db.query("UPDATE users SET display_name = \(name) WHERE id = \(existing.id)", logger: logger)
            }
            try await fillName(db, claims.name, userID: existing.id, logger: logger)
            if let email = claims.email {
                try await db.query(
                    """
                    UPDATE identities SET email = \(email), email_verified = \(claims.emailVerified)
                    WHERE issuer = \(claims.key.issuer) AND subject = \(claims.key.subject)
                    """, logger: logger)
            }
            return try await user(db, key: claims.key, logger: logger) ?? existing
        }
        // Linking rules as in SQLiteStore.signIn: both emails verified, never another subject of the same
        // issuer, and the oldest identity's account when several match.
        var userID: UUID?
        if claims.emailVerified, let email = claims.email {
            userID = try await db.rows(
                """
                SELECT user_id FROM identities WHERE email = \(email) AND email_verified
                    AND user_id NOT IN (SELECT user_id FROM identities WHERE issuer = \(claims.key.issuer))
                ORDER BY created_at, issuer, subject LIMIT 1
                """, logger: logger
            ).first?.value("user_id", as: UUID.self)
        }
        if userID == nil {
            let id = UUID()
            try await db.query(
                "INSERT INTO users (id, display_name, created_at) VALUES (\(id), \(claims.displayName ?? fallbackName), \(now))", logger: logger)
            userID = id
        }
        try await fillName(db, claims.name, userID: userID!, logger: logger)
        try await db.query(
            """
            INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at)
            VALUES (\(claims.key.issuer), \(claims.key.subject), \(userID!), \(claims.email), \(claims.emailVerified), \(now))
            """, logger: logger)
        guard let user = try await user(db, key: claims.key, logger: logger) else { throw StoreError.corruptRow("identity without user") }
        return user
    }

    /// Stores name parts the provider sent; an absent or empty part never erases a stored one.
    private static func fillName(_ db: PostgresConnection, _ name: NameParts?, userID: UUID, logger: Logger) async throws {
        guard let name, !name.isEmpty else { return }
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

    static func user(_ db: PostgresConnection, key: IdentityKey, logger: Logger) async throws -> User? {
        try await db.rows(
            """
            SELECT \(unescaped: userColumns) FROM identities i JOIN users u ON u.id = i.user_id
            WHERE i.issuer = \(key.issuer) AND i.subject = \(key.subject)
            """, logger: logger
        ).first.map(User.init(row:))
    }

    public func user(for key: IdentityKey) async throws -> User? {
        try await rows(
            """
            SELECT \(unescaped: Self.userColumns) FROM identities i JOIN users u ON u.id = i.user_id
            WHERE i.issuer = \(key.issuer) AND i.subject = \(key.subject)
            """
        ).first.map(User.init(row:))
    }

    public func user(id: UUID) async throws -> User? {
        try await rows("SELECT \(unescaped: Self.userColumns) FROM users u WHERE u.id = \(id)").first.map(User.init(row:))
    }

    public func identities(of userID: UUID) async throws -> [Identity] {
        try await rows("SELECT issuer, subject, email, email_verified FROM identities WHERE user_id = \(userID) ORDER BY created_at").map { row in
            Identity(
                key: IdentityKey(issuer: try row.value("issuer"), subject: try row.value("subject")),
                email: try row.value("email"), emailVerified: try row.value("email_verified"))
        }
    }

    public func deleteIdentity(_ key: IdentityKey) async throws -> UUID? {
        try await transaction { [logger] db in
            guard let user = try await Self.user(db, key: key, logger: logger) else { return nil }
            // Locks the user's row, so two last identities removed at once cannot both see one left.
            try await db.query("SELECT id FROM users WHERE id = \(user.id) FOR UPDATE", logger: logger)
            try await db.query("DELETE FROM identities WHERE issuer = \(key.issuer) AND subject = \(key.subject)", logger: logger)
            let left = try await db.rows("SELECT count(*) AS n FROM identities WHERE user_id = \(user.id)", logger: logger).first?.value("n", as: Int.self)
            if left == 0 { try await Self.deleteUser(db, id: user.id, logger: logger) }
            return user.id
        }
    }

    public func setEmailForwarding(_ key: IdentityKey, enabled: Bool) async throws {
        try await rows(
            "UPDATE identities SET email_forwarding = \(enabled) WHERE issuer = \(key.issuer) AND subject = \(key.subject)", keepsSessionCache: false)
    }

    public func deleteUser(id: UUID) async throws {
        try await transaction { [logger] db in try await Self.deleteUser(db, id: id, logger: logger) }
    }

    /// Account deletion policy, as in SQLiteStore: the user's chatts go with them, as do codes sent to
    /// their addresses and the devices that proved them.
    static func deleteUser(_ db: PostgresConnection, id: UUID, logger: Logger) async throws {
        // First the user's row lock, in a statement of its own: a post being inserted holds a key-share
        // lock on it (its foreign key), so this waits for such posts to commit, and the statement below
        // (a new snapshot) sees and deletes them; posts arriving later fail their foreign key.
        try await db.query("SELECT id FROM users WHERE id = \(id) FOR UPDATE", logger: logger)
        try await db.query(
            """
            WITH addresses AS (SELECT email FROM identities WHERE user_id = \(id) AND email IS NOT NULL),
                codes AS (DELETE FROM email_codes WHERE email IN (SELECT email FROM addresses)),
                sends AS (DELETE FROM email_code_sends WHERE email IN (SELECT email FROM addresses)),
                devices AS (DELETE FROM device_tokens WHERE email IN (SELECT email FROM addresses)),
                posts AS (DELETE FROM chatts WHERE user_id = \(id) RETURNING 1),
                stamp AS (UPDATE chatt_deletions SET n = n + 1 WHERE EXISTS (SELECT 1 FROM posts))
            DELETE FROM users WHERE id = \(id)
            """, logger: logger)
    }

    public func userCount() async throws -> Int { try await count("users") }

    public func passwordHash(userID: UUID) async throws -> String? {
        try await rows("SELECT hash FROM passwords WHERE user_id = \(userID)").first?.value("hash")
    }

    public func setPasswordHash(_ hash: String, userID: UUID, at now: Date) async throws {
        try await rows(
            """
            INSERT INTO passwords (user_id, hash, updated_at) VALUES (\(userID), \(hash), \(now))
            ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at
            """)
    }
}

extension User {
    init(row: PostgresRandomAccessRow) throws {
        let parts = NameParts(
            givenName: try row.value("given_name"), familyName: try row.value("family_name"), middleName: try row.value("middle_name"),
            nickname: try row.value("nickname"), namePrefix: try row.value("name_prefix"), nameSuffix: try row.value("name_suffix"))
        self.init(id: try row.value("id"), displayName: try row.value("display_name"), name: parts.isEmpty ? nil : parts)
    }
}
