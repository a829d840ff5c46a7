import ChatterWire
import Foundation

/// Email and password (F2), for the native API and the web pages alike: sign-up and reset prove the
/// address with an emailed code; sign-in is throttled and answers alike, and takes alike, for unknown
/// accounts and wrong passwords. Each step returns the signed-in user and the address it proved.
struct PasswordFlow {
    let services: ChatterServices

    /// Sign-up on an address that already has a password is a reset: the code proved the address, so
    /// the new password replaces the old one and every other session of the account ends, audited.
    func signUp(email raw: String, password: String, displayName: String?, code: String, client: ClientInfo) async throws -> (User, String) {
        let email = try EmailCodeFlow.address(raw)
        try check(password, email: email)
        if let displayName, displayName.exceeds(Limits.nameCharacters) {
            throw APIError.tooLong("\"displayName\" is longer than \(Limits.nameCharacters) characters.")
        }
        try await EmailCodeFlow(services: services).redeem(code, for: email, method: "password", client: client)
        let hash = try await hashed(password)
        let display = displayName.flatMap(CourseRoutes.displayName) ?? String(email.split(separator: "@")[0])
        let user = try await services.store.signIn(
            IdentityClaims(key: .email(email), displayName: displayName == nil ? nil : display, email: email, emailVerified: true),
            fallbackName: display, at: services.now())
        try await setPassword(hash, for: user, client: client, replacing: .signUp)
        return (user, email)
    }

    /// Every attempt is counted before the password is hashed; a device that signed in to the address
    /// before draws on its own allowance (see `SignInThrottle`).
    func signIn(email raw: String, password: String, deviceToken: String?, client: ClientInfo) async throws -> (User, String) {
        // No account can have an invalid address, so refusing it at once tells an attacker nothing.
        guard let email = EmailAddress.normalize(raw) else { throw Self.wrongCredentials }
        let device = try await services.devices.device(deviceToken, for: email)
        let admission = try await services.throttle.admit(account: "email:\(email)", networks: client.limitKeys, device: device)
        guard case .allowed(let ticket) = admission else {
            throw APIError.tooMany("password_sign_in", retryAfter: admission.wait, "Too many failed sign-ins; try again later or sign in with an emailed code.")
        }
        guard password.utf8.count <= services.rules.maximumBytes else { throw Self.wrongCredentials }
        let user = try await services.store.user(for: .email(email))
        let stored = try await user.asyncMap { try await services.store.passwordHash(userID: $0.id) } ?? nil
        let matches = try await checked(password, against: stored, ticket, lane: device == nil ? .stranger : .recognised, owner: "email:\(email)")
        guard matches, let user else {
            await services.audit.record(.signInFailed, user: stored == nil ? nil : user?.id, method: "password", client: client)
            throw Self.wrongCredentials
        }
        try await services.throttle.release(ticket)
        return (user, email)
    }

    /// "Forgot password": the emailed code proves the address; every session of the account ends.
    func reset(email raw: String, newPassword: String, code: String, client: ClientInfo) async throws -> (User, String) {
        let email = try EmailCodeFlow.address(raw)
        try check(newPassword, email: email)
        try await EmailCodeFlow(services: services).redeem(code, for: email, method: "password", client: client)
        let hash = try await hashed(newPassword)
        let user = try await services.store.signIn(
            IdentityClaims(key: .email(email), email: email, emailVerified: true),
            fallbackName: String(email.split(separator: "@")[0]), at: services.now())
        try await setPassword(hash, for: user, client: client, replacing: .reset)
        return (user, email)
    }

    enum Replacement { case signUp, reset }

    /// Sets `user`'s password. Replacing one (a reset, or a sign-up on an address that had one) ends
    /// every session of the account and is audited as a reset. A disabled account's password is left as
    /// it is (the session insert would refuse the sign-in anyway; this keeps the refusal from changing it).
    func setPassword(_ hash: String, for user: User, client: ClientInfo, replacing: Replacement) async throws {
        if try await services.store.account(id: user.id)?.disabledAt != nil {
            await services.audit.record(.signInFailed, user: user.id, method: "password", client: client, detail: "account_disabled")
            throw StoreError.accountDisabled
        }
        let had = try await services.store.passwordHash(userID: user.id) != nil
        try await services.store.setPasswordHash(hash, userID: user.id, at: services.now())
        guard had || replacing == .reset else { return }
        let revoked = try await services.store.revokeSessions(of: user.id, except: nil)
        try await services.devices.endAll(of: user.id)
        await services.audit.record(
            .passwordReset, user: user.id, method: "password", client: client,
            detail: "\(replacing == .signUp ? "sign-up on an address with a password" : "reset"); revoked \(revoked) sessions")
    }

    static let wrongCredentials = APIError(.unauthorized, "invalid_credentials", "The email or password is not right.")

    func check(_ password: String, email: String?) throws {
        if let problem = services.rules.problem(with: password, email: email) {
            throw APIError(.badRequest, "weak_password", problem)
        }
    }

    func hashed(_ password: String) async throws -> String {
        do { return try await services.hasher.hash(password) } catch is PasswordHasher.Busy { throw Self.busy }
    }

    /// Checks `password` for an attempt the throttle admitted. When the check cannot run (the hasher is
    /// busy), the attempt is handed back, since no guess was evaluated: a refusal for capacity never
    /// counts against the account.
    func checked(
        _ password: String, against hash: String?, _ ticket: SignInThrottle.Ticket, lane: PasswordHasher.Lane = .recognised, owner: String? = nil
    ) async throws -> Bool {
        do {
            return try await services.hasher.verify(password, against: hash, lane: lane, owner: owner)
        } catch {
            try? await services.throttle.release(ticket)
            throw error is PasswordHasher.Busy ? Self.busy : error
        }
    }

    static let busy = APIError(.serviceUnavailable, "busy", "Too many sign-ins at once; try again in a moment.").with(.retryAfter, "1")
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
