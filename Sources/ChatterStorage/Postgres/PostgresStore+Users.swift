import ChatterCore
import ChatterWire
import Foundation
import PostgresNIO

extension PostgresStore {
    package static let userColumns = "u.id, u.display_name, u.given_name, u.family_name, u.middle_name, u.nickname, u.name_prefix, u.name_suffix"

    public func linkedIdentity(_ key: IdentityKey) async throws -> LinkedIdentity? {
        try await rows(LinkedIdentityByKey(key: key), keepsSessionCache: true).first.map(LinkedIdentity.init(row:))
    }

    /// Two first sign-ins of one identity at once: the second insert of the identity fails on its key,
    /// and the transaction run again finds the identity the first one made.
    public func accountTransaction<T: Sendable>(_ body: @Sendable (any AccountTransaction) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await transaction { [logger] db in try await body(PostgresAccountTransaction(db: db, logger: logger)) }
            } catch let error as PSQLError where error.sqlState == PSQLError.uniqueViolation && attempt < 3 {
                attempt += 1
            }
        }
    }

    public func user(id: UUID) async throws -> User? {
        try await rows(UserByID(id: id), keepsSessionCache: true).first.map(User.init(row:))
    }

    public func accountSummary(userID: UUID) async throws -> AccountSummary {
        let rows = try await rows(AccountSummaryOf(userID: userID), keepsSessionCache: true)
        return AccountSummary(
            identities: try rows.filter { try $0.value("issuer", as: String?.self) != nil }.map(Identity.init(row:)),
            hasPassword: try rows.first?.value("has_password") ?? false, hasPasskey: try rows.first?.value("has_passkey") ?? false)
    }

    public func deleteIdentity(_ key: IdentityKey) async throws -> UUID? {
        try await transaction { [logger] db in
            guard let user = try await db.rows(LinkedIdentityByKey(key: key), logger: logger).first.map(User.init(row:)) else { return nil }
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
            "UPDATE identities SET email_forwarding = \(enabled) WHERE issuer = \(key.issuer) AND subject = \(key.subject)")
    }

    /// A batch of posts takes its author's key-share lock and the timeline counter in an order PostgreSQL
    /// chooses (one statement), so a deletion racing it can deadlock; PostgreSQL then undoes one of the two,
    /// which is tried again.
    public func deleteUser(id: UUID) async throws {
        try await Self.retryingDeadlocks {
            try await transaction { [logger] db in try await Self.deleteUser(db, id: id, logger: logger) }
        }
    }

    /// Account deletion policy, as in SQLiteStore: the user's chatts go with them, as do codes sent to
    /// the addresses it verified and the devices that proved them.
    package static func deleteUser(_ db: PostgresConnection, id: UUID, logger: Logger) async throws {
        // First the user's row lock, in a statement of its own: a post being inserted holds a key-share
        // lock on it (its foreign key), so this waits for such posts to commit, and the statement below
        // (a new snapshot) sees and deletes them; posts arriving later fail their foreign key.
        try await db.query("SELECT id FROM users WHERE id = \(id) FOR UPDATE", logger: logger)
        try await db.query(
            """
            WITH addresses AS (SELECT email FROM identities WHERE user_id = \(id) AND email IS NOT NULL AND email_verified),
                codes AS (DELETE FROM email_codes WHERE email IN (SELECT email FROM addresses)),
                sends AS (DELETE FROM email_code_sends WHERE email IN (SELECT email FROM addresses)),
                devices AS (DELETE FROM device_tokens WHERE email IN (SELECT email FROM addresses)),
                counters AS (DELETE FROM rate_limits WHERE key = ANY(\(RateLimitKeys.naming(id)))),
                posts AS (DELETE FROM chatts WHERE user_id = \(id) RETURNING 1),
                stamp AS (UPDATE timeline_version SET n = n + 1 WHERE EXISTS (SELECT 1 FROM posts))
            DELETE FROM users WHERE id = \(id)
            """, logger: logger)
    }

    public func userCount() async throws -> Int { try await count("users") }

    public func passwordHash(userID: UUID) async throws -> String? {
        try await rows("SELECT hash FROM passwords WHERE user_id = \(userID)", keepsSessionCache: true).first?.value("hash")
    }

    public func setPasswordHash(_ hash: String, userID: UUID, at now: Date) async throws {
        try await rows(
            """
            INSERT INTO passwords (user_id, hash, updated_at) VALUES (\(userID), \(hash), \(now))
            ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at
            """, keepsSessionCache: true)
    }

    public func changeEmailIdentity(userID: UUID, to address: String, at now: Date) async throws -> EmailIdentityChange {
        do {
            return try await transaction { [logger] db in
                // Two changes of one account queue on its row, so the second reads what the first committed (at
                // READ COMMITTED its DELETE would otherwise take the address the first just inserted).
                try await db.query("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
                let owner = try await db.rows(
                    "SELECT user_id FROM identities WHERE issuer = \(IdentityKey.emailIssuer) AND subject = \(address)", logger: logger
                ).first.map { try $0.value("user_id", as: UUID.self) }
                if let owner { return owner == userID ? .unchanged : .taken }
                let previous = try await db.rows(
                    "DELETE FROM identities WHERE issuer = \(IdentityKey.emailIssuer) AND user_id = \(userID) RETURNING subject", logger: logger
                ).first.map { try $0.value("subject", as: String.self) }
                try await db.query(
                    """
                    INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at)
                    VALUES (\(IdentityKey.emailIssuer), \(address), \(userID), \(address), true, \(now))
                    """, logger: logger)
                return .changed(previous: previous)
            }
        } catch let error as PSQLError where error.sqlState == PSQLError.uniqueViolation {
            // Another account inserted the address after this transaction read it: its insert decided.
            return .taken
        }
    }

    public func addPasswordHash(_ hash: String, userID: UUID, at now: Date) async throws -> Bool {
        try await !rows(
            """
            INSERT INTO passwords (user_id, hash, updated_at) VALUES (\(userID), \(hash), \(now))
            ON CONFLICT (user_id) DO NOTHING RETURNING user_id
            """, keepsSessionCache: true
        ).isEmpty
    }

    public func setPasswordHashUnlessSecondFactor(_ hash: String, userID: UUID, at now: Date) async throws -> Bool {
        try await !rows(
            """
            INSERT INTO passwords (user_id, hash, updated_at) SELECT \(userID), \(hash), \(now)
            WHERE NOT EXISTS (SELECT 1 FROM totp_authenticators WHERE user_id = \(userID) AND confirmed_at IS NOT NULL)
            ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at RETURNING user_id
            """, keepsSessionCache: true
        ).isEmpty
    }
}

extension Identity {
    package init(row: PostgresRandomAccessRow) throws {
        self.init(
            key: IdentityKey(issuer: try row.value("issuer"), subject: try row.value("subject")),
            email: try row.value("email"), emailVerified: try row.value("email_verified"))
    }
}

extension LinkedIdentity {
    package init(row: PostgresRandomAccessRow) throws {
        self.init(user: try User(row: row), identity: try Identity(row: row))
    }
}

extension User {
    package init(row: PostgresRandomAccessRow) throws {
        let parts = NameParts(
            givenName: try row.value("given_name"), familyName: try row.value("family_name"), middleName: try row.value("middle_name"),
            nickname: try row.value("nickname"), namePrefix: try row.value("name_prefix"), nameSuffix: try row.value("name_suffix"))
        self.init(id: try row.value("id"), displayName: try row.value("display_name"), name: parts.isEmpty ? nil : parts)
    }
}
