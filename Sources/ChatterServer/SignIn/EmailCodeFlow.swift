import ChatterWire
import Foundation

/// Password-less sign-in with an emailed code (F3), for the native API and the web pages alike.
struct EmailCodeFlow {
    let services: ChatterServices

    static func address(_ raw: String) throws -> String {
        guard let email = EmailAddress.normalize(raw) else {
            throw APIError(.badRequest, "invalid_email", "\"email\" is not an email address.")
        }
        return email
    }

    /// The answer is the same whether or not the address has an account: a code is sent either way.
    func send(to email: String, purpose: EmailCodeService.Purpose, client: ClientInfo, deviceToken: String?) async throws -> EmailCodeResponse {
        let device = try await services.devices.device(deviceToken, for: email)
        do {
            return try await services.codes.send(to: email, purpose: purpose, client: client, device: device)
        } catch EmailCodeService.Failure.limited(let seconds) {
            throw APIError.tooMany("email_code", retryAfter: seconds, "Wait \(seconds) seconds before asking for another code.")
        }
    }

    func redeem(_ code: String, for email: String, method: String, client: ClientInfo) async throws {
        do {
            try await services.codes.redeem(code, for: email)
        } catch EmailCodeService.Failure.invalidCode {
            await services.audit.record(.signInFailed, method: method, client: client, detail: "invalid code")
            throw APIError(.unauthorized, "invalid_code", "That code is wrong, expired or used up. Ask for a new one if needed.")
        }
    }

    /// Redeems `code` for `email` and returns its user, created on first sign-in.
    func signIn(email: String, code: String, client: ClientInfo) async throws -> User {
        try await redeem(code, for: email, method: "email", client: client)
        let claims = IdentityClaims(key: .email(email), email: email, emailVerified: true)
        // A new account has only its address to go by: its local part is a better name than "Profile NA".
        return try await services.store.signIn(
            claims, fallbackName: String(email.split(separator: "@")[0].prefix(Limits.nameCharacters)), at: services.now())
    }
}
