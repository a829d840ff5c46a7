import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Logging
import X509

/// The composition root: every service chatterd runs, built once from the configuration and the store,
/// each given only the repositories it uses. `chatterd`, the server tests and ChatterKit's live test
/// server all build it here; `ChatterApp.router` hands each route group the services it calls.
public struct ServerAssembly: Sendable {
    /// The store as a whole: for its lifecycle (`StoreService`) and readiness, never for a route.
    public let store: any ChatterStore
    public let google: IDTokenVerifier
    public let apple: IDTokenVerifier
    public let sessions: SessionService
    /// Checks DPoP proofs (`DPoPMiddleware`).
    public let dpop: DPoPGate
    public let devices: DeviceTokens
    public let admin: AdminService
    let codes: EmailCodeService
    let rules: PasswordRules
    let audit: AuditLog
    let providers: ProviderSignIn
    let signIn: SignInService
    let emailCodes: EmailCodeFlow
    let passwords: PasswordFlow
    let accounts: AccountService
    let emailChange: EmailChange
    let handoffs: WebHandoffs
    let appleNotifications: AppleNotifications
    let appleTokens: AppleTokens
    let timeline: Timeline
    let passkeys: PasskeyService
    let appAttest: AppAttestService
    let secondFactors: SecondFactorService
    let stepUp: StepUp
    public let now: @Sendable () -> Date
    public let logger: Logger

    /// chatterd's services as its configuration describes them. Tests replace only what cannot run here
    /// (the providers' key endpoints and Apple's token service), the mail, the hasher's cost and the clock.
    public init(
        configuration: ServerConfiguration, store: any ChatterStore, mail: any MailTransport, googleKeys: (any JWKSSource)? = nil,
        appleKeys: (any JWKSSource)? = nil, hasher: PasswordHasher? = nil, secondFactorKey: [UInt8]? = nil,
        appleSigningKey: AppleSigningKey? = nil, appleAuth: (any AppleAuthServer)? = nil, appAttestRoot: Certificate? = nil,
        now: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        func keys(_ source: (any JWKSSource)?, default url: String) -> JWKSCache {
            JWKSCache(source: source ?? HTTPJWKSSource(url: url), algorithms: ["RS256"], now: now, logger: logger)
        }
        self.store = store
        self.now = now
        self.logger = logger
        google = IDTokenVerifier(
            provider: .google(clientIDs: configuration.googleAudiences, nonce: configuration.googleNonce),
            keys: keys(googleKeys, default: configuration.googleJWKSURL), now: now)
        apple = IDTokenVerifier(
            provider: .apple(clientIDs: configuration.appleClientIDs), keys: keys(appleKeys, default: configuration.appleJWKSURL), now: now)
        audit = AuditLog(store: store, now: now, logger: logger)
        let profiles = Profiles(store: store)
        var sessions = SessionService(
            store: store, tokenKey: store.tokenKey, lifetimes: configuration.lifetimes, profiles: profiles, audit: audit, now: now)
        sessions.requireBoundKey = configuration.requireDPoP
        self.sessions = sessions
        dpop = DPoPGate(
            verifier: DPoPVerifier(nonces: configuration.dpopNonces ? DPoPNonces(key: store.tokenKey) : nil), proofs: store,
            required: configuration.requireDPoP, now: now)
        devices = DeviceTokens(store: store, now: now)
        rules = PasswordRules(minimumLength: configuration.minimumPasswordLength)
        // Provider sign-in needs Apple's token service, built below with the sealing key.
        // Tests and embedders that keep nothing across restarts may go without a key file: secrets sealed under a
        // key made now open only in this process.
        let box: SecretBox
        if let secondFactorKey {
            // `SecondFactorKey.ensure` reads only keys of the right size: anything else is a caller's mistake.
            guard let sealing = try? SecretBox(key: secondFactorKey) else { preconditionFailure("the second-factor key must be 32 bytes") }
            box = sealing
        } else {
            box = .ephemeral()
        }
        codes = EmailCodeService(store: store, mail: mail, hasher: box.emailCodes, sender: configuration.mailFrom, now: now, logger: logger)
        appleTokens = AppleTokens(
            store: store, server: appleAuth ?? HTTPAppleAuthServer(baseURL: configuration.appleAuthURL), key: appleSigningKey, apple: apple,
            box: box, now: now, logger: logger)
        // One gate for every way an account is created (`--app-attest-sign-up`).
        let signUps = SignUpGate(attestedApps: Set(configuration.appAttestSignUpAppIDs))
        providers = ProviderSignIn(
            google: google, apple: apple, audit: audit, users: store, appleTokens: appleTokens, signUps: signUps, now: now)
        let notices = AccountNotices(users: store, limits: store, mail: mail, sender: configuration.mailFrom, logger: logger, now: now)
        admin = AdminService(store: store, audit: audit, notices: notices, appleTokens: appleTokens, now: now)
        secondFactors = SecondFactorService(
            store: store, box: box, notices: notices, audit: audit, issuer: configuration.relyingParty.name, logger: logger, now: now)
        emailCodes = EmailCodeFlow(users: store, codes: codes, devices: devices, audit: audit, signUps: signUps, now: now)
        stepUp = StepUp(store: store, now: now)
        passwords = PasswordFlow(
            store: store, codes: emailCodes, hasher: hasher ?? PasswordHasher(cost: configuration.bcryptCost), rules: rules,
            throttle: SignInThrottle(store: store, now: now), devices: devices, audit: audit, stepUp: stepUp, secondFactors: secondFactors,
            notices: notices, now: now)
        signIn = SignInService(
            sessionStore: store, sessions: sessions, devices: devices, secondFactors: secondFactors, passwords: passwords,
            rememberDevice: Double(configuration.rememberDeviceDays) * 86_400, audit: audit)
        accounts = AccountService(
            store: store, profiles: profiles, devices: devices, audit: audit, stepUp: stepUp, appleTokens: appleTokens, notices: notices)
        emailChange = EmailChange(store: store, codes: codes, stepUp: stepUp, devices: devices, audit: audit, notices: notices, now: now)
        handoffs = WebHandoffs(store: store, now: now)
        appleNotifications = AppleNotifications(store: store, apple: apple, audit: audit, appleTokens: appleTokens, now: now)
        timeline = Timeline(store: store, now: now)
        passkeys = PasskeyService(
            passkeys: store, users: store, limits: store, accounts: store, emailCodes: emailCodes, secondFactors: secondFactors, stepUp: stepUp,
            verifier: PasskeyVerifier(party: configuration.relyingParty, now: now),
            audit: audit, notices: notices, ceremoniesPerNetwork: configuration.passkeyCeremoniesPerNetwork, now: now)
        // Tests name an authority of their own in place of Apple's root (`SimulatedAppAttest`); chatterd never does.
        appAttest = AppAttestService(
            challenges: store, keys: store, limits: store,
            verifier: appAttestRoot.map { AppAttestVerifier(root: $0, now: now) } ?? AppAttestVerifier(now: now),
            appIDs: configuration.appAttestAppIDs, allowsDevelopment: configuration.appAttestDevelopment, now: now)
    }
}
