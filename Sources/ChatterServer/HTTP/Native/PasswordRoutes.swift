import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Email and password (F2): sign-up and reset prove the address with an emailed code; sign-in is
/// throttled and answers alike, and takes alike, for unknown accounts and wrong passwords.
struct PasswordRoutes {
    let services: ChatterServices
    let authenticator: Authenticator

    func register(on router: Router<ChatterRequestContext>) {
        router.get(RouterPath(NativePath.passwordPolicy)) { _, _ in JSONResponse.make(services.rules.policy) }
        router.post(RouterPath(NativePath.passwordSignUp)) { request, context in try await signUp(request, context) }
        router.post(RouterPath(NativePath.passwordSignIn)) { request, context in try await signIn(request, context) }
        router.post(RouterPath(NativePath.passwordReset)) { request, context in try await reset(request, context) }
        router.post(RouterPath(NativePath.passwordChange)) { request, context in try await change(request, context) }
    }

    /// Sign-up on an address that already has a password is a reset: the code proved the address, so
    /// the new password replaces the old one and every other session of the account ends, audited.
    func signUp(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordSignUpRequest.self, context: context)
        let email = try EmailCodeRoutes.address(body.email)
        try check(body.password, email: email)
        if let name = body.displayName, name.exceeds(Limits.nameCharacters) {
            throw APIError.tooLong("\"displayName\" is longer than \(Limits.nameCharacters) characters.")
        }
        let client = context.client(request)
        try await EmailCodeRoutes.redeem(services, body.code, for: email, method: "password", client: client)
        let hash = try await hashed(body.password)
        let display = body.displayName.flatMap(CourseRoutes.displayName) ?? String(email.split(separator: "@")[0])
        let user = try await services.store.signIn(
            IdentityClaims(key: .email(email), displayName: body.displayName == nil ? nil : display, email: email, emailVerified: true),
            fallbackName: display, at: services.now())
        try await setPassword(hash, for: user, client: client, replacing: .signUp)
        return try await SignIn(services: services).start(user, method: "password", client: client, deviceFor: email)
    }

    /// Every attempt is counted before the password is hashed; a device that signed in to the address
    /// before draws on its own allowance (see `SignInThrottle`).
    func signIn(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordSignInRequest.self, context: context)
        let client = context.client(request)
        // No account can have an invalid address, so refusing it at once tells an attacker nothing.
        guard let email = EmailAddress.normalize(body.email) else { throw Self.wrongCredentials }
        let device = try await services.devices.device(body.deviceToken, for: email)
        let admission = try await services.throttle.admit(account: "email:\(email)", ip: client.ip, device: device)
        guard case .allowed(let ticket) = admission else {
            throw APIError.tooMany(retryAfter: admission.wait, "Too many failed sign-ins; try again later or sign in with an emailed code.")
        }
        guard body.password.utf8.count <= services.rules.maximumBytes else { throw Self.wrongCredentials }
        let user = try await services.store.user(for: .email(email))
        let stored = try await user.asyncMap { try await services.store.passwordHash(userID: $0.id) } ?? nil
        let matches = try await checked(body.password, against: stored, ticket)
        guard matches, let user else {
            await services.audit.record(.signInFailed, user: stored == nil ? nil : user?.id, method: "password", client: client)
            throw Self.wrongCredentials
        }
        try await services.throttle.release(ticket)
        return try await SignIn(services: services).start(user, method: "password", client: client, deviceFor: email)
    }

    /// "Forgot password": the emailed code proves the address; every session of the account ends.
    func reset(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordResetRequest.self, context: context)
        let email = try EmailCodeRoutes.address(body.email)
        try check(body.newPassword, email: email)
        let client = context.client(request)
        try await EmailCodeRoutes.redeem(services, body.code, for: email, method: "password", client: client)
        let hash = try await hashed(body.newPassword)
        let user = try await services.store.signIn(
            IdentityClaims(key: .email(email), email: email, emailVerified: true),
            fallbackName: String(email.split(separator: "@")[0]), at: services.now())
        try await setPassword(hash, for: user, client: client, replacing: .reset)
        return try await SignIn(services: services).start(user, method: "password", client: client, deviceFor: email)
    }

    enum Replacement { case signUp, reset }

    /// Sets `user`'s password. Replacing one (a reset, or a sign-up on an address that had one) ends
    /// every session of the account and is audited as a reset.
    func setPassword(_ hash: String, for user: User, client: ClientInfo, replacing: Replacement) async throws {
        let had = try await services.store.passwordHash(userID: user.id) != nil
        try await services.store.setPasswordHash(hash, userID: user.id, at: services.now())
        guard had || replacing == .reset else { return }
        let revoked = try await services.store.revokeSessions(of: user.id, except: nil)
        await services.audit.record(
            .passwordReset, user: user.id, method: "password", client: client,
            detail: "\(replacing == .signUp ? "sign-up on an address with a password" : "reset"); revoked \(revoked) sessions")
    }

    /// Signed in; revokes the user's other sessions. Attempts are throttled like sign-ins (counted before
    /// hashing), and a wrong current password is audited.
    func change(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        let body = try await request.decodeJSON(PasswordChangeRequest.self, context: context)
        let client = context.client(request)
        let identities = try await services.store.identities(of: session.user.id)
        let email = identities.first { $0.key.issuer == IdentityKey.emailIssuer }?.key.subject
        try check(body.newPassword, email: email)
        let admission = try await services.throttle.admit(account: "user:\(session.user.id.uuidString)", ip: client.ip, device: nil)
        guard case .allowed(let ticket) = admission else {
            throw APIError.tooMany(retryAfter: admission.wait, "Too many wrong passwords; try again later or reset the password with an emailed code.")
        }
        let stored = try await services.store.passwordHash(userID: session.user.id)
        guard body.currentPassword.utf8.count <= services.rules.maximumBytes,
            try await checked(body.currentPassword, against: stored, ticket), stored != nil
        else {
            await services.audit.record(.passwordChangeFailed, user: session.user.id, method: "password", client: client)
            throw APIError(.forbidden, "wrong_password", "The current password is not right.")
        }
        try await services.throttle.release(ticket)
        try await services.store.setPasswordHash(try await hashed(body.newPassword), userID: session.user.id, at: services.now())
        let revoked = try await services.store.revokeSessions(of: session.user.id, except: session.sessionID)
        await services.audit.record(
            .passwordChanged, user: session.user.id, method: "password", client: client, detail: "revoked \(revoked) other sessions")
        return Response(status: .noContent)
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
    /// busy), the attempt is handed back, since no guess was evaluated.
    func checked(_ password: String, against hash: String?, _ ticket: SignInThrottle.Ticket) async throws -> Bool {
        do {
            return try await services.hasher.verify(password, against: hash)
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
