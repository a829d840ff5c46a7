import ChatterCore
import ChatterWire
import Foundation
import Logging

/// Sign in with Apple's server-to-server notifications: a signed JWT whose `events` claim says what the
/// user did with their Apple ID. Each is acted on once.
package struct AppleNotifications: Sendable {
    package typealias Store = NotificationRepository & UserRepository & SessionRepository

    /// The types Apple sends; anything else is logged and ignored.
    package enum Kind: String, Decodable {
        case consentRevoked = "consent-revoked"
        case accountDelete = "account-delete"
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
    }

    package struct Event: Decodable {
        package var type: String
        package var sub: String
    }

    let store: any Store
    package let apple: IDTokenVerifier
    package let audit: AuditLog
    package let appleTokens: AppleTokens
    package let now: @Sendable () -> Date

    package func receive(_ payload: String, client: ClientInfo, logger: Logger) async throws {
        let verified: VerifiedIdentity
        do {
            verified = try await apple.verify(payload, requireSubject: false)
        } catch {
            throw SignInError.tokenRejected(error, provider: "Apple")
        }
        // fail-closed: events that do not decode throw unreadableNotification: nothing is acted on
        guard let json = verified.events, let event = try? JSONDecoder().decode(Event.self, from: Data(json.utf8)) else {
            throw SignInError.unreadableNotification
        }
        // Apple may deliver a notification again, and anyone who saw one could replay it: each is acted on
        // once, remembered by its `jti` (or, lacking one, its digest) until it expires and would be refused
        // anyway — a day at least, a month at most.
        let id = verified.tokenID ?? Hex.encode(SessionToken.hash(payload))
        let instant = now().timeIntervalSince1970
        let until = min(max(verified.expiresAt ?? 0, instant + 86_400), instant + 30 * 86_400)
        guard try await store.markNotificationSeen(jti: id, expiresAt: Date(timeIntervalSince1970: until)) else {
            logger.info("ignored an Apple notification already processed")
            return
        }
        let key = IdentityKey(issuer: verified.issuer, subject: event.sub)
        let kind = Kind(rawValue: event.type)
        switch kind {
        case .consentRevoked:
            // The user stopped using Sign in with Apple with this app: end the sessions it started.
            if let user = try await store.user(for: key) {
                try await store.revokeSessions(of: user.id, method: SignInMethod.apple.rawValue)
                await audit.record(.appleConsentRevoked, user: user.id, method: .apple, client: client)
            }
            try await appleTokens.release(subject: event.sub)
        case .accountDelete:
            if let userID = try await store.deleteIdentity(key) {
                try await store.revokeSessions(of: userID, method: SignInMethod.apple.rawValue)
                await audit.record(.appleAccountDeleted, user: userID, method: .apple, client: client)
            }
            // The Apple ID is gone, and with it what Apple issued for it; revoking answers either way, and the
            // tokens are not kept beyond it.
            try await appleTokens.release(subject: event.sub)
        case .emailDisabled, .emailEnabled:
            let user = try await store.user(for: key)
            try await store.setEmailForwarding(key, enabled: kind == .emailEnabled)
            await audit.record(.appleEmailChanged, user: user?.id, method: .apple, client: client, detail: event.type)
        case nil:
            logger.info("ignored an Apple notification", metadata: ["type": "\(event.type)"])
        }
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(store: any Store, apple: IDTokenVerifier, audit: AuditLog, appleTokens: AppleTokens, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.apple = apple
        self.audit = audit
        self.appleTokens = appleTokens
        self.now = now
    }
}
