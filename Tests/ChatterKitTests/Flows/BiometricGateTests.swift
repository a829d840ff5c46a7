import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterKit

/// A device authenticator that answers as scripted: LocalAuthentication needs real hardware.
final class ScriptedAuthenticator: DeviceAuthenticator {
    private let state: Mutex<(kind: BiometryKind, outcomes: [AuthenticationOutcome], prompts: [String])>

    init(kind: BiometryKind = .faceID, outcomes: [AuthenticationOutcome] = []) {
        state = Mutex((kind, outcomes, []))
    }

    var prompts: [String] { state.withLock { $0.prompts } }

    func availableKind() -> BiometryKind { state.withLock { $0.kind } }

    func authenticate(reason: String) async -> AuthenticationOutcome {
        state.withLock { s in
            s.prompts.append(reason)
            return s.outcomes.isEmpty ? .success : s.outcomes.removeFirst()
        }
    }
}

@MainActor @Suite struct BiometricGateTests {
    @Test func locksAtLaunchOnlyWhenThereIsASessionAndAWayToAuthenticate() {
        let gate = BiometricGate(authenticator: ScriptedAuthenticator())
        gate.appLaunched(hasSession: true)
        #expect(gate.isLocked)
        gate.appLaunched(hasSession: false)
        #expect(gate.isLocked == false)

        let noBiometry = BiometricGate(authenticator: ScriptedAuthenticator(kind: .none))
        noBiometry.appLaunched(hasSession: true)
        #expect(noBiometry.isLocked == false)
        let disabled = BiometricGate(authenticator: ScriptedAuthenticator(), isEnabled: false)
        disabled.appLaunched(hasSession: true)
        #expect(disabled.isLocked == false)
        let passcode = BiometricGate(authenticator: ScriptedAuthenticator(kind: .passcodeOnly))
        passcode.appLaunched(hasSession: true)
        #expect(passcode.isLocked, "the passcode is the fallback when there is no biometry")
    }

    @Test func onlySuccessUnlocksAndCancelKeepsItLocked() async {
        let authenticator = ScriptedAuthenticator(outcomes: [.cancelled, .failed, .success])
        let gate = BiometricGate(authenticator: authenticator)
        gate.appLaunched(hasSession: true)
        #expect(await gate.unlock(reason: "Unlock Chatter") == .cancelled)
        #expect(gate.isLocked)
        #expect(await gate.unlock(reason: "Unlock Chatter") == .failed)
        #expect(gate.failures == 1)
        #expect(await gate.unlock(reason: "Unlock Chatter") == .success)
        #expect(gate.isLocked == false)
        #expect(gate.failures == 0)
        #expect(authenticator.prompts == ["Unlock Chatter", "Unlock Chatter", "Unlock Chatter"])
    }

    @Test func theBackgroundGracePeriodDecidesWhetherToLockAgain() async {
        let clock = TestClock()
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(), gracePeriod: 300, now: clock.function)
        gate.appLaunched(hasSession: true)
        await gate.unlock(reason: "r")

        gate.appEnteredBackground()
        clock.advance(by: 299)
        gate.appEnteredForeground(hasSession: true)
        #expect(gate.isLocked == false)

        gate.appEnteredBackground()
        clock.advance(by: 301)
        gate.appEnteredForeground(hasSession: true)
        #expect(gate.isLocked)
    }

    @Test func turningItOffNeedsTheSameProof() async {
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(outcomes: [.cancelled, .success]))
        #expect(await gate.disable(reason: "Turn off Face ID") == false)
        #expect(gate.isEnabled)
        #expect(await gate.disable(reason: "Turn off Face ID"))
        #expect(gate.isEnabled == false)
    }

    @Test func lockoutIsReportedWithoutCountingAsAFailedGuess() async {
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(outcomes: [.lockedOut]))
        gate.appLaunched(hasSession: true)
        #expect(await gate.unlock(reason: "r") == .lockedOut)
        #expect(gate.lastOutcome == .lockedOut)
        #expect(gate.failures == 0)
        #expect(gate.isLocked)
    }
}
