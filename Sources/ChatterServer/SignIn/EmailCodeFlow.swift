import ChatterWire
import Foundation

/// Password-less sign-in with an emailed code (F3), for the native API and the web pages alike.
struct EmailCodeFlow: Sendable {
    let users: any UserRepository
    let codes: EmailCodeService
    let devices: DeviceTokens
    let audit: AuditLog
    let now: @Sendable () -> Date

    static func address(_ raw: String) throws -> String {
        guard let email = EmailAddress.normalize(raw) else { throw SignInError.invalidEmail }
        return email
    }

    /// The answer is the same whether or not the address has an account: a code is sent either way.
    func send(to email: String, purpose: EmailCodeService.Purpose, client: ClientInfo, deviceToken: String?) async throws -> EmailCodeResponse {
        let device = try await devices.device(deviceToken, for: email)
        do {
            return try await codes.send(to: email, purpose: purpose, client: client, device: device)
        } catch EmailCodeService.Failure.limited(let seconds) {
            throw LimitReached(.emailCode, retryAfter: seconds)
        }
    }

    func redeem(_ code: String, for email: String, method: SignInMethod, client: ClientInfo) async throws {
        do {
            try await codes.redeem(code, for: email)
        } catch EmailCodeService.Failure.invalidCode {
            await audit.record(.signInFailed, method: method, client: client, detail: "invalid code")
            throw SignInError.invalidCode
        }
    }

    /// Redeems `code` for `email` and returns its user, created on first sign-in. `method`: what the code
    /// is proving the address for (a passkey sign-up redeems one too), as a refusal is audited.
    func signIn(email: String, code: String, method: SignInMethod = .email, client: ClientInfo) async throws -> User {
        try await redeem(code, for: email, method: method, client: client)
        let claims = IdentityClaims(key: .email(email), email: email, emailVerified: true)
        return try await users.signIn(claims, fallbackName: DisplayName.from(email: email), at: now())
    }
}
