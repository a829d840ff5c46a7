import ChatterCore
import ChatterWire
import Foundation

/// Password-less sign-in with an emailed code (F3), for the native API and the web pages alike.
package struct EmailCodeFlow: Sendable {
    package let users: any UserRepository
    package let codes: EmailCodeService
    package let devices: DeviceTokens
    package let audit: AuditLog
    /// Who may create an account (`--app-attest-sign-up`); the password flow, which creates accounts with this
    /// flow's codes, asks it too. Given at assembly, never defaulted, so no flow is open by omission.
    package let signUps: SignUpGate
    package let now: @Sendable () -> Date

    package static func address(_ raw: String) throws -> String {
        guard let email = EmailAddress.normalize(raw) else { throw SignInError.invalidEmail }
        return email
    }

    /// The answer is the same whether or not the address has an account: a code is sent either way.
    package func send(to email: String, purpose: EmailCodeService.Purpose, client: ClientInfo, deviceToken: String?) async throws
        -> EmailCodeService.Sent
    {
        let device = try await devices.device(deviceToken, for: email)
        do {
            return try await codes.send(to: email, purpose: purpose, client: client, device: device)
        } catch EmailCodeService.Failure.limited(let seconds) {
            throw LimitReached.counted(.emailCode, retryAfter: seconds)
        } catch EmailCodeService.Failure.coolingDown(let seconds) {
            throw LimitReached.counted(.emailCodeResend, retryAfter: seconds)
        }
    }

    package func redeem(_ code: String, for email: String, method: SignInMethod, client: ClientInfo) async throws {
        do {
            try await codes.redeem(code, for: email)
        } catch EmailCodeService.Failure.invalidCode {
            await audit.record(.signInFailed, method: method, client: client, detail: "invalid code")
            throw SignInError.invalidCode
        }
    }

    /// Redeems `code` for `email` and returns its user, created on first sign-in. `method`: what the code
    /// is proving the address for (a passkey sign-up redeems one too), as a refusal is audited.
    package func signIn(email: String, code: String, method: SignInMethod = .email, client: ClientInfo) async throws -> User {
        try await redeem(code, for: email, method: method, client: client)
        let claims = IdentityClaims(key: .email(email), email: email, emailVerified: true)
        return try await users.signIn(claims, fallbackName: DisplayName.from(email: email), at: now(), mayCreate: signUps.admits(client))
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        users: any UserRepository, codes: EmailCodeService, devices: DeviceTokens, audit: AuditLog, signUps: SignUpGate,
        now: @escaping @Sendable () -> Date
    ) {
        self.signUps = signUps
        self.users = users
        self.codes = codes
        self.devices = devices
        self.audit = audit
        self.now = now
    }
}
