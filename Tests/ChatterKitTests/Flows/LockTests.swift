import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterKit

/// An authenticator that keeps the context it evaluated, as `LocalAuthenticator` keeps its LAContext, over the
/// Keychain stand-in's model of one.
final class ContextAuthenticator: DeviceAuthenticator {
    let keychain: KeychainStandIn
    private let current = Mutex<KeychainStandIn.AuthenticationContext?>(nil)
    init(_ keychain: KeychainStandIn) { self.keychain = keychain }

    var context: KeychainStandIn.AuthenticationContext? { current.withLock { $0 } }
    func availableKind() -> BiometryKind { .faceID }
    func authenticate(reason: String) async -> AuthenticationOutcome {
        let fresh = KeychainStandIn.AuthenticationContext()
        guard keychain.evaluate(fresh) == errSecSuccess else { return .failed }
        current.withLock { $0 = fresh }
        return .success
    }
    func invalidate() { current.withLock { $0?.invalidate() } }
}

/// The lock screen (issue finding 7): it takes the content away, covers it before the app switcher's
/// snapshot, says why it cannot ask, and shares its prompt with the Keychain.
@MainActor @Suite struct LockTests {
    @Test func oneFaceIDUnlocksTheAppAndItsSessionAndLockingAgainForgetsIt() async throws {
        let clock = TestClock()
        let keychain = KeychainStandIn()
        let authenticator = ContextAuthenticator(keychain)
        let store = KeychainStore(
            service: "com.example.chatter", accessControl: .userPresence, authenticationContext: { authenticator.context },
            functions: keychain.functions)
        try await store.write(Data("session".utf8), for: StoreKey.session)
        let gate = BiometricGate(authenticator: authenticator, gracePeriod: 60, now: clock.function)
        gate.appLaunched(hasSession: true)

        #expect(await gate.unlock(reason: "Unlock") == .success)
        #expect(try await store.read(StoreKey.session) == Data("session".utf8))
        #expect(keychain.presenceChecks == 1, "one prompt for the lock and the Keychain read")

        // Past the grace period in the background: locked again, and the session with it.
        gate.scenePhaseChanged(isActive: false, isBackground: true, hasSession: true)
        clock.advance(by: 61)
        gate.scenePhaseChanged(isActive: true, isBackground: false, hasSession: true)
        #expect(gate.isLocked)
        keychain.set(interactive: false)
        await #expect(throws: StorageError.self, "the old context no longer opens the session") { try await store.read(StoreKey.session) }
    }

    @Test func leavingTheForegroundCoversTheContentAtOnce() {
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(), gracePeriod: 300)
        gate.follow(.signedOut(reason: nil))  // launched signed out; the sign-in that follows does not lock
        gate.follow(.signedIn(AuthSession(kind: .native, username: "Ada", accessExpiresAt: Date())))
        #expect(gate.hidesContent == false)
        // Inactive (the app switcher): not locked, but covered before the snapshot is taken.
        gate.scenePhaseChanged(isActive: false, isBackground: false, hasSession: true)
        #expect(gate.isCovered && gate.hidesContent && !gate.isLocked)
        gate.scenePhaseChanged(isActive: true, isBackground: false, hasSession: true)
        #expect(gate.hidesContent == false, "back within the grace period: shown again")
        // Locked: the content is out of the view tree, not merely transparent.
        gate.appLaunched(hasSession: true)
        #expect(gate.hidesContent)
        // Nothing to protect without a session.
        let signedOut = BiometricGate(authenticator: ScriptedAuthenticator())
        signedOut.scenePhaseChanged(isActive: false, isBackground: false, hasSession: false)
        #expect(signedOut.hidesContent == false)
    }

    @Test(arguments: [
        (-1, AuthenticationOutcome.failed), (-2, .cancelled), (-3, .cancelled), (-4, .cancelled), (-5, .unavailable), (-6, .unavailable),
        (-7, .unavailable), (-8, .lockedOut), (-9, .cancelled), (-10, .failed), (-1004, .cancelled), (-99, .failed),
    ])
    func localAuthenticationErrorsSayWhatHappened(code: Int, outcome: AuthenticationOutcome) {
        #expect(AuthenticationOutcome(localAuthenticationErrorCode: code) == outcome)
    }

    @Test func aDeviceThatCannotAskIsNotNotRecognised() async {
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(outcomes: [.unavailable]))
        gate.appLaunched(hasSession: true)
        #expect(await gate.unlock(reason: "r") == .unavailable)
        #expect(gate.isLocked)
        #expect(gate.failures == 0)
        let message = gate.message ?? ""
        #expect(!message.isEmpty, "the lock says why it cannot ask")
        #expect(!message.contains("Not recognised"))
        #expect(message.contains("passcode"))
    }
}
