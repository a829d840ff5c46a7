import Foundation
import Logging

/// Sign in with Apple's tokens, kept so the account's deletion can revoke them, as App Store Review
/// Guideline 5.1.1(v) and Apple's TN3194 expect: the authorization code the app sends with its first
/// sign-in is exchanged for a refresh token, kept sealed, and revoked at Apple when the account is deleted
/// (by its user, an operator, or Apple's `account-delete` notification) or Apple says its Apple ID stopped
/// using the app.
struct AppleTokens: Sendable {
    let store: any AppleTokenRepository
    let server: any AppleAuthServer
    /// nil: chatterd has no key (`--apple-team-id`, `--apple-key-id`, `--apple-private-key`), so it keeps nothing.
    let key: AppleSigningKey?
    let apple: IDTokenVerifier
    let box: SecretBox
    let now: @Sendable () -> Date
    let logger: Logger

    /// Tokens revoked per pass: a pass is bounded, the next purge takes the rest.
    static let revokedPerPass = 100

    /// After an Apple sign-in of `identity` to `userID`: exchanges the app's authorization code and keeps
    /// the refresh token, unless one is kept already. Never fails the sign-in, which Apple's identity token
    /// proved: a code that cannot be exchanged is logged, and the next sign-in's code is tried.
    func keep(code: String?, for identity: VerifiedIdentity, userID: UUID) async {
        guard let code, let key, let clientID = identity.audience else { return }
        do {
            if try await store.hasAppleToken(subject: identity.subject, clientID: clientID) { return }
            let secret = try await AppleClientSecret.make(for: clientID, with: key, at: now())
            let grant = try await server.exchange(code: code, clientID: clientID, clientSecret: secret)
            // The answer's identity token must be the same Apple ID's: a code of another Apple ID sent with this
            // one's token must not put another person's token on this account.
            let granted = try await apple.verify(grant.idToken, clientID: clientID, nonce: .notChecked)
            guard granted.subject == identity.subject, let refreshToken = grant.refreshToken else {
                logger.warning("Apple's token for an authorization code is not the signed-in Apple ID's; not kept")
                return
            }
            let sealed = try box.sealAppleToken(refreshToken, subject: identity.subject, clientID: clientID)
            _ = try await store.keepAppleToken(
                AppleTokenRecord(subject: identity.subject, clientID: clientID, userID: userID, sealedToken: sealed, keptAt: now()))
        } catch {
            logger.warning("Apple's authorization code was not exchanged", metadata: ["error": "\(Self.describe(error))"])
        }
    }

    /// Apple said the Apple ID stopped using the app, or was deleted: its tokens are revoked like a deleted
    /// account's.
    func release(subject: String) async throws {
        try await store.releaseAppleTokens(subject: subject)
        await revokePending()
    }

    /// Revokes the tokens whose account is gone, forgetting each Apple has revoked or no longer knows. One that
    /// cannot be revoked now (Apple unreachable, chatterd without its key) waits for the next pass. Returns how
    /// many were revoked.
    @discardableResult
    func revokePending() async -> Int {
        let pending: [AppleTokenRecord]
        do { pending = try await store.appleTokensToRevoke(limit: Self.revokedPerPass) } catch {
            logger.warning("Apple tokens to revoke could not be read", metadata: ["error": "\(error)"])
            return 0
        }
        guard !pending.isEmpty else { return 0 }
        guard let key else {
            logger.warning("Apple tokens wait to be revoked, but chatterd has no Sign in with Apple key", metadata: ["count": "\(pending.count)"])
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
}
