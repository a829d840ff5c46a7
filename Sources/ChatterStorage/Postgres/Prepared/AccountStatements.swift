import ChatterCore
import ChatterWire
import Foundation
import PostgresNIO

// The statements of a sign-in: the identity and its account, what the account holds, and the account
// transaction's writes (`PostgresAccountTransaction`).

/// An identity and the account it is linked to.
package struct LinkedIdentityByKey: PreparedStatement {
    package static let sql = """
        SELECT \(PostgresStore.userColumns), i.issuer, i.subject, i.email, i.email_verified FROM identities i JOIN users u ON u.id = i.user_id
        WHERE i.issuer = $1 AND i.subject = $2
        """
    package static let bindingDataTypes: [PostgresDataType] = [.text, .text]
    package var key: IdentityKey

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 2)
        binds.append(key.issuer)
        binds.append(key.subject)
        return binds
    }
}

package struct UserByID: PreparedStatement {
    package static let sql = "SELECT \(PostgresStore.userColumns) FROM users u WHERE u.id = $1"
    package static let bindingDataTypes: [PostgresDataType] = [.uuid]
    package var id: UUID

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(id)
        return binds
    }
}

/// Whether the account has a password and a passkey, and its identities, oldest first.
package struct AccountSummaryOf: PreparedStatement {
    package static let sql = """
        SELECT p.has_password, p.has_passkey, i.issuer, i.subject, i.email, i.email_verified
        FROM (SELECT EXISTS (SELECT 1 FROM passwords WHERE user_id = $1) AS has_password,
            EXISTS (SELECT 1 FROM passkeys WHERE user_id = $1) AS has_passkey) p
        LEFT JOIN identities i ON i.user_id = $1 ORDER BY i.created_at
        """
    package static let bindingDataTypes: [PostgresDataType] = [.uuid]
    package var userID: UUID

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(userID)
        return binds
    }
}

package struct AccountsWithVerifiedEmail: PreparedStatement {
    package static let sql = "SELECT user_id FROM identities WHERE email = $1 AND email_verified ORDER BY created_at, issuer, subject"
    package static let bindingDataTypes: [PostgresDataType] = [.text]
    package var email: String

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(email)
        return binds
    }
}

package struct IssuersOfUser: PreparedStatement {
    package static let sql = "SELECT issuer FROM identities WHERE user_id = $1"
    package static let bindingDataTypes: [PostgresDataType] = [.uuid]
    package var userID: UUID

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(userID)
        return binds
    }
}

package struct InsertUser: PreparedStatement {
    package static let sql = "INSERT INTO users (id, display_name, created_at) VALUES ($1, $2, $3)"
    package static let bindingDataTypes: [PostgresDataType] = [.uuid, .text, .timestamptz]
    package var id: UUID
    package var displayName: String
    package var now: Date

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 3)
        binds.append(id)
        binds.append(displayName)
        binds.append(now)
        return binds
    }
}

package struct InsertIdentity: PreparedStatement {
    package static let sql = """
        INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at) VALUES ($1, $2, $3, $4, $5, $6)
        """
    package static let bindingDataTypes: [PostgresDataType] = [.text, .text, .uuid, .text, .bool, .timestamptz]
    package var identity: Identity
    package var userID: UUID
    package var now: Date

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 6)
        binds.append(identity.key.issuer)
        binds.append(identity.key.subject)
        binds.append(userID)
        binds.append(identity.email)
        binds.append(identity.emailVerified)
        binds.append(now)
        return binds
    }
}

package struct SetDisplayName: PreparedStatement {
    package static let sql = "UPDATE users SET display_name = $1 WHERE id = $2"
    package static let bindingDataTypes: [PostgresDataType] = [.text, .uuid]
    package var name: String
    package var userID: UUID

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 2)
        binds.append(name)
        binds.append(userID)
        return binds
    }
}

/// Fills the name parts a sign-in gave, never erasing one it left out.
package struct FillName: PreparedStatement {
    package static let sql = """
        UPDATE users SET given_name = COALESCE(NULLIF($1, ''), given_name), family_name = COALESCE(NULLIF($2, ''), family_name),
            middle_name = COALESCE(NULLIF($3, ''), middle_name), nickname = COALESCE(NULLIF($4, ''), nickname),
            name_prefix = COALESCE(NULLIF($5, ''), name_prefix), name_suffix = COALESCE(NULLIF($6, ''), name_suffix)
        WHERE id = $7
        """
    package static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .text, .text, .text, .uuid]
    package var name: NameParts
    package var userID: UUID

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 7)
        for part in [name.givenName, name.familyName, name.middleName, name.nickname, name.namePrefix, name.nameSuffix] { binds.append(part) }
        binds.append(userID)
        return binds
    }
}

package struct SetIdentityEmail: PreparedStatement {
    package static let sql = "UPDATE identities SET email = $1, email_verified = $2 WHERE issuer = $3 AND subject = $4"
    package static let bindingDataTypes: [PostgresDataType] = [.text, .bool, .text, .text]
    package var email: String
    package var verified: Bool
    package var key: IdentityKey

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 4)
        binds.append(email)
        binds.append(verified)
        binds.append(key.issuer)
        binds.append(key.subject)
        return binds
    }
}
