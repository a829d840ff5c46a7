import Foundation

extension ChatterClient {
    /// Completes a sign-in that threw `ChatterError.secondFactorChallenge` with the authenticator app's code or
    /// a recovery code. `email`: the address the first step used, whose device token is sent and kept.
    /// `rememberDevice`: later sign-ins to `email` from this device skip the step (for as long as the server
    /// allows, and never past a password change).
    @discardableResult
    public func completeSignIn(_ challenge: SecondFactorChallenge, code: String, email: String? = nil, rememberDevice: Bool = false) async throws
        -> AuthSession
    {
        let device = if let email { await deviceToken(for: email) } else { String?.none }
        let request = SecondStepRequest(token: challenge.token, code: code, deviceToken: device, rememberDevice: rememberDevice ? true : nil)
        return try await signIn(NativePath.secondStep, request, email: email)
    }

    /// Whether the account has a second factor, and how many recovery codes are left.
    public func secondFactorStatus() async throws -> SecondFactorStatus {
        try await sessions.authorized { credential, _ in try await api.send("GET", NativePath.secondFactor, bearer: try Self.native(credential)) }
    }

    /// Starts adding an authenticator app: its secret and `otpauth://` URI, to show as a QR code until
    /// `confirmAuthenticator(code:)` turns it on. Starting again replaces an enrolment not yet confirmed.
    public func startAuthenticatorEnrolment() async throws -> TOTPEnrolment {
        try await sessions.authorized { credential, _ in
            try await api.send("POST", NativePath.secondFactorEnrol, bearer: try Self.native(credential))
        }
    }

    /// The app's first code turns the second factor on; answers the ten recovery codes, shown once.
    public func confirmAuthenticator(code: String) async throws -> [String] {
        try await codes(NativePath.secondFactorConfirm, code: code)
    }

    /// A new set of recovery codes (the old set stops working); `code` proves the second factor now.
    public func regenerateRecoveryCodes(code: String) async throws -> [String] {
        try await codes(NativePath.recoveryCodes, code: code)
    }

    /// Turns the second factor off; `code` proves it now.
    public func disableSecondFactor(code: String) async throws {
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            try await api.send("POST", NativePath.secondFactorDisable, body: SecondFactorCodeRequest(code: code), bearer: try Self.native(credential))
        }
    }

    /// Proves the second factor for this session, after an action answered `ChatterError.isStepUpRequired`:
    /// for ten minutes the session may do what matters (delete the account, change the password, …).
    public func stepUp(code: String) async throws {
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            try await api.send("POST", NativePath.stepUp, body: SecondFactorCodeRequest(code: code), bearer: try Self.native(credential))
        }
    }

    private func codes(_ path: String, code: String) async throws -> [String] {
        let answer: RecoveryCodes = try await sessions.authorized { credential, _ in
            try await api.send("POST", path, body: SecondFactorCodeRequest(code: code), bearer: try Self.native(credential))
        }
        return answer.recoveryCodes
    }
}

extension ChatterError {
    /// A sign-in whose first factor passed, waiting for the second: complete it with
    /// `ChatterClient.completeSignIn(_:code:email:)` (`SecondStepForm` is its screen). nil for any other error.
    public var secondFactorChallenge: SecondFactorChallenge? {
        guard case .server(403, let body?) = self, body.code == .secondFactorRequired else { return nil }
        return body.secondFactor
    }

    /// The action needs a recent second factor: `ChatterClient.stepUp(code:)`, then try again (`StepUpPrompt`).
    public var isStepUpRequired: Bool {
        guard case .server(403, let body?) = self else { return false }
        return body.code == .stepUpRequired
    }

    /// The action changes how the account signs in (adding or removing a passkey, adding an authenticator),
    /// and this session, on an account without a second factor, did not sign in within the last ten minutes:
    /// sign in again (a fresh session), then try again.
    public var isSignInAgain: Bool {
        guard case .server(403, let body?) = self else { return false }
        return body.code == .signInAgain
    }
}
