import ChatterWire
import Foundation

/// The end of every successful sign-in, whichever method proved it and whoever asked: find or create the
/// account, start a session of the kind the client keeps, audit it (or the operator's refusal), and give a
/// device that proved an address its device token.
struct SignInService: Sendable {
    let users: any UserRepository
    /// Only to end the browser's previous session when it signs in again.
    let sessionStore: any SessionRepository
    let sessions: SessionService
    let devices: DeviceTokens
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

    /// A native session (access and refresh token) for `user`. `deviceFor`: the address this sign-in proved,
    /// for which the device gets a device token (`presenting` its current one keeps it).
    /// `account`: the user's account summary when the sign-in read it already (a passkey's), else it is read here.
    func native(
        _ user: User, method: SignInMethod, client: ClientInfo, deviceFor email: String? = nil, presenting token: String? = nil,
        account: AccountSummary? = nil
    ) async throws -> SessionResponse {
        var response = try await audit.signIn(user: user.id, method: method, client: client) {
            try await sessions.start(user: user, method: method, client: client, profile: try await sessions.profiles.profile(user, account: account))
        }
        if let email { response.deviceToken = try await devices.issue(for: email, presented: token) }
        return response
    }

    /// A course chatterID: one token that cannot be refreshed, living `sessions.lifetimes.course`.
    func course(_ user: User, method: SignInMethod, client: ClientInfo) async throws -> (token: SessionToken, lifetime: Double) {
        let lifetime = sessions.lifetimes.course
        let token = try await audit.signIn(user: user.id, method: method, client: client) {
            try await sessions.startUnrefreshable(user: user, method: method, lifetime: lifetime, client: client)
        }
        return (token, lifetime)
    }

    /// A browser's cookie session, ending the one it had (`replacing`).
    func browser(
        _ user: User, method: SignInMethod, client: ClientInfo, deviceFor email: String? = nil, presenting device: String? = nil,
        replacing previous: AuthenticatedSession?
    ) async throws -> BrowserSession {
        if let previous { _ = try await sessionStore.revokeSession(id: previous.sessionID, userID: previous.user.id) }
        let token = try await audit.signIn(user: user.id, method: method, client: client) {
            try await sessions.startUnrefreshable(user: user, method: method, lifetime: Self.browserLifetime, client: client)
        }
        let deviceToken = try await email.asyncMap { try await devices.issue(for: $0, presented: device) }
        return BrowserSession(token: token.secret, lifetime: Self.browserLifetime, deviceToken: deviceToken)
    }
}
