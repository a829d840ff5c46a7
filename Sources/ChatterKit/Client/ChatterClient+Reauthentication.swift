import Foundation

/// A proof, given now, that whoever holds the session is its owner. Actions that matter ask for one once the
/// session's last proof is ten minutes old: `step_up_required` on an account with a second factor (a code or a
/// passkey), `sign_in_again` on one without (a passkey, or any way in to the same account).
public enum Reauthentication: Sendable {
    /// The authenticator app's code or a recovery code (accounts with a second factor).
    case code(String)
    /// One of the account's passkeys, picked in the system sheet: it verifies the user, so it counts as both factors.
    case passkey(any PasskeyAuthenticator)
    /// The account's password, for its address: a new sign-in to the same account.
    case password(email: String, password: String)
    /// The code `requestEmailCode` sent to the account's address: a new sign-in to the same account.
    case emailCode(email: String, code: String)
    /// An ID token from Google Sign-In for the same Google account.
    case google(idToken: String, clientID: String, nonce: String? = nil)
    /// Sign in with Apple's answer for the same Apple ID.
    case apple(AppleSignInRequest)

    /// Whether this proof passes the account's second factor, which `step_up_required` asks for; the others are
    /// a first factor, which answers `sign_in_again` (and, on an account with a second factor, asks for its code).
    public var passesSecondFactor: Bool {
        switch self {
        case .code, .passkey: true
        case .password, .emailCode, .google, .apple: false
        }
    }
}

extension ChatterClient {
    /// Proves it is the account's owner, now (Firebase's `reauthenticate`, Clerk's reverification): for ten
    /// minutes the session may then do what answered `ChatterError.isStepUpRequired` or `.isSignInAgain`. A code or
    /// a passkey confirms this session. Any other proof is a new sign-in to the same account, which replaces this
    /// session (this one is ended on the server); one that reaches another account throws `.otherAccount` and
    /// changes nothing here. On an account with a second factor such a sign-in throws its
    /// `secondFactorChallenge`: confirm with `.code` instead, which is what the account asks for.
    public func reauthenticate(_ proof: Reauthentication) async throws {
        switch proof {
        case .code(let code): try await stepUp(code: code)
        case .passkey(let authenticator): try await stepUp(with: authenticator)
        case .password(let email, let password):
            let device = await deviceToken(for: email)
            try await signInAgain(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: password, deviceToken: device), email: email)
        case .emailCode(let email, let code):
            let device = await deviceToken(for: email)
            try await signInAgain(NativePath.emailVerify, EmailVerifyRequest(email: email, code: code, deviceToken: device), email: email)
        case .google(let idToken, let clientID, let nonce):
            try await signInAgain(NativePath.google, GoogleSignInRequest(idToken: idToken, clientID: clientID, nonce: nonce))
        case .apple(let request): try await signInAgain(NativePath.apple, request)
        }
    }

    /// Options naming the account's passkeys, for confirming it is you with one (`passkeyStepUp`).
    public func passkeyStepUpOptions() async throws -> PasskeyRequestOptions {
        try await sessions.authorized { credential, _ in
            try await api.send("POST", NativePath.passkeyStepUpOptions, body: EmptyResponse(), bearer: try Self.native(credential))
        }
    }

    /// Confirms it is you with one of the account's passkeys, picked with `authenticator` from fresh options.
    public func stepUp(with authenticator: any PasskeyAuthenticator) async throws {
        let assertion = try await authenticator.authenticate(try await passkeyStepUpOptions(), autofill: false)
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            try await api.send("POST", NativePath.passkeyStepUp, body: PasskeySignInRequest(credential: assertion), bearer: try Self.native(credential))
        }
    }

    /// The launch's Sign in with Apple check names the session it covers: the session that replaces it is covered too.
    private func carryAppleRecord(from old: String?, to new: String) async {
        guard let old, let data = (try? await sessions.store.read(StoreKey.appleSignIn)) ?? nil,
            var record = try? JSONDecoder().decode(AppleSignInRecord.self, from: data), record.sessionID == old
        else { return }
        record.sessionID = new
        guard let updated = try? JSONEncoder().encode(record) else { return }
        try? await sessions.store.write(updated, for: StoreKey.appleSignIn)
    }

    /// A sign-in whose account must be the signed-in one: adopted in place of the current session (which then
    /// ends on the server), or, for another account, ended at once.
    private func signInAgain(_ path: String, _ body: some Encodable & Sendable, email: String? = nil) async throws {
        guard let current = await sessions.session?.publicView, let userID = current.user?.id else { throw ChatterError.notSignedIn }
        let response: SessionResponse = try await api.send("POST", path, body: body)
        guard response.user.id == userID else {
            let _: EmptyResponse? = try? await api.send("POST", NativePath.signOut, body: SignOutRequest(all: false), bearer: response.accessToken)
            throw ChatterError.otherAccount
        }
        await sessions.signIn(response)
        if let email, let device = response.deviceToken { try? await sessions.store.write(Data(device.utf8), for: StoreKey.device(email)) }
        await carryAppleRecord(from: current.sessionID, to: response.sessionID)
        // The replaced session proved nothing new: it ends, so the device keeps one session, not two.
        if let old = current.sessionID, old != response.sessionID { try? await revokeSession(id: old) }
    }
}
