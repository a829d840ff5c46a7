import Foundation
import SQLiteNIO

extension SQLiteStore {
    public func signIn(
        identity: IdentityKey, displayName: String?, fallbackName: String, email: String?, emailVerified: Bool, at now: Date
    ) async throws -> User {
        try await transaction { db in
            let existing = try await db.query(
                """
                SELECT u.id, u.display_name FROM identities i JOIN users u ON u.id = i.user_id
                WHERE i.issuer = ? AND i.subject = ?
                """, [.text(identity.issuer), .text(identity.subject)]
            ).first
            if let existing {
                var user = User(id: try existing.uuid("id"), displayName: try existing.string("display_name"))
                if let displayName, displayName != user.displayName {
                    _ = try await db.query("UPDATE users SET display_name = ? WHERE id = ?", [.text(displayName), .uuid(user.id)])
                    user.displayName = displayName
                }
                _ = try await db.query(
                    "UPDATE identities SET email = ?, email_verified = ? WHERE issuer = ? AND subject = ?",
                    [email.map(SQLiteData.text) ?? .null, .integer(emailVerified ? 1 : 0), .text(identity.issuer), .text(identity.subject)])
                return user
            }
            let user = User(id: UUID(), displayName: displayName ?? fallbackName)
            _ = try await db.query(
                "INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)",
                [.uuid(user.id), .text(user.displayName), .time(now)])
            _ = try await db.query(
                "INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(identity.issuer), .text(identity.subject), .uuid(user.id), email.map(SQLiteData.text) ?? .null,
                 .integer(emailVerified ? 1 : 0), .time(now)])
            return user
        }
    }

    public func user(id: UUID) async throws -> User? {
        guard let row = try await reader.query("SELECT id, display_name FROM users WHERE id = ?", [.uuid(id)]).first else {
            return nil
        }
        return User(id: try row.uuid("id"), displayName: try row.string("display_name"))
    }

    public func userCount() async throws -> Int { try await count("users") }
}
