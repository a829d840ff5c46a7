import ChatterCore
import Foundation

extension SQLiteStore {
    /// An account's row with the emails of its identities (oldest first, one per line).
    package static let accountColumns = """
        \(userColumns), u.created_at, u.disabled_at, u.is_admin,
        (SELECT group_concat(email, char(10)) FROM (SELECT email FROM identities WHERE user_id = u.id AND email IS NOT NULL ORDER BY created_at)) AS emails
        """

    public func findAccounts(matching text: String?, limit: Int) async throws -> [AccountRecord] {
        try await reader.query(
            """
            SELECT \(Self.accountColumns) FROM users u
            WHERE ?1 IS NULL OR u.display_name LIKE ?1 ESCAPE '\\' OR u.id LIKE ?1 ESCAPE '\\'
                OR EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.email LIKE ?1 ESCAPE '\\')
            ORDER BY u.created_at DESC, u.id LIMIT ?2
            """, [text.map { .text(AdminSearch.likePattern($0)) } ?? .null, .integer(limit)]
        ).map(AccountRecord.init(row:))
    }

    public func account(id: UUID) async throws -> AccountRecord? {
        try await reader.query("SELECT \(Self.accountColumns) FROM users u WHERE u.id = ?", [.uuid(id)]).first.map(AccountRecord.init(row:))
    }

    public func isAdmin(userID: UUID) async throws -> Bool {
        try await reader.query("SELECT is_admin FROM users WHERE id = ?", [.uuid(userID)]).first?.column("is_admin")?.bool == true
    }

    public func accounts(withEmail email: String) async throws -> [AccountRecord] {
        try await reader.query(
            """
            SELECT \(Self.accountColumns) FROM users u
            WHERE u.id IN (SELECT user_id FROM identities WHERE lower(email) = lower(?) AND email_verified = 1) ORDER BY u.created_at, u.id
            """, [.text(email)]
        ).map(AccountRecord.init(row:))
    }

    /// Fsynced: a disabled account's sessions must stay ended after a power loss.
    public func setDisabled(_ disabled: Bool, userID: UUID, at now: Date) async throws -> Int? {
        guard disabled else {
            return try await write("UPDATE users SET disabled_at = NULL WHERE id = ? RETURNING id", [.uuid(userID)]).isEmpty ? nil : 0
        }
        return try await durable {
            try await transaction { db -> Int? in
                guard
                    try await !db.query(
                        "UPDATE users SET disabled_at = coalesce(disabled_at, ?) WHERE id = ? RETURNING id", [.time(now), .uuid(userID)]
                    ).isEmpty
                else { return nil }
                _ = try await db.query("DELETE FROM web_handoffs WHERE user_id = ?", [.uuid(userID)])
                return try await db.query("DELETE FROM sessions WHERE user_id = ? RETURNING id", [.uuid(userID)]).count
            }
        }
    }

    public func setAdmin(_ isAdmin: Bool, userID: UUID) async throws -> Bool {
        try await !write("UPDATE users SET is_admin = ? WHERE id = ? RETURNING id", [.bool(isAdmin), .uuid(userID)]).isEmpty
    }
}

extension AccountRecord {
    package init(row: SQLiteRow) throws {
        self.init(
            user: try User(row: row), createdAt: try row.date("created_at"),
            disabledAt: row.column("disabled_at")?.double.map(Date.init(timeIntervalSince1970:)),
            isAdmin: row.column("is_admin")?.bool == true,
            emails: row.column("emails")?.string.map { $0.split(separator: "\n").map(String.init) } ?? [])
    }
}
