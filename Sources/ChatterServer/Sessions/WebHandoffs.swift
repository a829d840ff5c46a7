import ChatterWire
import Foundation

/// One-time links that sign a browser in as the app's account (`POST /v1/auth/web-session`): short-lived,
/// single-use, stored only as hashes, and throttled per account.
struct WebHandoffs: Sendable {
    typealias Store = WebHandoffRepository & RateLimitRepository & UserRepository

    let store: any Store
    let now: @Sendable () -> Date

    /// How long a link works.
    static let lifetime: Double = 60
    /// Links one account may ask for per 10 minutes: an app asks for one when it opens a web view.
    static let perWindow = 30

    /// A new link's code for `user`.
    func create(for user: User) async throws -> String {
        guard try await store.hit(RateLimitKeys.handoff(user.id), window: 600, at: now()) <= Self.perWindow else {
            throw LimitReached(.webSession, retryAfter: 600)
        }
        let code = SessionToken.generate()
        try await store.storeHandoff(codeHash: code.hash, userID: user.id, expiresAt: now().addingTimeInterval(Self.lifetime))
        return code.secret
    }

    /// The account a live link would sign in, leaving the link in place (to ask before using it).
    func account(_ code: String) async throws -> User {
        guard code.utf8.count <= 128, let userID = try await store.handoffUser(codeHash: SessionToken.hash(code), at: now()),
            let user = try await store.user(id: userID)
        else { throw SessionError.invalidHandoff }
        return user
    }

    /// Uses the link up (one atomic delete decides) and returns its account.
    func redeem(_ code: String) async throws -> User {
        guard code.utf8.count <= 128, let userID = try await store.redeemHandoff(codeHash: SessionToken.hash(code), at: now()),
            let user = try await store.user(id: userID)
        else { throw SessionError.invalidHandoff }
        return user
    }

    /// Uses the link up without signing anyone in: the browser is its account already.
    func discard(_ code: String) async throws {
        _ = try await store.redeemHandoff(codeHash: SessionToken.hash(code), at: now())
    }
}
