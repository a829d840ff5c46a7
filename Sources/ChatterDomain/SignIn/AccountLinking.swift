import ChatterCore
import Foundation

// Which account a sign-in lands in, written once over `UserRepository`'s steps for every database.
extension UserRepository {
    /// Finds the user behind `claims.key`, creating both on first sign-in. A user found through a verified
    /// email of another identity is linked only when `claims.emailVerified` is true as well. A non-nil
    /// display name replaces the stored one; name parts are stored once and never erased by an empty sign-in.
    /// `mayCreate` false (`SignUpGate`): a sign-in that would create a user is refused (`AppAttestError.required`),
    /// decided in the transaction that would create it.
    public func signIn(_ claims: IdentityClaims, fallbackName: String, at now: Date, mayCreate: Bool) async throws -> User {
        try await ChatterMetrics.database("sign_in") { try await linkOrCreate(claims, fallbackName: fallbackName, at: now, mayCreate: mayCreate) }
    }

    private func linkOrCreate(_ claims: IdentityClaims, fallbackName: String, at now: Date, mayCreate: Bool) async throws -> User {
        if let found = try await linkedIdentity(claims.key),
            SignInChange(claims: claims, user: found.user, email: found.identity.email, emailVerified: found.identity.emailVerified).isNone
        {
            return found.user
        }
        return try await accountTransaction { account in
            if let existing = try await account.linkedIdentity(claims.key) {
                try await Self.update(existing.user, of: claims.key, with: claims, in: account)
                return try await account.linkedIdentity(claims.key)?.user ?? existing.user
            }
            let userID: UUID
            if let linked = try await Self.linkableAccount(for: claims, in: account) {
                userID = linked
            } else {
                guard mayCreate else { throw AppAttestError.required }
                userID = UUID()
                try await account.insertUser(id: userID, displayName: claims.displayName ?? fallbackName, at: now)
            }
            if let name = claims.name { try await account.fillName(name, userID: userID) }
            try await account.insertIdentity(
                Identity(key: claims.key, email: claims.email, emailVerified: claims.emailVerified), userID: userID, at: now)
            guard let created = try await account.linkedIdentity(claims.key) else { throw StoreError.corruptRow("identity without user") }
            return created.user
        }
    }

    /// The user behind `key`, without creating anything.
    public func user(for key: IdentityKey) async throws -> User? {
        try await linkedIdentity(key)?.user
    }

    private static func update(_ user: User, of key: IdentityKey, with claims: IdentityClaims, in account: any AccountTransaction) async throws {
        if let name = claims.displayName, name != user.displayName { try await account.setDisplayName(name, userID: user.id) }
        if let name = claims.name { try await account.fillName(name, userID: user.id) }
        if let email = claims.email { try await account.setEmail(email, verified: claims.emailVerified, of: key) }
    }

    /// Links to an existing account only when both sides' emails are verified, and never to an account
    /// that already has an identity from the same issuer: another subject of one issuer is another person
    /// (an address can be reassigned). Of several, the account of the oldest matching identity.
    private static func linkableAccount(for claims: IdentityClaims, in account: any AccountTransaction) async throws -> UUID? {
        guard claims.emailVerified, let email = claims.email else { return nil }
        for candidate in try await account.accounts(withVerifiedEmail: email) {
            if try await !account.issuers(of: candidate).contains(claims.key.issuer) { return candidate }
        }
        return nil
    }
}
