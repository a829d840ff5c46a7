import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// The keyboard's passkey suggestions as `ASAuthorizationController.performAutoFillAssistedRequests()` makes them:
/// each request waits until the user picks a passkey, it fails (no `webcredentials` association, say), or its task is
/// cancelled, which ends it as `cancel()` does (the delegate hears `.canceled`).
actor KeyboardSuggestions: PasskeyAuthenticator {
    enum Next { case pick, fail }
    struct NotAssociated: Error {}

    let device: SoftwareAuthenticator
    /// Requests made so far.
    private(set) var armed = 0
    private var next: Next?

    init(device: SoftwareAuthenticator) { self.device = device }

    func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON { try device.register(options) }

    func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON {
        guard autofill else { return try device.authenticate(options) }
        armed += 1
        while true {
            if Task.isCancelled { throw ChatterError.cancelled }
            if let outcome = next {
                next = nil
                switch outcome {
                case .pick: return try device.authenticate(options)
                case .fail: throw NotAssociated()
                }
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The user taps the suggestion (or, with no request waiting, nothing happens).
    func pick() { next = .pick }
    func fail() { next = .fail }
}

/// A user who cancels the first sheet, then goes through with it.
actor CancelsTheFirstSheet: PasskeyAuthenticator {
    let device: SoftwareAuthenticator
    private var sheets = 0
    init(device: SoftwareAuthenticator) { self.device = device }

    func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON {
        sheets += 1
        if sheets == 1 { throw ChatterError.cancelled }
        return try device.register(options)
    }

    func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON { try device.authenticate(options) }
}

/// A Mac's passkeys (`PlatformPasskeyAuthenticator` on macOS): the button's sheet, no keyboard suggestions.
struct MacPasskeys: PasskeyAuthenticator {
    let device: SoftwareAuthenticator
    var offersAutofill: Bool { false }
    func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON { try device.register(options) }
    func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON {
        // As the old Mac path did: any request, AutoFill's too, opened the sheet.
        if autofill { Issue.record("a sheet opened that nobody asked for") }
        return try device.authenticate(options)
    }
}

extension AppJourneyTests {
    @Test func onAMacThePasskeyButtonOpensTheSheetAndNothingOpensUnasked() async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await JourneyKitTests.passkeysOnlyAccount(server)
            let counter = CountingTransport()
            let client = server.client(transport: counter)
            let flow = PasskeyFlow(client: client, authenticator: MacPasskeys(device: account.passkey))
            // The sign-in screen appears (PasskeySignInButton's task asks for AutoFill): nothing is requested.
            #expect(await flow.signIn(autofill: true) == false)
            #expect(counter.count(NativePath.passkeySignInOptions) == 0 && flow.errorMessage == nil)
            // The button: the sheet, then signed in.
            #expect(await flow.signIn(), "\(flow.errorMessage ?? "")")
            #expect(flow.signedIn?.user.flatMap { UUID(uuidString: $0.id) } == account.id)
        }
    }

    @Test func theKeyboardsPasskeyRequestLastsAsLongAsItsScreenAndIsMadeAgainAfterAFailure() async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await JourneyKitTests.passkeysOnlyAccount(server)
            let client = server.client()
            let suggestions = KeyboardSuggestions(device: account.passkey)
            let flow = PasskeyFlow(client: client, authenticator: suggestions, autofillRetry: .milliseconds(10))

            let screen = Task { await flow.signIn(autofill: true) }
            #expect(await eventually { await suggestions.armed == 1 })
            await suggestions.fail()
            #expect(await eventually { await suggestions.armed == 2 }, "made again after a failure the user never saw")
            #expect(flow.errorMessage == nil, "no banner on a screen the user has not touched")
            #expect(flow.isAwaitingAutofill)

            // The user leaves the screen; a pick arriving after that signs nobody in over what they did since.
            screen.cancel()
            #expect(await screen.value == false)
            await suggestions.pick()
            try await Task.sleep(for: .milliseconds(50))
            #expect(flow.signedIn == nil && flow.isAwaitingAutofill == false)
            #expect(await client.sessions.session == nil)

            // Back on the screen: a new request, and the pick signs in.
            let again = Task { await flow.signIn(autofill: true) }
            #expect(await eventually { await suggestions.armed == 3 })
            await suggestions.pick()
            #expect(await again.value, "\(flow.errorMessage ?? "")")
            #expect(flow.signedIn?.user.flatMap { UUID(uuidString: $0.id) } == account.id)
        }
    }

    @Test func theKeyboardsPasskeyRequestIsMadeAgainWhenItsChallengeEnds() async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await JourneyKitTests.passkeysOnlyAccount(server)
            let suggestions = KeyboardSuggestions(device: account.passkey)
            // The challenge's lifetime shortened from five minutes to a tenth of a second.
            let flow = PasskeyFlow(client: server.client(), authenticator: suggestions, autofillLifetime: .milliseconds(100))
            let screen = Task { await flow.signIn(autofill: true) }
            #expect(await eventually { await suggestions.armed >= 3 }, "a fresh request (and challenge) each time one ends")
            #expect(flow.errorMessage == nil)
            await suggestions.pick()
            #expect(await screen.value, "the current request's pick signs in: \(flow.errorMessage ?? "")")
        }
    }

    @Test func aPasskeySheetCancelledAtSignUpIsTriedAgainWithoutANewCode() async throws {
        try await LiveServer.run { @MainActor server in
            let client = server.client()
            let email = "grace@example.com"
            _ = try await client.requestEmailCode(email: email)
            let code = try #require(server.mail.lastCode(to: email))
            let flow = PasskeyFlow(client: client, authenticator: CancelsTheFirstSheet(device: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)))
            #expect(await flow.signUp(email: email, code: code) == false)
            #expect(flow.errorMessage == nil, "a cancel is no failure")
            #expect(flow.canRetrySignUp(email: email), "the spent code's options are kept")
            #expect(await flow.signUp(email: email, code: code), "\(flow.errorMessage ?? "")")
            #expect(flow.signedIn?.user?.email == email)
            #expect(flow.canRetrySignUp(email: email) == false)
        }
    }

    @Test func removingAPasskeyAsksFirst() async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await JourneyKitTests.accountWithEveryWayIn(server)
            let flow = PasskeyFlow(client: account.client, authenticator: SoftwarePasskeys(device: account.passkey))
            await flow.refresh()
            let passkey = try #require(flow.passkeys.first)
            flow.requestRemoval(passkey)
            #expect(flow.removing == passkey)
            flow.cancelRemoval()
            #expect(flow.removing == nil)
            #expect(await flow.confirmRemoval() == false, "nothing asked about, nothing removed")
            #expect(try await server.store.passkeys(of: account.id).count == 1)
            flow.requestRemoval(passkey)
            #expect(await flow.confirmRemoval(), "\(flow.errorMessage ?? "")")
            #expect(try await server.store.passkeys(of: account.id).isEmpty)
        }
    }

    @Test func aGlanceAwayCoversTheAppWithoutUnmountingItAndALongAbsenceLocksIt() async throws {
        let clock = TestClock()
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(outcomes: [.success, .success]), gracePeriod: 300, now: clock.function)
        #expect(gate.screen == .content)
        let session = AuthSession(kind: .native, username: "Ada", accessExpiresAt: clock.now.addingTimeInterval(300))
        gate.follow(.signedIn(session))
        #expect(gate.screen == .locked, "the launch's session is locked")
        #expect(await gate.unlock(reason: "Unlock") == .success)
        #expect(gate.screen == .content)
        // Control Center, a call, a Face ID sheet: `.inactive`, not the background.
        gate.scenePhaseChanged(isActive: false, isBackground: false, hasSession: true)
        #expect(gate.screen == .covered, "covered, the content kept beneath: tabs, navigation and drafts stay")
        gate.scenePhaseChanged(isActive: true, isBackground: false, hasSession: true)
        #expect(gate.screen == .content)
        gate.scenePhaseChanged(isActive: false, isBackground: true, hasSession: true)
        clock.advance(by: 301)
        gate.scenePhaseChanged(isActive: true, isBackground: false, hasSession: true)
        #expect(gate.screen == .locked)
    }
}
