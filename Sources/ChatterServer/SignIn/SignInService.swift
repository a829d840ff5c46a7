import ChatterWire
import Foundation

/// The end of every successful sign-in, whichever method proved it and whoever asked: ask for the second
/// factor when the account has one and the sign-in did not pass it, then find or create the account, start
/// a session of the kind the client keeps, audit it (or the operator's refusal), and give a device that
/// proved an address its device token.
struct SignInService: Sendable {
    let users: any UserRepository
    /// Only to end the browser's previous session when it signs in again.
    let sessionStore: any SessionRepository
    let sessions: SessionService
    let devices: DeviceTokens
    let secondFactors: SecondFactorService
    /// Sets a password that waited for the second step (a reset on an account with a second factor).
    let passwords: PasswordFlow
    /// How long a device that passed the second step, and asked, skips it (`--remember-device`); 0: never.
    var rememberDevice: Double = 30 * 86_400
    let audit: AuditLog
    let now: @Sendable () -> Date

    /// A browser's cookie session lasts this long; it cannot be refreshed.
    static let browserLifetime: Double = 7 * 86_400

    /// A browser's new session: the cookie's token, and the device token when the sign-in proved an address.
    struct BrowserSession: Sendable {
        var token: String
        var lifetime: Double
        var deviceToken: String?
    }

    /// The account `claims` name, linked or created (`UserRepository.signIn`).
    func account(_ claims: IdentityClaims, fallbackName: String = DisplayName.missing) async throws -> User {
        try await users.signIn(claims, fallbackName: fallbackName, at: now())
    }

    /// Throws `SecondFactorError.required` (with a waiting sign-in when `waiting`) when `user` has a second
    /// factor and this sign-in (`secondFactor`) has not passed one, unless the device (`presenting` its token
    /// for the address the sign-in proved) passed it before and is remembered. Answers the factor the session
    /// records.
    func requireSecondFactor(
        _ user: User, method: SignInMethod, email: String?, presenting token: String? = nil, passed secondFactor: SecondFactorKind?,
        waiting: Bool = true
    ) async throws -> SecondFactorKind? {
        guard secondFactor == nil, try await secondFactors.isEnabled(for: user.id) else { return secondFactor }
        if let email, try await devices.remembersSecondFactor(token, for: email) { return .rememberedDevice }
        throw SecondFactorError.required(waiting ? try await secondFactors.challenge(user, method: method, email: email) : nil)
    }

    /// After a second step that asked to remember the device: its device token for `email` skips the step for
    /// `rememberDevice`, or until the account's credentials change.
    private func remember(_ deviceToken: String?, for email: String?, if asked: Bool) async throws {
        guard asked, rememberDevice > 0, let deviceToken, let email else { return }
        try await devices.rememberSecondFactor(deviceToken, for: email, seconds: rememberDevice)
    }

    /// A native session (access and refresh token) for `user`. `deviceFor`: the address this sign-in proved,
    /// for which the device gets a device token (`presenting` its current one keeps it).
    /// `account`: the user's account summary when the sign-in read it already (a passkey's), else it is read here.
    /// `secondFactor`: what this sign-in passed besides its method; without one, an account with a second
    /// factor gets `second_factor_required`.
    func native(
        _ user: User, method: SignInMethod, client: ClientInfo, deviceFor email: String? = nil, presenting token: String? = nil,
        account: AccountSummary? = nil, secondFactor passed: SecondFactorKind? = nil, rememberDevice: Bool = false
    ) async throws -> SessionResponse {
        let secondFactor = try await requireSecondFactor(user, method: method, email: email, presenting: token, passed: passed)
        var response = try await audit.signIn(user: user.id, method: method, client: client, secondFactor: secondFactor) {
            try await sessions.start(
                user: user, method: method, client: client, profile: try await sessions.profiles.profile(user, account: account), secondFactor: secondFactor)
        }
        if let email { response.deviceToken = try await devices.issue(for: email, presented: token) }
        try await remember(response.deviceToken, for: email, if: rememberDevice)
        return response
    }

    /// The second step, for every surface: `code` completes the waiting sign-in `token` (once), and what the
    /// first factor asked to change and waited for it (a new password) changes now, before any session starts.
    func completeSecondStep(token: String, code: String, client: ClientInfo) async throws -> (step: PendingSecondStep, user: User, factor: SecondFactorKind) {
        let (step, user, factor) = try await secondFactors.complete(token: token, code: code, client: client)
        if let hash = step.newPasswordHash { try await passwords.setPassword(hash, for: user, client: client, replacing: .secondStep) }
        return (step, user, factor)
    }

    /// The second step of a native sign-in: `code` completes the waiting sign-in `token`.
    /// `rememberDevice`: the device's token for the address skips the step from now on (`rememberDevice` seconds).
    func nativeSecondStep(token: String, code: String, deviceToken: String?, rememberDevice: Bool = false, client: ClientInfo) async throws
        -> SessionResponse
    {
        let (step, user, factor) = try await completeSecondStep(token: token, code: code, client: client)
        return try await native(
            user, method: SignInMethod(rawValue: step.method) ?? .password, client: client, deviceFor: step.email, presenting: deviceToken,
            secondFactor: factor, rememberDevice: rememberDevice)
    }

    /// A course chatterID: one token that cannot be refreshed, living `sessions.lifetimes.course`. The course
    /// API has no second step, so an account with a second factor is refused with `second_factor_required`.
    func course(_ user: User, method: SignInMethod, client: ClientInfo) async throws -> (token: SessionToken, lifetime: Double) {
        _ = try await requireSecondFactor(user, method: method, email: nil, passed: nil, waiting: false)
        let lifetime = sessions.lifetimes.course
        let token = try await audit.signIn(user: user.id, method: method, client: client) {
            try await sessions.startUnrefreshable(user: user, method: method, lifetime: lifetime, client: client)
        }
        return (token, lifetime)
    }

    /// A browser's cookie session, ending the one it had (`replacing`).
    func browser(
        _ user: User, method: SignInMethod, client: ClientInfo, deviceFor email: String? = nil, presenting device: String? = nil,
        replacing previous: AuthenticatedSession?, secondFactor passed: SecondFactorKind? = nil, rememberDevice: Bool = false
    ) async throws -> BrowserSession {
        // A hand-off continues a signed-in app's session, whose own sign-in answered for the second factor.
        let secondFactor =
            method == .web ? passed : try await requireSecondFactor(user, method: method, email: email, presenting: device, passed: passed)
        if let previous { _ = try await sessionStore.revokeSession(id: previous.sessionID, userID: previous.user.id) }
        let token = try await audit.signIn(user: user.id, method: method, client: client, secondFactor: secondFactor) {
            try await sessions.startUnrefreshable(
                user: user, method: method, lifetime: Self.browserLifetime, client: client, secondFactor: secondFactor)
        }
        let deviceToken = try await email.asyncMap { try await devices.issue(for: $0, presented: device) }
        try await remember(deviceToken, for: email, if: rememberDevice)
        return BrowserSession(token: token.secret, lifetime: Self.browserLifetime, deviceToken: deviceToken)
    }
}
