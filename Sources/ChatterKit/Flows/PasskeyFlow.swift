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
    /// Whether passkeys can be offered in the keyboard's suggestions: iOS and visionOS; not macOS, where a sign-in
    /// screen offers them through its button alone.
    var offersAutofill: Bool { get }
}

extension PasskeyAuthenticator {
    /// Offered, unless the authenticator says otherwise.
    public var offersAutofill: Bool { true }
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

    /// The passkey "Remove" asked about: confirm with `confirmRemoval()`, or `cancelRemoval()`.
    public private(set) var removing: PasskeyInfo?
    /// "Confirm it is you" for adding and removing passkeys: present it while `stepUp.asking` is set.
    public let stepUp: StepUpPrompt

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored let authenticator: any PasskeyAuthenticator
    /// Sign-up options for an address: the emailed code is spent getting them, so a cancelled sheet reuses them
    /// while their challenge is good.
    @ObservationIgnored private var signUpOptions: (email: String, options: PasskeyCreationOptions, until: Date)?
    /// How long an AutoFill request that fails before the user picks waits before it is made again.
    @ObservationIgnored let autofillRetry: Duration
    /// How long an AutoFill request lasts before a fresh one replaces it; nil: as long as its options' challenge.
    @ObservationIgnored let autofillLifetime: Duration?

    /// A flow for `client`'s server, making and using passkeys with `authenticator`; `stepUp` (one of its own by
    /// default, offering the same authenticator) asks for a fresh proof.
    /// `autofillRetry` and `autofillLifetime` pace the keyboard's request; tests shorten them.
    public init(
        client: ChatterClient, authenticator: any PasskeyAuthenticator, stepUp: StepUpPrompt? = nil, autofillRetry: Duration = .seconds(2),
        autofillLifetime: Duration? = nil
    ) {
        self.client = client
        self.authenticator = authenticator
        self.stepUp = stepUp ?? StepUpPrompt(client: client, authenticator: authenticator)
        self.autofillRetry = autofillRetry
        self.autofillLifetime = autofillLifetime
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
        // Where there are no keyboard suggestions (a Mac), nothing is requested: no sheet opens unasked.
        guard authenticator.offersAutofill, !isAwaitingAutofill else { return false }
        isAwaitingAutofill = true
        defer { isAwaitingAutofill = false }
        // Armed for as long as the screen's task lives (its view is shown) and nobody signed in here since: made
        // again after a cancel (a button's sheet replaced it), a failure before the user picked, or its challenge's end.
        let before = signedIn
        while !Task.isCancelled, signedIn == before {
            // A button's request is under way: the keyboard's waits until it is over.
            while isLoading, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
            guard signedIn == before else { return false }
            guard let assertion = await autofillAssertion() else {
                if signedIn == before { try? await Task.sleep(for: autofillRetry) }
                continue
            }
            // A pick that arrives after the screen went (or after another sign-in) signs nobody in over it.
            guard !Task.isCancelled, !isLoading, signedIn == before else { return false }
            isLoading = true
            defer { isLoading = false }
            do {
                signedIn = try await client.signInWithPasskey(assertion)
                return true
            } catch {
                // The user picked a passkey: what the server said is theirs to read.
                errorMessage = ChatterError.banner(for: error)
                return false
            }
        }
        return false
    }

    /// One AutoFill request, ended when its challenge does; nil when it ended without the user's pick. Its failures
    /// are never a banner: the user did not touch it (a missing `webcredentials` association fails it at once).
    private func autofillAssertion() async -> AuthenticationResponseJSON? {
        guard let options = try? await client.passkeySignInOptions() else { return nil }
        let lifetime = autofillLifetime ?? Duration.milliseconds(max(options.timeout, 1000))
        return await withTaskGroup(of: AuthenticationResponseJSON?.self) { group in
            group.addTask { [authenticator] in try? await authenticator.authenticate(options, autofill: true) }
            group.addTask {
                try? await Task.sleep(for: lifetime)
                return nil
            }
            let first = await group.next() ?? nil
            // The other ends: the timer, or the request (cancelled, as `ASAuthorizationController.cancel()` does).
            group.cancelAll()
            return first
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
    /// The code is spent on the first try: a sheet cancelled then is tried again with the same options (while
    /// their challenge lasts), without a new code.
    @discardableResult
    public func signUp(email: String, code: String, name: String? = nil) async -> Bool {
        await run {
            let options: PasskeyCreationOptions
            if let kept = signUpOptions, kept.email == email, kept.until > client.sessions.now() {
                options = kept.options
            } else {
                options = try await client.passkeySignUpOptions(email: email, code: code)
                signUpOptions = (email, options, client.sessions.now().addingTimeInterval(Double(options.timeout) / 1000 - 5))
            }
            let credential = try await authenticator.register(options)
            signedIn = try await client.signUpWithPasskey(credential, name: name, email: email)
            signUpOptions = nil
        }
    }

    /// Whether a sign-up for `email` can be tried again without a new code (its sheet was cancelled just now).
    public func canRetrySignUp(email: String) -> Bool {
        signUpOptions.map { $0.email == email && $0.until > client.sessions.now() } ?? false
    }

    /// Adds a passkey to the signed-in account, then reads the list again.
    @discardableResult
    public func addPasskey(name: String? = nil) async -> Bool {
        await run {
            let confirmed = try await stepUp.perform(.addPasskey) {
                let options = try await client.passkeyRegistrationOptions()
                _ = try await client.addPasskey(try await authenticator.register(options), name: name)
            }
            // Given up at "confirm it is you": no banner, and nothing changed.
            guard confirmed else { throw ChatterError.cancelled }
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

    /// "Remove" asks first: a passkey removed is gone from the account for every device that synced it.
    public func requestRemoval(_ passkey: PasskeyInfo) { removing = passkey }

    /// The user thought better of it.
    public func cancelRemoval() { removing = nil }

    /// Removes the passkey `requestRemoval` asked about.
    @discardableResult
    public func confirmRemoval() async -> Bool {
        guard let passkey = removing else { return false }
        removing = nil
        return await remove(passkey)
    }

    /// Removes a passkey; the server refuses the account's last way to sign in, and the banner says so.
    @discardableResult
    public func remove(_ passkey: PasskeyInfo) async -> Bool {
        await run {
            guard try await stepUp.perform(.removePasskey, { try await client.deletePasskey(id: passkey.id) }) else { throw ChatterError.cancelled }
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
