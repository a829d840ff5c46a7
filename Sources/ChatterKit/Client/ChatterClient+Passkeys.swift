import Foundation

// Passkeys (WebAuthn) against chatterd. The platform makes the credential (`PasskeyAuthenticator`: on
// Apple platforms `PlatformPasskeyAuthenticator`, over `ASAuthorizationController`); these calls fetch the
// options it needs and send back what it made. `PasskeyFlow` drives them for a screen.
extension ChatterClient {
    /// Options for signing in with a passkey; needs no session and names no account.
    public func passkeySignInOptions() async throws -> PasskeyRequestOptions {
        try await api.send("POST", NativePath.passkeySignInOptions, body: EmptyResponse())
    }

    /// Signs in with the assertion the authenticator made from `passkeySignInOptions()`.
    @discardableResult
    public func signInWithPasskey(_ credential: AuthenticationResponseJSON) async throws -> AuthSession {
        try await signIn(NativePath.passkeySignIn, PasskeySignInRequest(credential: credential))
    }

    /// Options for signing up with a passkey, once the code `requestEmailCode` sent proves `email` (the code is
    /// used up here). The account exists from then on, as after `verifyEmailCode`.
    public func passkeySignUpOptions(email: String, code: String) async throws -> PasskeyCreationOptions {
        try await api.send("POST", NativePath.passkeySignUpOptions, body: PasskeySignUpOptionsRequest(email: email, code: code))
    }

    /// Ends a sign-up: sends the passkey the authenticator made from `passkeySignUpOptions`, and signs in.
    @discardableResult
    public func signUpWithPasskey(_ credential: RegistrationResponseJSON, name: String? = nil, email: String? = nil) async throws -> AuthSession {
        try await signIn(NativePath.passkeySignUp, PasskeyRegistrationRequest(credential: credential, name: name), email: email)
    }

    /// Options for adding a passkey to the signed-in account (native sessions only).
    public func passkeyRegistrationOptions() async throws -> PasskeyCreationOptions {
        try await sessions.authorized { credential, _ in
            try await api.send("POST", NativePath.passkeyRegisterOptions, body: EmptyResponse(), bearer: try Self.native(credential))
        }
    }

    /// Adds the passkey the authenticator made from `passkeyRegistrationOptions()`.
    @discardableResult
    public func addPasskey(_ credential: RegistrationResponseJSON, name: String? = nil) async throws -> PasskeyInfo {
        try await sessions.authorized { session, _ in
            try await api.send(
                "POST", NativePath.passkeyRegister, body: PasskeyRegistrationRequest(credential: credential, name: name), bearer: try Self.native(session))
        }
    }

    /// The account's passkeys, oldest first.
    public func passkeys() async throws -> [PasskeyInfo] {
        try await sessions.authorized { credential, _ in
            try await api.send("GET", NativePath.passkeys, bearer: try Self.native(credential))
        }
    }

    /// Renames one of the account's passkeys (1 to 64 characters).
    @discardableResult
    public func renamePasskey(id: String, to name: String) async throws -> PasskeyInfo {
        try await sessions.authorized { credential, _ in
            try await api.send(
                "PATCH", NativePath.passkeys + "/" + Self.queryEscape(id), body: PasskeyRenameRequest(name: name), bearer: try Self.native(credential))
        }
    }

    /// Removes one of the account's passkeys; chatterd refuses (409, `last_way_to_sign_in`) when it is the
    /// account's last way to sign in.
    public func deletePasskey(id: String) async throws {
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            try await api.send("DELETE", NativePath.passkeys + "/" + Self.queryEscape(id), bearer: try Self.native(credential))
        }
    }
}
