import ChatterWire
import Foundation
import Hummingbird

/// Password-less sign-in with an emailed code (F3).
struct EmailCodeRoutes {
    let services: ChatterServices

    func register(on router: Router<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.emailCode)) { request, context in try await requestCode(request, context) }
        router.post(RouterPath(NativePath.emailVerify)) { request, context in try await verify(request, context) }
    }

    /// The answer is the same whether or not the address has an account: a code is sent either way.
    func requestCode(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(EmailCodeRequest.self, context: context)
        let email = try Self.address(body.email)
        let device = try await services.devices.device(body.deviceToken, for: email)
        let answer = try await Self.send(services, to: email, purpose: .signIn, client: context.client(request), device: device)
        return JSONResponse.make(answer, status: .accepted)
    }

    func verify(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(EmailVerifyRequest.self, context: context)
        let email = try Self.address(body.email)
        let client = context.client(request)
        try await Self.redeem(services, body.code, for: email, method: "email", client: client)
        let claims = IdentityClaims(key: .email(email), email: email, emailVerified: true)
        // A new account has only its address to go by: its local part is a better name than "Profile NA".
        return try await SignIn(services: services).complete(
            claims, method: "email", client: client, fallbackName: String(email.split(separator: "@")[0].prefix(Limits.nameCharacters)),
            deviceFor: email)
    }

    static func address(_ raw: String) throws -> String {
        guard let email = EmailAddress.normalize(raw) else {
            throw APIError(.badRequest, "invalid_email", "\"email\" is not an email address.")
        }
        return email
    }

    static func send(
        _ services: ChatterServices, to email: String, purpose: EmailCodeService.Purpose, client: ClientInfo, device: DeviceTokens.Device? = nil
    ) async throws -> EmailCodeResponse {
        do {
            return try await services.codes.send(to: email, purpose: purpose, client: client, device: device)
        } catch EmailCodeService.Failure.limited(let seconds) {
            throw APIError.tooMany(retryAfter: seconds, "Wait \(seconds) seconds before asking for another code.")
        }
    }

    static func redeem(_ services: ChatterServices, _ code: String, for email: String, method: String, client: ClientInfo) async throws {
        do {
            try await services.codes.redeem(code, for: email)
        } catch EmailCodeService.Failure.invalidCode {
            await services.audit.record(.signInFailed, method: method, client: client, detail: "invalid code")
            throw APIError(.unauthorized, "invalid_code", "That code is wrong, expired or used up. Ask for a new one if needed.")
        }
    }
}
