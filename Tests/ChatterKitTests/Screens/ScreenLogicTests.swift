import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ChatterUI's views show and do, decided here, where Linux can test it.
@Suite struct ScreenLogicTests {
    @Test @MainActor func theLockFollowsTheAuthStateAndTheScenePhase() {
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(kind: .touchID))
        let session = AuthSession(kind: .native, username: "Ada", user: nil, sessionID: "s", accessExpiresAt: .distantFuture, refreshExpiresAt: nil)
        gate.follow(.starting)
        #expect(gate.isLocked == false, "nothing is known before storage is read")
        gate.follow(.signedIn(session))
        #expect(gate.isLocked, "the session found at launch is locked")
        gate.follow(.signedOut(reason: .userRequested))
        #expect(gate.isLocked == false, "no session, nothing to protect")
        gate.follow(.signedIn(session))
        #expect(gate.isLocked == false, "a sign-in after launch is not locked: the user just proved who they are")
        #expect(gate.kind.unlockTitle == "Unlock with Touch ID" && gate.kind.systemImage == "touchid")
    }

    @Test @MainActor func comingBackAfterTheGracePeriodLocksAgain() async {
        let clock = TestClock()
        let gate = BiometricGate(authenticator: ScriptedAuthenticator(outcomes: [.failed, .lockedOut, .cancelled]), gracePeriod: 60, now: clock.function)
        let session = AuthSession(kind: .native, username: "Ada", user: nil, sessionID: "s", accessExpiresAt: .distantFuture, refreshExpiresAt: nil)
        gate.follow(.signedIn(session))
        gate.follow(.signedIn(session))
        #expect(gate.isLocked)
        #expect(await gate.unlock(reason: "r") == .failed)
        #expect(gate.message == "Not recognised. Try again.")
        #expect(await gate.unlock(reason: "r") == .lockedOut)
        #expect(gate.message?.contains("passcode") == true)
        #expect(await gate.unlock(reason: "r") == .cancelled)
        #expect(gate.message == nil && gate.isLocked, "a cancel says nothing and stays locked")
        #expect(await gate.unlock(reason: "r") == .success)
        #expect(gate.isLocked == false)

        gate.scenePhaseChanged(isActive: false, isBackground: false, hasSession: true)
        gate.scenePhaseChanged(isActive: false, isBackground: true, hasSession: true)
        clock.advance(by: 30)
        gate.scenePhaseChanged(isActive: true, isBackground: false, hasSession: true)
        #expect(gate.isLocked == false, "back within the grace period")
        gate.scenePhaseChanged(isActive: false, isBackground: true, hasSession: true)
        clock.advance(by: 61)
        gate.scenePhaseChanged(isActive: false, isBackground: false, hasSession: true)
        #expect(gate.isLocked == false, "inactive on the way back changes nothing")
        gate.scenePhaseChanged(isActive: true, isBackground: false, hasSession: true)
        #expect(gate.isLocked, "back after the grace period")
    }

    @Test func bannersSayNothingForACancellation() async {
        let cancelled = Task {
            while !Task.isCancelled { await Task.yield() }
            return ChatterError.banner(for: URLError(.cancelled))
        }
        cancelled.cancel()
        #expect(await cancelled.value == nil, "URLSession's word for a cancelled task")
        #expect(ChatterError.banner(for: CancellationError()) == nil)
        #expect(ChatterError.banner(for: URLError(.cancelled)) != nil, "in a live task: a refused server (a pin), to be shown")
        #expect(ChatterError.banner(for: ChatterError.cancelled) == nil)
        #expect(ChatterError.banner(for: ChatterError.network("refused")) == "Cannot reach the server: refused")
        #expect(ChatterError.banner(for: ChatterError.server(status: 401, body: ErrorBody(error: "x", message: "No."))) == "No.")
    }

    @Test @MainActor func labelsTheScreensShow() async {
        #expect(PasswordStrength.allCases.map(\.label) == ["Weak", "Fair", "Good", "Strong"])
        #expect(PasswordStrength.allCases.map(\.fraction) == [0.25, 0.5, 0.75, 1])
        #expect(BiometryKind.faceID.unlockTitle == "Unlock with Face ID" && BiometryKind.passcodeOnly.systemImage == "lock.fill")
        #expect(ChattFlow.Advisory.sessionAvailable(username: "Ada").message == "Signed in as Ada.")
        #expect(ChattFlow.Advisory.sessionExpired.message.contains("expired"))

        let form = PasswordForm(client: .sample(signedIn: false))
        #expect(form.submitTitle == "Sign In")
        form.switchMode()
        #expect(form.mode == .signUp && form.submitTitle == "Create Account" && form.switchModeTitle.contains("Sign in"))

        let row = ChattRow(name: "a", message: "b", id: "c", time: "2026-11-25T10:00:00.123Z")
        #expect(abs((row.postedAt?.timeIntervalSince1970 ?? 0) - 1_795_600_800.123) < 0.000_1)
        #expect(ChattRow(name: "a", message: "b", id: "c", time: "2026-11-25T10:00:00Z").postedAt == Date(timeIntervalSince1970: 1_795_600_800))
        #expect(ChattRow(name: "a", message: "b", id: "c", time: "yesterday").postedAt == nil)
    }

    @Test @MainActor func theResendButtonCountsDown() async throws {
        let clock = TestClock()
        let flow = EmailCodeFlow(client: .sample(signedIn: false), now: clock.function, sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        flow.email = "ada@example.com"
        await flow.sendCode()
        #expect(flow.step == .code)
        #expect(flow.resendTitle == "Resend code in 60 s")
        clock.advance(by: 59.5)
        flow.tick()
        #expect(flow.resendTitle == "Resend code in 1 s")
        clock.advance(by: 1)
        flow.tick()
        #expect(flow.resendTitle == "Resend code" && flow.canResend)
    }
}
