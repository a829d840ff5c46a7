import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// The secure flows with refresh and the lock (the SecureSignIn example's journey), against the Keychain stand-in's
/// model of Face ID on the session item (`kSecUseAuthenticationContext`, `LAContext.interactionNotAllowed`).
@MainActor @Suite struct LockJourneyTests {
    static func session(accessToken: String = "access-1", refreshToken: String = "refresh-1", at now: Date) -> SessionResponse {
        SessionResponse(
            accessToken: accessToken, refreshToken: refreshToken, expiresIn: 300, refreshExpiresIn: 3600, sessionID: "s1",
            user: UserProfile(id: "u1", displayName: "Ada", email: "ada@example.com", emailVerified: true, name: nil, methods: ["password"]))
    }

    /// A Face ID-protected store over `keychain`, reading with `authenticator`'s evaluated context.
    static func store(_ keychain: KeychainStandIn, _ authenticator: ContextAuthenticator) -> KeychainStore {
        KeychainStore(
            service: "com.example.chatter", accessControl: .userPresence, authenticationContext: { authenticator.context },
            functions: keychain.functions)
    }

    @Test func theDocumentedFaceIDSetUpAsksOnceAtLaunch() async throws {
        let clock = TestClock()
        let keychain = KeychainStandIn()
        // The last run signed in and stored its session (and the unprotected stamp beside it).
        let earlier = SessionManager(
            api: ChatterAPI(baseURL: URL(string: "https://chatter.invalid")!), store: Self.store(keychain, ContextAuthenticator(keychain)), now: clock.function)
        await earlier.signIn(Self.session(at: clock.now))
        let checksBefore = keychain.presenceChecks

        // This launch: the gate locks before the read, and its one prompt opens the session too.
        let authenticator = ContextAuthenticator(keychain)
        let sessions = SessionManager(
            api: ChatterAPI(baseURL: URL(string: "https://chatter.invalid")!), store: Self.store(keychain, authenticator), now: clock.function)
        let auth = AuthState(sessions: sessions)
        let gate = BiometricGate(authenticator: authenticator, now: clock.function)
        let running = Task { await auth.run(unlockingWith: gate) }
        #expect(await eventually { await gate.isLocked }, "locked before anything is read")
        #expect(keychain.presenceChecks == checksBefore, "no prompt from the Keychain while the lock waits")
        #expect(auth.phase == .starting)
        #expect(await gate.unlock(reason: "Unlock") == .success)
        #expect(await eventually { await auth.isSignedIn })
        gate.follow(auth.phase)
        #expect(gate.isLocked == false, "the session read after the unlock does not lock again")
        #expect(keychain.presenceChecks == checksBefore + 1, "one prompt at launch")
        running.cancel()

        // Without the gate first, the read prompts, and the lock would ask again: the finding.
        let plain = SessionManager(
            api: ChatterAPI(baseURL: URL(string: "https://chatter.invalid")!), store: Self.store(keychain, ContextAuthenticator(keychain)), now: clock.function)
        _ = await plain.start()
        #expect(keychain.presenceChecks == checksBefore + 2)
    }

    @Test func anUpgradedAppWhoseSessionHasNoStampYetIsStillLocked() async throws {
        let clock = TestClock()
        let keychain = KeychainStandIn()
        let authenticator = ContextAuthenticator(keychain)
        // A session an earlier version stored: no stamp beside it. The lock is the app's (no Face ID on the item).
        let store = KeychainStore(service: "com.example.chatter", functions: keychain.functions)
        let earlier = SessionManager(api: ChatterAPI(baseURL: URL(string: "https://chatter.invalid")!), store: store, now: clock.function)
        await earlier.signIn(Self.session(at: clock.now))
        try await store.delete(StoreKey.sessionStamp)

        let sessions = SessionManager(api: ChatterAPI(baseURL: URL(string: "https://chatter.invalid")!), store: store, now: clock.function)
        let auth = AuthState(sessions: sessions)
        let gate = BiometricGate(authenticator: authenticator, now: clock.function)
        let running = Task { await auth.run(unlockingWith: gate) }
        #expect(await eventually { await auth.isSignedIn })
        gate.follow(auth.phase)
        #expect(gate.isLocked, "the session the read found locks, as before stamps: an upgrade never opens the app")
        running.cancel()
    }

    @Test func aLaunchWithNoStoredSessionDoesNotLock() async throws {
        let keychain = KeychainStandIn()
        let authenticator = ContextAuthenticator(keychain)
        let sessions = SessionManager(api: ChatterAPI(baseURL: URL(string: "https://chatter.invalid")!), store: Self.store(keychain, authenticator))
        let auth = AuthState(sessions: sessions)
        let gate = BiometricGate(authenticator: authenticator)
        let running = Task { await auth.run(unlockingWith: gate) }
        #expect(await eventually { await auth.phase == .signedOut(reason: nil) })
        #expect(gate.isLocked == false && keychain.presenceChecks == 0, "nothing to unlock, nothing asked")
        running.cancel()
    }

    @Test func aRefreshSharedWithExtensionsReadsTheFaceIDSessionOnlyWhenAnotherProcessChangedIt() async throws {
        let directory = NSTemporaryDirectory() + "chatter-lock-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try await LiveServer.run { @MainActor server in
                let keychain = KeychainStandIn()
                let authenticator = ContextAuthenticator(keychain)
                let coordinator = FileLockCoordinator(path: directory + "/session.lock")
                let app = ChatterClient(api: server.api(), store: Self.store(keychain, authenticator), coordinator: coordinator, now: server.clock.function)
                _ = try await app.signInByEmail(on: server)
                // In the background now: no prompt can show, and the lock's context is gone.
                keychain.set(interactive: false)
                authenticator.invalidate()
                let checks = keychain.presenceChecks
                server.clock.advance(by: 301)
                _ = try await app.sessions.refresh()
                #expect(keychain.presenceChecks == checks, "the stamp said nobody else wrote: the protected session was not read")

                // An extension sharing the store refreshes: the stamp changes, and the app must read what it stored,
                // which in the background it cannot. It says so, and presents no retired token.
                let extensionKeychainContext = ContextAuthenticator(keychain)
                keychain.set(interactive: true)
                let widget = ChatterClient(
                    api: server.api(), store: Self.store(keychain, extensionKeychainContext), coordinator: coordinator, now: server.clock.function)
                _ = await widget.sessions.start()
                server.clock.advance(by: 301)
                _ = try await widget.sessions.refresh()
                keychain.set(interactive: false)
                await #expect(throws: ChatterError.self) { try await app.sessions.refresh() }
                keychain.set(interactive: true)
                _ = try await widget.me()  // the family was not revoked: no retired token reached chatterd
            }
        }
    }
}
