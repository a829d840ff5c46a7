import ChatterCore
import Foundation
import PostgresNIO

extension PostgresStore {
    /// An account's row with the emails of its identities, oldest first.
    package static let accountColumns = """
        \(userColumns), u.created_at, u.disabled_at, u.is_admin,
        ARRAY(SELECT email FROM identities WHERE user_id = u.id AND email IS NOT NULL ORDER BY created_at) AS emails
        """

    public func findAccounts(matching text: String?, limit: Int) async throws -> [AccountRecord] {
        let pattern = text.map(AdminSearch.likePattern)
        return try await rows(
            """
            SELECT \(unescaped: Self.accountColumns) FROM users u
            WHERE \(pattern)::text IS NULL OR u.display_name ILIKE \(pattern) OR u.id::text ILIKE \(pattern)
                OR EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.email ILIKE \(pattern))
            ORDER BY u.created_at DESC, u.id LIMIT \(limit)
            """, keepsSessionCache: true
        ).map(AccountRecord.init(row:))
    }

    public func account(id: UUID) async throws -> AccountRecord? {
        try await rows("SELECT \(unescaped: Self.accountColumns) FROM users u WHERE u.id = \(id)", keepsSessionCache: true).first.map(AccountRecord.init(row:))
    }

    public func isAdmin(userID: UUID) async throws -> Bool {
        try await rows("SELECT is_admin FROM users WHERE id = \(userID)", keepsSessionCache: true).first?.value("is_admin") ?? false
    }

    public func accounts(withEmail email: String) async throws -> [AccountRecord] {
        try await rows(
            """
            SELECT \(unescaped: Self.accountColumns) FROM users u
            WHERE u.id IN (SELECT user_id FROM identities WHERE lower(email) = lower(\(email)) AND email_verified) ORDER BY u.created_at, u.id
            """, keepsSessionCache: true
        ).map(AccountRecord.init(row:))
    }

    /// The update locks the account's row, so a sign-in inserting a session (which holds it `FOR SHARE`,
    /// see `createSession`) either committed before it, and its session is deleted here, or waits and
    /// then finds the account disabled.
    public func setDisabled(_ disabled: Bool, userID: UUID, at now: Date) async throws -> Int? {
        guard disabled else {
            return try await rows("UPDATE users SET disabled_at = NULL WHERE id = \(userID) RETURNING id", keepsSessionCache: true).isEmpty ? nil : 0
        }
        return try await transaction { [logger] db -> Int? in
            guard
                try await !db.rows(
                    "UPDATE users SET disabled_at = coalesce(disabled_at, \(now)) WHERE id = \(userID) RETURNING id", logger: logger
                ).isEmpty
            else { return nil }
            try await db.rows("DELETE FROM web_handoffs WHERE user_id = \(userID)", logger: logger)
            return try await db.rows("DELETE FROM sessions WHERE user_id = \(userID) RETURNING id", logger: logger).count
        }
    }

    public func setAdmin(_ isAdmin: Bool, userID: UUID) async throws -> Bool {
        try await !rows("UPDATE users SET is_admin = \(isAdmin) WHERE id = \(userID) RETURNING id", keepsSessionCache: true).isEmpty
    }
}

extension AccountRecord {
    package init(row: PostgresRandomAccessRow) throws {
        self.init(
            user: try User(row: row), createdAt: try row.value("created_at"), disabledAt: try row.value("disabled_at"),
            isAdmin: try row.value("is_admin"), emails: try row.value("emails"))
    }
}
