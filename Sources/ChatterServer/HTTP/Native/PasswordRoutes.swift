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
        try await services.store.setPasswordHash(hash, userID: user.id, at: services.now())
        return try await SignIn(services: services).start(user, method: "password", client: client)
    }

    func signIn(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordSignInRequest.self, context: context)
        let client = context.client(request)
        let email = EmailAddress.normalize(body.email) ?? body.email.lowercased()
        if let wait = try await services.throttle.delay(email: email, ip: client.ip) {
            throw APIError.tooMany(retryAfter: wait, "Too many failed sign-ins; try again later or sign in with an emailed code.")
        }
        guard body.password.utf8.count <= services.rules.maximumBytes else { throw Self.wrongCredentials }
        let user = try await services.store.user(for: .email(email))
        let stored = try await user.asyncMap { try await services.store.passwordHash(userID: $0.id) } ?? nil
        let matches = try await verified(body.password, against: stored)
        guard matches, let user else {
            try await services.throttle.failed(email: email, ip: client.ip)
            await services.audit.record(.signInFailed, user: stored == nil ? nil : user?.id, method: "password", client: client)
            throw Self.wrongCredentials
        }
        try await services.throttle.succeeded(email: email)
        return try await SignIn(services: services).start(user, method: "password", client: client)
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
        try await services.store.setPasswordHash(hash, userID: user.id, at: services.now())
        try await services.store.revokeSessions(of: user.id, except: nil)
        try await services.throttle.succeeded(email: email)
        await services.audit.record(.passwordReset, user: user.id, method: "password", client: client)
        return try await SignIn(services: services).start(user, method: "password", client: client)
    }

    /// Signed in; revokes the user's other sessions.
    func change(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        let body = try await request.decodeJSON(PasswordChangeRequest.self, context: context)
        let identities = try await services.store.identities(of: session.user.id)
        let email = identities.first { $0.key.issuer == IdentityKey.emailIssuer }?.key.subject
        try check(body.newPassword, email: email)
        let stored = try await services.store.passwordHash(userID: session.user.id)
        guard body.currentPassword.utf8.count <= services.rules.maximumBytes,
            try await verified(body.currentPassword, against: stored), stored != nil
        else {
            throw APIError(.forbidden, "wrong_password", "The current password is not right.")
        }
        try await services.store.setPasswordHash(try await hashed(body.newPassword), userID: session.user.id, at: services.now())
        let revoked = try await services.store.revokeSessions(of: session.user.id, except: session.sessionID)
        await services.audit.record(
            .passwordChanged, user: session.user.id, method: "password", client: context.client(request), detail: "revoked \(revoked) other sessions")
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

    func verified(_ password: String, against hash: String?) async throws -> Bool {
        do { return try await services.hasher.verify(password, against: hash) } catch is PasswordHasher.Busy { throw Self.busy }
    }

    static let busy = APIError(.serviceUnavailable, "busy", "Too many sign-ins at once; try again in a moment.").with(.retryAfter, "1")
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
