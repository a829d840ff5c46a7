import ChatterCore
import ChatterWire
import Foundation

/// The user as the native API shows them: name, the verified (or else any) address, and how they can
/// sign in.
package struct Profiles: Sendable {
    let store: any UserRepository

    /// `account`: the user's account when the caller has read it already.
    package func profile(_ user: User, account known: AccountSummary? = nil) async throws -> UserProfile {
        let account = if let known { known } else { try await store.accountSummary(userID: user.id) }
        let identities = account.identities
        var methods = identities.map { Self.method(of: $0.key.issuer) }
        if account.hasPassword { methods.append(.password) }
        if account.hasPasskey { methods.append(.passkey) }
        let verified = identities.first { $0.emailVerified && $0.email != nil }
        let email = verified ?? identities.first { $0.email != nil }
        return UserProfile(
            id: user.id.text, displayName: user.displayName, email: email?.email, emailVerified: verified != nil,
            name: user.name, methods: Set(methods).map(\.rawValue).sorted())
    }

    /// The method an identity of `issuer` signs in with.
    package static func method(of issuer: String) -> SignInMethod {
        switch issuer {
        case IdentityKey.emailIssuer: .email
        case "https://appleid.apple.com": .apple
        default: .google
        }
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(store: any UserRepository) {
        self.store = store
    }
}
