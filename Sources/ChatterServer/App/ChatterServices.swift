import ChatterWire
import Foundation
import Logging

/// Everything the routes need, built once per server from the configuration.
public struct ChatterServices: Sendable {
    public let store: any ChatterStore
    public let google: IDTokenVerifier
    public let apple: IDTokenVerifier
    public let sessions: SessionService
    public let codes: EmailCodeService
    public let hasher: PasswordHasher
    public let rules: PasswordRules
    public let throttle: SignInThrottle
    public let devices: DeviceTokens
    public let audit: AuditLog
    public let admin: AdminService
    public let now: @Sendable () -> Date
    public let logger: Logger

    public init(
        store: any ChatterStore, google: IDTokenVerifier, apple: IDTokenVerifier, mail: any MailTransport,
        configuration: ServerConfiguration, hasher: PasswordHasher, now: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.store = store
        self.google = google
        self.apple = apple
        self.sessions = SessionService(store: store, lifetimes: configuration.lifetimes, now: now)
        self.codes = EmailCodeService(store: store, mail: mail, sender: configuration.mailFrom, now: now, logger: logger)
        self.hasher = hasher
        self.rules = PasswordRules(minimumLength: configuration.minimumPasswordLength)
        self.throttle = SignInThrottle(store: store, now: now)
        self.devices = DeviceTokens(store: store, now: now)
        self.audit = AuditLog(store: store, now: now, logger: logger)
        self.admin = AdminService(store: store, audit: audit, now: now)
        self.now = now
        self.logger = logger
    }

    /// chatterd's services as its configuration describes them: the one assembly `chatterd` and both test
    /// targets use. Tests replace only what cannot run here (the providers' key endpoints), the mail and
    /// the clock.
    public init(
        configuration: ServerConfiguration, store: any ChatterStore, mail: any MailTransport, googleKeys: (any JWKSSource)? = nil,
        appleKeys: (any JWKSSource)? = nil, hasher: PasswordHasher? = nil, now: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        func keys(_ source: (any JWKSSource)?, default url: String) -> JWKSCache {
            JWKSCache(source: source ?? HTTPJWKSSource(url: url), algorithms: ["RS256"], now: now, logger: logger)
        }
        self.init(
            store: store,
            google: IDTokenVerifier(
                provider: .google(clientIDs: configuration.googleAudiences, nonce: configuration.googleNonce),
                keys: keys(googleKeys, default: configuration.googleJWKSURL), now: now),
            apple: IDTokenVerifier(
                provider: .apple(clientIDs: configuration.appleClientIDs), keys: keys(appleKeys, default: configuration.appleJWKSURL), now: now),
            mail: mail, configuration: configuration, hasher: hasher ?? PasswordHasher(cost: configuration.bcryptCost), now: now, logger: logger)
    }

    /// The user as the native API shows them.
    /// `account`: the user's account when the caller has read it already.
    public func profile(_ user: User, account known: AccountSummary? = nil) async throws -> UserProfile {
        let account = if let known { known } else { try await store.accountSummary(userID: user.id) }
        let identities = account.identities
        var methods = identities.map { identity -> String in
            switch identity.key.issuer {
            case IdentityKey.emailIssuer: "email"
            case "https://appleid.apple.com": "apple"
            default: "google"
            }
        }
        if account.hasPassword { methods.append("password") }
        let verified = identities.first { $0.emailVerified && $0.email != nil }
        let email = verified ?? identities.first { $0.email != nil }
        return UserProfile(
            id: user.id.text, displayName: user.displayName, email: email?.email, emailVerified: verified != nil,
            name: user.name, methods: Array(Set(methods)).sorted())
    }
}
