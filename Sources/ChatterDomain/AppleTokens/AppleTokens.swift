import ChatterCore
import Foundation
import Logging

/// Sign in with Apple's tokens, kept so the account's deletion can revoke them, as App Store Review
/// Guideline 5.1.1(v) and Apple's TN3194 expect: the authorization code the app sends with its first
/// sign-in is exchanged for a refresh token, kept sealed, and revoked at Apple when the account is deleted
/// (by its user, an operator, or Apple's `account-delete` notification) or Apple says its Apple ID stopped
/// using the app.
package struct AppleTokens: Sendable {
    let store: any AppleTokenRepository & RateLimitRepository
    package let server: any AppleAuthServer
    /// nil: chatterd has no key (`--apple-team-id`, `--apple-key-id`, `--apple-private-key`), so it keeps nothing.
    package let key: AppleSigningKey?
    package let apple: IDTokenVerifier
    package let box: SecretBox
    package let now: @Sendable () -> Date
    package let logger: Logger

    /// Tokens revoked per pass of the purge; the next pass takes the rest.
    package static let revokedPerPass = 100
    /// Tokens revoked right after a deletion, in its request: the account's own, unless others wait before them.
    package static let revokedAtOnce = 5
    /// A kept token is replaced by a new sign-in's once this old: a token the user revoked at Apple (whose
    /// notification chatterd may have missed) would revoke nothing when the account goes.
    package static let renewedAfter: Double = 86_400
    /// Exchanges asked of Apple per Apple ID per hour, whether Apple accepts the code or not: a client replaying
    /// its identity token with made-up codes cannot make chatterd hammer Apple under the operator's client ID.
    package static let exchangesPerHour = 3

    /// After an Apple sign-in of `identity` to `userID`: exchanges the app's authorization code and keeps the
    /// refresh token, unless one kept less than a day ago stands. Never fails the sign-in, which Apple's identity
    /// token proved: a code that cannot be exchanged is logged, and a later sign-in's code is tried.
    package func keep(code: String?, for identity: VerifiedIdentity, userID: UUID) async {
        guard let code, let key, let clientID = identity.audience else { return }
        do {
            if let kept = try await store.appleTokenKeptAt(subject: identity.subject, clientID: clientID),
                now().timeIntervalSince(kept) < Self.renewedAfter
            {
                return
            }
            guard try await store.hit(RateLimitKeys.appleExchanges(identity.subject), window: 3600, at: now()) <= Self.exchangesPerHour else {
                logger.info("an Apple authorization code was not exchanged: this Apple ID's exchanges this hour are used up")
                return
            }
            let secret = try await AppleClientSecret.make(for: clientID, with: key, at: now())
            let grant = try await server.exchange(code: code, clientID: clientID, clientSecret: secret)
            // The answer's identity token must be the same Apple ID's: a code of another Apple ID sent with this
            // one's token must not put another person's token on this account. Nor is it revoked: that would end
            // the other person's authorization.
            let granted = try await apple.verify(grant.idToken, clientID: clientID, nonce: .notChecked)
            guard granted.subject == identity.subject, let refreshToken = grant.refreshToken else {
                logger.warning("Apple's token for an authorization code is not the signed-in Apple ID's; not kept")
                return
            }
            let sealed = try box.sealAppleToken(refreshToken, subject: identity.subject, clientID: clientID)
            let live = try await store.keepAppleToken(
                AppleTokenRecord(subject: identity.subject, clientID: clientID, userID: userID, sealedToken: sealed, keptAt: now()))
            // The account was deleted while Apple answered: its token waits to be revoked, so revoke it now.
            if !live { await revokePending(limit: Self.revokedAtOnce) }
        } catch {
            logger.warning("Apple's authorization code was not exchanged", metadata: ["error": "\(Self.describe(error))"])
        }
    }

    /// Apple said the Apple ID stopped using the app, or was deleted: its tokens are revoked like a deleted
    /// account's.
    package func release(subject: String) async throws {
        try await store.releaseAppleTokens(subject: subject)
        await revokePending(limit: Self.revokedAtOnce)
    }

    /// Revokes up to `limit` tokens whose account is gone, oldest first, forgetting each Apple has revoked or no
    /// longer knows. One Apple refuses goes to the back of the queue; when Apple cannot be reached the pass stops,
    /// and the next purge tries again. A deletion's request calls it with a small `limit`, so it waits for at
    /// most one unanswered request to Apple. Returns how many were revoked.
    @discardableResult
    package func revokePending(limit: Int = Self.revokedPerPass) async -> Int {
        let pending: [AppleTokenRecord]
        do { pending = try await store.appleTokensToRevoke(limit: limit) } catch {
            logger.warning("Apple tokens to revoke could not be read", metadata: ["error": "\(error)"])
            return 0
        }
        guard !pending.isEmpty else { return 0 }
        guard let key else {
            logger.warning("Apple tokens wait to be revoked, but this chatterd has no Sign in with Apple key", metadata: ["count": "\(pending.count)"])
            return 0
        }
        var revoked = 0
        for record in pending {
            do {
                guard let token = box.openAppleToken(record.sealedToken, subject: record.subject, clientID: record.clientID) else {
                    // Sealed under another key: nobody can revoke it, and keeping it would retry forever.
                    logger.error("an Apple token does not open under this server's key; forgotten unrevoked")
                    try await store.forgetAppleToken(record)
                    continue
                }
                let secret = try await AppleClientSecret.make(for: record.clientID, with: key, at: now())
                do {
                    try await server.revoke(refreshToken: token, clientID: record.clientID, clientSecret: secret)
                    revoked += 1
                } catch {
                    // Apple no longer knows the token: revoked already (by the user, or a notification's cause).
                    guard error == .refused("invalid_grant") else { throw error }
                }
                try await store.forgetAppleToken(record)
            } catch {
                logger.warning("an Apple token was not revoked; it is tried again later", metadata: ["error": "\(Self.describe(error))"])
                // fail-closed: if postponing fails the token stays pending and is tried again; none is forgotten unrevoked
                try? await store.postponeAppleToken(record, to: now())
                if case .unavailable = error as? AppleAuthError { break }
            }
        }
        if revoked > 0 { logger.info("revoked Apple tokens of deleted accounts", metadata: ["count": "\(revoked)"]) }
        return revoked
    }

    /// An error as the log shows it: Apple's refusal code or the reason, never a token.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? AppleAuthError { return error.description }
        if let error = error as? TokenRejected { return "Apple's identity token was refused: \(error.check.rawValue)" }
        return String(describing: type(of: error))
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        store: any AppleTokenRepository & RateLimitRepository, server: any AppleAuthServer, key: AppleSigningKey?, apple: IDTokenVerifier, box: SecretBox,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.store = store
        self.server = server
        self.key = key
        self.apple = apple
        self.box = box
        self.now = now
        self.logger = logger
    }
}
