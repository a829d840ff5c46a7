import ChatterCore
import ChatterWire
import Foundation
import PostgresNIO

/// `AccountTransaction` on one connection, inside `PostgresStore.transaction`.
package struct PostgresAccountTransaction: AccountTransaction {
    package let db: PostgresConnection
    package let logger: Logger

    package func linkedIdentity(_ key: IdentityKey) async throws -> LinkedIdentity? {
        try await db.rows(LinkedIdentityByKey(key: key), logger: logger).first.map(LinkedIdentity.init(row:))
    }

    package func accounts(withVerifiedEmail email: String) async throws -> [UUID] {
        try await db.rows(AccountsWithVerifiedEmail(email: email), logger: logger).map { try $0.value("user_id") }
    }

    package func issuers(of userID: UUID) async throws -> Set<String> {
        Set(try await db.rows(IssuersOfUser(userID: userID), logger: logger).map { try $0.value("issuer") })
    }

    package func insertUser(id: UUID, displayName: String, at now: Date) async throws {
        try await db.rows(InsertUser(id: id, displayName: displayName, now: now), logger: logger)
    }

    package func insertIdentity(_ identity: Identity, userID: UUID, at now: Date) async throws {
        try await db.rows(InsertIdentity(identity: identity, userID: userID, now: now), logger: logger)
    }

    package func setDisplayName(_ name: String, userID: UUID) async throws {
        try await db.rows(SetDisplayName(name: name, userID: userID), logger: logger)
    }

    package func fillName(_ name: NameParts, userID: UUID) async throws {
        guard !name.isEmpty else { return }
        try await db.rows(FillName(name: name, userID: userID), logger: logger)
    }

    package func setEmail(_ email: String, verified: Bool, of key: IdentityKey) async throws {
        try await db.rows(SetIdentityEmail(email: email, verified: verified, key: key), logger: logger)
    }
}
