import ChatterCore
import ChatterWire
import Foundation

/// The end of every sign-in (`SignInFlow`), whichever method proved it and whoever asked: ask for the
/// second factor when the account has one and the sign-in did not pass it, start a session of the kind the
/// surface keeps (the store refuses a disabled or deleted account there, in the same step), audit it (or the
/// operator's refusal), and give a device that proved an address its device token.
package struct SignInService: Sendable {
    /// Only to end the browser's previous session when it signs in again.
    package let sessionStore: any SessionRepository
    package let sessions: SessionService
    package let devices: DeviceTokens
    package let secondFactors: SecondFactorService
    /// Sets a password that waited for the second step (a reset on an account with a second factor).
    package let passwords: PasswordFlow
    /// How long a device that passed the second step, and asked, skips it (`--remember-device`); 0: never.
    package var rememberDevice: Double = 30 * 86_400
    package let audit: AuditLog

    /// A browser's cookie session lasts this long; it cannot be refreshed.
    package static let browserLifetime: Double = 7 * 86_400

    /// A browser's new session: the cookie's token, and the device token when the sign-in proved an address.
    package struct BrowserSession: Sendable {
        package var token: String
        package var lifetime: Double
        package var deviceToken: String?
    }

    /// Throws `SecondFactorError.required` (with a waiting sign-in when `waiting`) when the account has a second
    /// factor and `flow` has not passed one, unless the device (presenting its token for the address the
    /// sign-in proved) passed it before and is remembered. Answers the factor the session records.
    package func requireSecondFactor(_ flow: SignInFlow, waiting: Bool = true, client: ClientInfo) async throws -> SecondFactorKind? {
        guard flow.secondFactor == nil, try await secondFactors.isEnabled(for: flow.user.id) else { return flow.secondFactor }
        if let email = flow.email, try await devices.remembersSecondFactor(flow.device, for: email) { return .rememberedDevice }
        throw SecondFactorError.required(
            waiting ? try await secondFactors.challenge(flow.user, method: flow.method, email: flow.email, client: client) : nil)
    }

    /// After a second step that asked to remember the device: its device token for `email` skips the step for
    /// `rememberDevice`, or until the account's credentials change.
    private func remember(_ deviceToken: String?, for email: String?, if asked: Bool) async throws {
        guard asked, rememberDevice > 0, let deviceToken, let email else { return }
        try await devices.rememberSecondFactor(deviceToken, for: email, seconds: rememberDevice)
    }

    /// Ends `flow` for an app: a native session (access and refresh token), and the device token for the
    /// address it proved. Without a second factor passed, an account that has one gets `second_factor_required`.
    package func native(_ flow: SignInFlow, client: ClientInfo) async throws -> SessionResponse {
        let secondFactor = try await requireSecondFactor(flow, client: client)
        var response = try await audit.signIn(user: flow.user.id, method: flow.method, client: client, secondFactor: secondFactor) {
            try await sessions.start(
                user: flow.user, method: flow.method, client: client, profile: try await sessions.profiles.profile(flow.user, account: flow.account),
                secondFactor: secondFactor)
        }
        if let email = flow.email { response.deviceToken = try await devices.issue(for: email, presented: flow.device) }
        try await remember(response.deviceToken, for: flow.email, if: flow.rememberDevice)
        return response
    }

    /// The second step, for every surface: `code` completes the waiting sign-in `token` (once), and what the
    /// first factor asked to change and waited for it (a new password) changes now, before any session starts.
    /// Answers the flow to end, on the surface that asked, with the device's `deviceToken`.
    package func completeSecondStep(token: String, code: String, device: String?, rememberDevice: Bool, client: ClientInfo) async throws -> SignInFlow {
        let (step, user, factor) = try await secondFactors.complete(token: token, code: code, client: client)
        if let hash = step.newPasswordHash { try await passwords.setPassword(hash, for: user, client: client, replacing: .secondStep) }
        return SignInFlow(
            user: user, method: SignInMethod(rawValue: step.method) ?? .password, email: step.email, device: device, secondFactor: factor,
            rememberDevice: rememberDevice)
    }

    /// Ends `flow` for the course API: one chatterID that cannot be refreshed, living `sessions.lifetimes.course`.
    /// The course API has no second step, so an account with a second factor is refused with `second_factor_required`.
    package func course(_ flow: SignInFlow, client: ClientInfo) async throws -> (token: SessionToken, lifetime: Double) {
        _ = try await requireSecondFactor(flow, waiting: false, client: client)
        let lifetime = sessions.lifetimes.course
        let token = try await audit.signIn(user: flow.user.id, method: flow.method, client: client) {
            try await sessions.startUnrefreshable(user: flow.user, method: flow.method, lifetime: lifetime, client: client)
        }
        return (token, lifetime)
    }

    /// Ends `flow` for a browser: a cookie session, ending the one it had (`replacing`).
    package func browser(_ flow: SignInFlow, client: ClientInfo, replacing previous: AuthenticatedSession?) async throws -> BrowserSession {
        // A hand-off continues a signed-in app's session, whose own sign-in answered for the second factor.
        let secondFactor = flow.method == .web ? flow.secondFactor : try await requireSecondFactor(flow, client: client)
        if let previous { _ = try await sessionStore.revokeSession(id: previous.sessionID, userID: previous.user.id) }
        let token = try await audit.signIn(user: flow.user.id, method: flow.method, client: client, secondFactor: secondFactor) {
            try await sessions.startUnrefreshable(
                user: flow.user, method: flow.method, lifetime: Self.browserLifetime, client: client, secondFactor: secondFactor)
        }
        let deviceToken = try await flow.email.asyncMap { try await devices.issue(for: $0, presented: flow.device) }
        try await remember(deviceToken, for: flow.email, if: flow.rememberDevice)
        return BrowserSession(token: token.secret, lifetime: Self.browserLifetime, deviceToken: deviceToken)
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        sessionStore: any SessionRepository, sessions: SessionService, devices: DeviceTokens, secondFactors: SecondFactorService, passwords: PasswordFlow,
        rememberDevice: Double = 30 * 86_400, audit: AuditLog
    ) {
        self.sessionStore = sessionStore
        self.sessions = sessions
        self.devices = devices
        self.secondFactors = secondFactors
        self.passwords = passwords
        self.rememberDevice = rememberDevice
        self.audit = audit
    }
}
