import ChatterCore
import ChatterWire
import Foundation

/// One-time links that sign a browser in as the app's account (`POST /v1/auth/web-session`): short-lived,
/// single-use, stored only as hashes, and throttled per account.
package struct WebHandoffs: Sendable {
    package typealias Store = WebHandoffRepository & RateLimitRepository & UserRepository

    let store: any Store
    package let now: @Sendable () -> Date

    /// How long a link works.
    package static let lifetime: Double = 60
    /// Links one account may ask for per 10 minutes: an app asks for one when it opens a web view.
    package static let perWindow = 30

    /// A new link's code for `user`.
    package func create(for user: User) async throws -> String {
        guard try await store.hit(RateLimitKeys.handoff(user.id), window: 600, at: now()) <= Self.perWindow else {
            throw LimitReached.counted(.webSession, retryAfter: 600)
        }
        let code = SessionToken.generate()
        try await store.storeHandoff(codeHash: code.hash, userID: user.id, expiresAt: now().addingTimeInterval(Self.lifetime))
        return code.secret
    }

    /// The account a live link would sign in, leaving the link in place (to ask before using it).
    package func account(_ code: String) async throws -> User {
        guard code.utf8.count <= 128, let userID = try await store.handoffUser(codeHash: SessionToken.hash(code), at: now()),
            let user = try await store.user(id: userID)
        else { throw SessionError.invalidHandoff }
        return user
    }

    /// Uses the link up (one atomic delete decides) and returns its account.
    package func redeem(_ code: String) async throws -> User {
        guard code.utf8.count <= 128, let userID = try await store.redeemHandoff(codeHash: SessionToken.hash(code), at: now()),
            let user = try await store.user(id: userID)
        else { throw SessionError.invalidHandoff }
        return user
    }

    /// Uses the link up without signing anyone in: the browser is its account already.
    package func discard(_ code: String) async throws {
        _ = try await store.redeemHandoff(codeHash: SessionToken.hash(code), at: now())
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(store: any Store, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }
}
