import ChatterWire
import Foundation
import Hummingbird

/// Sign in with Google and with Apple through the native API.
struct ProviderRoutes {
    let services: ChatterServices

    func register(on router: Router<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.google)) { request, context in try await google(request, context) }
        router.post(RouterPath(NativePath.apple)) { request, context in try await apple(request, context) }
    }

    func google(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(GoogleSignInRequest.self, context: context)
        let client = context.client(request)
        let claims = try await GoogleFlow(services: services).claims(body.idToken, clientID: body.clientID, nonce: .raw(body.nonce), client: client)
        return try await SignIn(services: services).complete(claims, method: "google", client: client)
    }

    /// Apple shares the name and email only on the first sign-in; the client resends them until this
    /// succeeds, and repeating it never creates a second user or erases a stored name.
    func apple(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(AppleSignInRequest.self, context: context)
        let client = context.client(request)
        let identity: VerifiedIdentity
        do {
            identity = try await services.apple.verify(body.identityToken, nonce: .raw(body.rawNonce))
        } catch {
            await services.audit.record(.signInFailed, method: "apple", client: client, detail: error.check.rawValue)
            throw error.apiError(provider: "Apple")
        }
        if let name = body.name, [name.givenName, name.familyName, name.middleName, name.nickname, name.namePrefix, name.nameSuffix]
            .contains(where: { ($0 ?? "").count > Limits.nameCharacters })
        {
            throw APIError.tooLong("Name parts are limited to \(Limits.nameCharacters) characters.")
        }
        let display = body.name.flatMap(Self.displayName)
        // The token's email is Apple's word; the body's is only the app's, so it is never marked verified.
        let email = identity.email.flatMap(EmailAddress.normalize)
        let claims = IdentityClaims(
            key: IdentityKey(issuer: identity.issuer, subject: identity.subject), displayName: display, name: body.name,
            email: email, emailVerified: email != nil && identity.emailVerified)
        return try await SignIn(services: services).complete(claims, method: "apple", client: client)
    }

    static func displayName(_ name: NameParts) -> String? {
        let parts = [name.givenName, name.familyName].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : CourseRoutes.displayName(parts.joined(separator: " "))
    }
}

/// The end of every successful sign-in: find or create the user, start a session, audit, answer.
struct SignIn {
    let services: ChatterServices

    func complete(
        _ claims: IdentityClaims, method: String, client: ClientInfo, fallbackName: String = CourseRoutes.missingName, deviceFor email: String? = nil
    ) async throws -> Response {
        let user = try await services.store.signIn(claims, fallbackName: fallbackName, at: services.now())
        return try await start(user, method: method, client: client, deviceFor: email)
    }

    /// `deviceFor`: the address this sign-in proved, for which the device gets a device token (`presenting`
    /// its current one keeps it).
    func start(_ user: User, method: String, client: ClientInfo, deviceFor email: String? = nil, presenting token: String? = nil) async throws -> Response {
        var response = try await services.audit.signIn(user: user.id, method: method, client: client) {
            try await services.sessions.start(user: user, method: method, client: client, profile: try await services.profile(user))
        }
        if let email { response.deviceToken = try await services.devices.issue(for: email, presented: token) }
        return JSONResponse.make(response)
    }
}
