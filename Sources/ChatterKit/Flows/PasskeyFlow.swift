import Foundation
import Observation

/// What makes and uses passkeys on a device: on Apple platforms `PlatformPasskeyAuthenticator` (Face ID or
/// Touch ID over `ASAuthorizationController`), in tests a software one. It takes chatterd's options as they
/// come and answers with the JSON a browser's `PublicKeyCredential.toJSON()` gives.
public protocol PasskeyAuthenticator: Sendable {
    /// Makes a passkey for the options (`navigator.credentials.create()`).
    func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON
    /// Signs the options' challenge with a passkey the user picks (`navigator.credentials.get()`);
    /// `autofill`: offered in the keyboard's suggestions rather than in a sheet.
    func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON
}

/// Passkeys for a screen: sign in with one, sign up with one after an emailed code, and the account's
/// list (add, rename, remove). Each step fetches fresh options, so an abandoned sheet leaves nothing
/// behind but an unused challenge that expires.
@MainActor @Observable
public final class PasskeyFlow {
    /// A request or the system sheet is in progress; the buttons are disabled.
    public private(set) var isLoading = false
    /// The last failure, for a banner; `nil` after a cancel, and again when a request starts.
    public private(set) var errorMessage: String?
    /// The session of the last sign-in or sign-up; `nil` until one succeeds.
    public private(set) var signedIn: AuthSession?
    /// The account's passkeys, as `refresh()` last read them.
    public private(set) var passkeys: [PasskeyInfo] = []
    /// An AutoFill request waits for the user to pick a passkey from the keyboard's suggestions. It
    /// does not disable the buttons: the button's own request replaces it.
    public private(set) var isAwaitingAutofill = false

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored let authenticator: any PasskeyAuthenticator

    /// A flow for `client`'s server, making and using passkeys with `authenticator`.
    public init(client: ChatterClient, authenticator: any PasskeyAuthenticator) {
        self.client = client
        self.authenticator = authenticator
    }

    /// Signs in with a passkey the user picks; `autofill` for the request a sign-in form starts as it
    /// appears (at most one waits; the button's request cancels it, and that cancel shows no banner).
    @discardableResult
    public func signIn(autofill: Bool = false) async -> Bool {
        guard autofill else {
            return await run {
                let options = try await client.passkeySignInOptions()
                signedIn = try await client.signInWithPasskey(try await authenticator.authenticate(options, autofill: false))
            }
        }
        guard !isAwaitingAutofill, !isLoading else { return false }
        isAwaitingAutofill = true
        defer { isAwaitingAutofill = false }
        do {
            let options = try await client.passkeySignInOptions()
            let assertion = try await authenticator.authenticate(options, autofill: true)
            isLoading = true
            defer { isLoading = false }
            signedIn = try await client.signInWithPasskey(assertion)
            return true
        } catch {
            errorMessage = ChatterError.banner(for: error)
            return false
        }
    }

    /// A passkey's second line in a list: where it lives, whether it syncs, when it was last used.
    public func detail(for passkey: PasskeyInfo) -> String {
        var parts = [passkey.authenticator ?? "Passkey"]
        if passkey.flagged { parts.append("blocked: it may have been copied") } else if passkey.synced { parts.append("synced") }
        if let used = passkey.lastUsedAt {
            parts.append("last used " + Date(timeIntervalSince1970: used).formatted(date: .abbreviated, time: .omitted))
        } else {
            parts.append("not used yet")
        }
        return parts.joined(separator: " · ")
    }

    /// Signs up with a passkey once `code` (from `client.requestEmailCode`) proves `email`.
    @discardableResult
    public func signUp(email: String, code: String, name: String? = nil) async -> Bool {
        await run {
            let options = try await client.passkeySignUpOptions(email: email, code: code)
            let credential = try await authenticator.register(options)
            signedIn = try await client.signUpWithPasskey(credential, name: name, email: email)
        }
    }

    /// Adds a passkey to the signed-in account, then reads the list again.
    @discardableResult
    public func addPasskey(name: String? = nil) async -> Bool {
        await run {
            let options = try await client.passkeyRegistrationOptions()
            _ = try await client.addPasskey(try await authenticator.register(options), name: name)
            passkeys = try await client.passkeys()
        }
    }

    /// Reads the account's passkeys.
    @discardableResult
    public func refresh() async -> Bool {
        await run { passkeys = try await client.passkeys() }
    }

    /// Renames a passkey (1 to 64 characters), then reads the list again.
    @discardableResult
    public func rename(_ passkey: PasskeyInfo, to name: String) async -> Bool {
        await run {
            _ = try await client.renamePasskey(id: passkey.id, to: name)
            passkeys = try await client.passkeys()
        }
    }

    /// Removes a passkey; the server refuses the account's last way to sign in, and the banner says so.
    @discardableResult
    public func remove(_ passkey: PasskeyInfo) async -> Bool {
        await run {
            try await client.deletePasskey(id: passkey.id)
            passkeys = try await client.passkeys()
        }
    }

    private func run(_ body: () async throws -> Void) async -> Bool {
        guard !isLoading else { return false }
        isLoading = true
        errorMessage = nil
        defer { isLoading = false }
        do {
            try await body()
            return true
        } catch {
            errorMessage = ChatterError.banner(for: error)
            return false
        }
    }
}
