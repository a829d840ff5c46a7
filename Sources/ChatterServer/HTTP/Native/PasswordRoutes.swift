import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Email and password (F2) through the native API; `PasswordFlow` holds the rules.
struct PasswordRoutes {
    let services: ChatterServices
    let authenticator: Authenticator
    var flow: PasswordFlow { PasswordFlow(services: services) }

    func register(on router: Router<ChatterRequestContext>) {
        router.get(RouterPath(NativePath.passwordPolicy)) { _, _ in JSONResponse.make(services.rules.policy) }
        router.post(RouterPath(NativePath.passwordSignUp)) { request, context in try await signUp(request, context) }
        router.post(RouterPath(NativePath.passwordSignIn)) { request, context in try await signIn(request, context) }
        router.post(RouterPath(NativePath.passwordReset)) { request, context in try await reset(request, context) }
        router.post(RouterPath(NativePath.passwordChange)) { request, context in try await change(request, context) }
    }

    func signUp(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordSignUpRequest.self, context: context)
        let client = context.client(request)
        let (user, email) = try await flow.signUp(
            email: body.email, password: body.password, displayName: body.displayName, code: body.code, client: client)
        return try await SignIn(services: services).start(user, method: "password", client: client, deviceFor: email)
    }

    func signIn(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordSignInRequest.self, context: context)
        let client = context.client(request)
        let (user, email) = try await flow.signIn(email: body.email, password: body.password, deviceToken: body.deviceToken, client: client)
        return try await SignIn(services: services).start(user, method: "password", client: client, deviceFor: email, presenting: body.deviceToken)
    }

    func reset(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordResetRequest.self, context: context)
        let client = context.client(request)
        let (user, email) = try await flow.reset(email: body.email, newPassword: body.newPassword, code: body.code, client: client)
        return try await SignIn(services: services).start(user, method: "password", client: client, deviceFor: email)
    }

    /// Signed in; revokes the user's other sessions. Attempts are throttled like sign-ins (counted before
    /// hashing), and a wrong current password is audited.
    func change(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        let body = try await request.decodeJSON(PasswordChangeRequest.self, context: context)
        let client = context.client(request)
        let identities = try await services.store.identities(of: session.user.id)
        let email = identities.first { $0.key.issuer == IdentityKey.emailIssuer }?.key.subject
        try flow.check(body.newPassword, email: email)
        let admission = try await services.throttle.admit(account: "user:\(session.user.id.uuidString)", networks: client.limitKeys, device: nil)
        guard case .allowed(let ticket) = admission else {
            throw APIError.tooMany("password_change", retryAfter: admission.wait, "Too many wrong passwords; try again later or reset the password with an emailed code.")
        }
        let stored = try await services.store.passwordHash(userID: session.user.id)
        guard body.currentPassword.utf8.count <= services.rules.maximumBytes,
            try await flow.checked(body.currentPassword, against: stored, ticket, owner: "user:\(session.user.id.uuidString)"), stored != nil
        else {
            await services.audit.record(.passwordChangeFailed, user: session.user.id, method: "password", client: client)
            throw APIError(.forbidden, "wrong_password", "The current password is not right.")
        }
        try await services.throttle.release(ticket)
        try await services.store.setPasswordHash(try await flow.hashed(body.newPassword), userID: session.user.id, at: services.now())
        let revoked = try await services.store.revokeSessions(of: session.user.id, except: session.sessionID)
        try await services.devices.endAll(of: session.user.id)
        await services.audit.record(
            .passwordChanged, user: session.user.id, method: "password", client: client, detail: "revoked \(revoked) other sessions")
        return Response(status: .noContent)
    }
}
