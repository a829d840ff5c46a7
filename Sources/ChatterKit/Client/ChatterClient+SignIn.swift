import Foundation

extension ChatterClient {
    /// Course sign-in (F1): a Google ID token for a chatterID.
    @discardableResult
    public func addUser(clientID: String, idToken: String) async throws -> AuthSession {
        let response: AddUserResponse = try await api.send("POST", "/adduser", body: AddUserRequest(clientID: clientID, idToken: idToken))
        return await sessions.signIn(course: response)
    }

    /// Native sign-in with a Google ID token: a session that refreshes, unlike `addUser`'s chatterID. Pass the raw
    /// `nonce` when the app asked Google to embed its hash. A refused token throws `ChatterError.server` with
    /// status 401, and its body names the check that failed.
    @discardableResult
    public func signInWithGoogle(idToken: String, clientID: String, nonce: String? = nil) async throws -> AuthSession {
        try await signIn(NativePath.google, GoogleSignInRequest(idToken: idToken, clientID: clientID, nonce: nonce))
    }

    /// Native sign-in with Sign in with Apple's identity token. `AppleSignInFlow` builds the request and keeps
    /// Apple's once-only name and email until this succeeds.
    @discardableResult
    public func signInWithApple(_ request: AppleSignInRequest) async throws -> AuthSession {
        try await signIn(NativePath.apple, request)
    }

    /// Emails a 6-digit code to `email`, for `verifyEmailCode`, `signUp` or `resetPassword`, and sends the device
    /// token kept from an earlier sign-in to the address. The answer says how many seconds to wait before asking
    /// again; asking sooner throws `ChatterError.rateLimited`.
    public func requestEmailCode(email: String) async throws -> EmailCodeResponse {
        try await api.send("POST", NativePath.emailCode, body: EmailCodeRequest(email: email, deviceToken: await deviceToken(for: email)))
    }

    /// Signs in with the code `requestEmailCode` sent (F3), creating the account on first use. Remembers the email
    /// for the next sign-in form and keeps the device token chatterd issues for it.
    @discardableResult
    public func verifyEmailCode(email: String, code: String) async throws -> AuthSession {
        try await signIn(NativePath.emailVerify, EmailVerifyRequest(email: email, code: code, deviceToken: await deviceToken(for: email)), email: email)
    }

    /// The server's password rules, for live validation before the user submits. Needs no sign-in.
    public func passwordPolicy() async throws -> PasswordPolicy {
        try await api.send("GET", NativePath.passwordPolicy)
    }

    /// Signs in with email and password (F2). Remembers the email (never the password) and sends the device token
    /// kept for the address, so failed attempts by others do not lock this device out. After too many failures it
    /// throws `ChatterError.rateLimited`.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> AuthSession {
        let device = await deviceToken(for: email)
        return try await signIn(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: password, deviceToken: device), email: email)
    }

    /// Creates a password account with the code `requestEmailCode` emailed to the address (F2); `displayName` nil
    /// uses the address's local part. On an address that already has a password this replaces it, as
    /// `resetPassword` does.
    @discardableResult
    public func signUp(email: String, code: String, password: String, displayName: String? = nil) async throws -> AuthSession {
        try await signIn(NativePath.passwordSignUp, PasswordSignUpRequest(email: email, code: code, password: password, displayName: displayName), email: email)
    }

    /// "Forgot password": the code emailed by `requestEmailCode` and a new password. Every other
    /// session of the account ends; this one starts signed in.
    @discardableResult
    public func resetPassword(email: String, code: String, newPassword: String) async throws -> AuthSession {
        try await signIn(NativePath.passwordReset, PasswordResetRequest(email: email, code: code, newPassword: newPassword), email: email)
    }

    /// The email last signed in with, to prefill the form (F2).
    public func rememberedEmail() async -> String? {
        let data = try? await sessions.store.read(StoreKey.email)
        return data.map { String(decoding: $0, as: UTF8.self) }
    }

    func signIn(_ path: String, _ body: some Encodable & Sendable, email: String? = nil) async throws -> AuthSession {
        let response: SessionResponse = try await api.send("POST", path, body: body)
        let session = await sessions.signIn(response)
        // The email and the device token are conveniences; failing to keep them must not fail a sign-in that succeeded.
        if let email {
            try? await sessions.store.write(Data(email.utf8), for: StoreKey.email)
            if let device = response.deviceToken { try? await sessions.store.write(Data(device.utf8), for: StoreKey.device(email)) }
        }
        return session
    }

    /// The device token kept for `email`, if this device signed in to it before.
    func deviceToken(for email: String) async -> String? {
        (try? await sessions.store.read(StoreKey.device(email))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
    }
}
