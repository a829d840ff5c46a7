import Foundation
import Testing

@testable import ChatterKit

/// F3 against the live server (the native routes come from the stand-in until main serves them).
@Suite struct EmailCodeFlowTests {
    @Test func emailThenCodeSignsIn() async throws {
        try await LiveServer.run { server in
            let flow = await EmailCodeFlow(client: server.client(), now: server.clock.function, sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
            await MainActor.run { flow.email = "grace@example.com" }
            #expect(await flow.canSendCode)
            await flow.sendCode()
            #expect(await flow.step == .code)
            #expect(await flow.canVerify == false)

            let code = try #require(server.mail.lastCode(to: "grace@example.com"))
            await MainActor.run { flow.code = "code: " + code + "99" }
            #expect(await flow.code == code, "only six digits are kept")
            await flow.verify()
            guard case .signedIn(let session) = await flow.step else {
                Issue.record("step \(await flow.step)")
                return
            }
            #expect(session.user?.email == "grace@example.com")
        }
    }

    @Test func aWrongCodeShowsTheErrorAndStaysOnTheCodeStep() async throws {
        try await LiveServer.run { server in
            let flow = await EmailCodeFlow(client: server.client(), now: server.clock.function, sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
            await MainActor.run { flow.email = "grace@example.com" }
            await flow.sendCode()
            let right = try #require(server.mail.lastCode(to: "grace@example.com"))
            await MainActor.run { flow.code = right == "000000" ? "111111" : "000000" }
            await flow.verify()
            #expect(await flow.step == .code)
            #expect(await flow.errorMessage == "That code is wrong, expired or used up. Ask for a new one if needed.")
            #expect(await flow.code.isEmpty)
        }
    }

    @Test func resendWaitsOutTheCooldownCountingDown() async throws {
        try await LiveServer.run { server in
            let flow = await EmailCodeFlow(client: server.client(), now: server.clock.function, sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
            await MainActor.run { flow.email = "grace@example.com" }
            await flow.sendCode()
            #expect(await flow.resendCountdown == 60, "the server's cooldown")
            #expect(await flow.canResend == false)

            server.clock.advance(by: 12.5)
            await flow.tick()
            #expect(await flow.resendCountdown == 48)
            server.clock.advance(by: 47.5)
            await flow.tick()
            #expect(await flow.resendCountdown == 0)
            #expect(await flow.canResend)

            let first = server.mail.lastCode(to: "grace@example.com")
            await flow.resend()
            #expect(await flow.errorMessage == nil)
            #expect(await flow.resendCountdown == 60)
            let second = try #require(server.mail.lastCode(to: "grace@example.com"))
            if second != first {
                await MainActor.run { flow.code = second }
                await flow.verify()
                if case .signedIn = await flow.step {} else { Issue.record("the resent code did not sign in") }
            }
        }
    }

    @Test func theCountdownTaskTicksEverySecondUntilZero() async throws {
        try await LiveServer.run { server in
            let clock = server.clock
            // Each "second" of sleep moves the clock one second, so the countdown runs at once.
            let flow = await EmailCodeFlow(client: server.client(), now: clock.function, sleep: { _ in clock.advance(by: 1) })
            await MainActor.run { flow.email = "grace@example.com" }
            await flow.sendCode()
            #expect(await eventually { await flow.resendCountdown == 0 })
            #expect(await flow.canResend)
        }
    }

    @Test func askingAgainTooSoonCountsDownTheServersWait() async throws {
        try await LiveServer.run { server in
            // Another device asked for a code for this address 20 seconds ago.
            _ = try await server.client().requestEmailCode(email: "grace@example.com")
            server.clock.advance(by: 20)
            let flow = await EmailCodeFlow(client: server.client(), now: server.clock.function, sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
            await MainActor.run { flow.email = "grace@example.com" }
            await flow.sendCode()
            #expect(await flow.errorMessage?.contains("40 seconds") == true)
            #expect(await flow.resendCountdown == 40)
        }
    }

    @Test func anInvalidEmailCannotBeSent() async throws {
        let client = ChatterClient(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: MemoryStore())
        let flow = await EmailCodeFlow(client: client)
        await MainActor.run { flow.email = "not-an-address" }
        #expect(await flow.canSendCode == false)
        #expect(await flow.emailMessage == "Enter an address like name@example.com.")
        await flow.sendCode()
        #expect(await flow.step == .email)
    }

    @Test func anUnreachableServerIsAnErrorNotACrash() async throws {
        let client = ChatterClient(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: MemoryStore())
        let flow = await EmailCodeFlow(client: client)
        await MainActor.run { flow.email = "grace@example.com" }
        await flow.sendCode()
        #expect(await flow.step == .email)
        #expect(await flow.errorMessage?.hasPrefix("Cannot reach the server") == true)
    }
}
