import ExtrasBase64
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// The second factor through ChatterKit against a live chatterd: adding an authenticator app, the second
/// step after a password or an emailed code, recovery codes, and the step-up prompt.
@Suite struct SecondFactorFlowTests {
    /// The code an authenticator app shows now for `secret`; the clock moves on a step first.
    static func code(_ enrolment: TOTPEnrolment, _ server: LiveServer) throws -> String {
        server.clock.advance(by: 30)
        return TOTP(secret: try enrolment.secret.base32decoded()).code(step: TOTP.step(at: server.clock.now))
    }

    /// A password account with the app turned on through `AuthenticatorSetup`; its key and recovery codes.
    static func enrolled(_ server: LiveServer, _ client: ChatterClient) async throws -> (TOTPEnrolment, [String]) {
        _ = try await client.requestEmailCode(email: "ada@example.com")
        try await client.signUp(
            email: "ada@example.com", code: try #require(server.mail.lastCode(to: "ada@example.com")), password: "correct horse battery staple")
        let setup = await AuthenticatorSetup(client: client)
        #expect(await setup.qrPayload == nil)
        await setup.start()
        guard case .scanning(let enrolment) = await setup.step else {
            Issue.record("no key: \(await setup.errorBanner ?? "")")
            throw CancellationError()
        }
        #expect(await setup.qrPayload == Data(enrolment.uri.utf8))
        #expect(await setup.secret?.replacingOccurrences(of: " ", with: "") == enrolment.secret)
        await MainActor.run { setup.code = "12345" }
        #expect(await setup.canConfirm == false)
        await MainActor.run { setup.code = "000000" }
        await setup.confirm()
        #expect(await setup.errorBanner != nil, "a wrong first code")
        await MainActor.run { setup.code = (try? code(enrolment, server)) ?? "" }
        await setup.confirm()
        guard case .showingCodes(let codes) = await setup.step else {
            Issue.record("not enabled: \(await setup.errorBanner ?? "")")
            throw CancellationError()
        }
        #expect(codes.count == 10)
        #expect(try await client.secondFactorStatus().recoveryCodesLeft == 10)
        return (enrolment, codes)
    }

    @Test func thePasswordFormAsksForTheCodeAndTheSecondStepSignsIn() async throws {
        try await LiveServer.run { server in
            let (enrolment, _) = try await Self.enrolled(server, server.client())
            let store = MemoryStore()
            let form = await PasswordForm(client: server.client(store: store))
            await MainActor.run {
                form.email = "ada@example.com"
                form.password = "correct horse battery staple"
            }
            #expect(await form.submit() == false)
            #expect(await form.errorBanner == nil, "being asked for the code is not a failure")
            #expect(await form.password.isEmpty)
            let step = try #require(await form.secondStep)
            #expect(await step.canSubmit == false)
            await MainActor.run { step.code = "000 000" }
            #expect(await step.kind == .authenticator)
            #expect(await step.submit() == false)
            #expect(await step.errorBanner == "That code is not right. Type the code your authenticator app shows now, or a recovery code.")
            #expect(await step.code.isEmpty)
            await MainActor.run { step.code = (try? Self.code(enrolment, server)) ?? "" }
            #expect(await step.submit())
            #expect(store.keys.contains(StoreKey.device("ada@example.com")), "the device token arrives with the session")
            #expect(try await server.client(store: store).activeSessions().first { $0.current }?.secondFactor == "totp")
        }
    }

    @Test func theEmailCodeFlowAsksTooAndARecoveryCodeWorksOnce() async throws {
        try await LiveServer.run { server in
            let (_, codes) = try await Self.enrolled(server, server.client())
            let flow = await EmailCodeFlow(client: server.client())
            await MainActor.run { flow.email = "ada@example.com" }
            await flow.sendCode()
            await MainActor.run { flow.code = server.mail.lastCode(to: "ada@example.com") ?? "" }
            await flow.verify()
            guard case .secondFactor(let step) = await flow.step else {
                Issue.record("no second step: \(await flow.step)")
                return
            }
            await MainActor.run { step.code = codes[2] }
            #expect(await step.kind == .recovery)
            #expect(await step.submit())
            #expect(server.mail.messages.last?.subject == "A recovery code was used for your Chatter account")
        }
    }

    @Test func anExpiredWaitingSignInSaysToStartOver() async throws {
        try await LiveServer.run { server in
            let (enrolment, _) = try await Self.enrolled(server, server.client())
            let client = server.client()
            var challenge: SecondFactorChallenge?
            do { try await client.signIn(email: "ada@example.com", password: "correct horse battery staple") } catch let error as ChatterError {
                challenge = error.secondFactorChallenge
            }
            let step = await SecondStepForm(client: client, challenge: try #require(challenge), email: "ada@example.com")
            server.clock.advance(by: SecondFactorService.stepLifetime)
            await MainActor.run { step.code = (try? Self.code(enrolment, server)) ?? "" }
            #expect(await step.submit() == false)
            #expect(await step.mustStartOver)
            #expect(await step.canSubmit == false)
        }
    }

    @Test func theStepUpPromptAsksThenRunsTheActionAgain() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            let (enrolment, _) = try await Self.enrolled(server, client)
            server.clock.advance(by: StepUp.window)
            let prompt = await StepUpPrompt(client: client)
            let deleting = Task { @MainActor in try await prompt.perform(.deleteAccount) { try await client.deleteAccount() } }
            #expect(await eventually { await prompt.asking == .secondFactor })
            #expect(await prompt.errorBanner == nil)
            await MainActor.run { prompt.code = "000000" }
            #expect(await prompt.submitCode() == false)
            #expect(await prompt.errorBanner != nil)
            #expect(await prompt.asking == .secondFactor, "still asking")
            await MainActor.run { prompt.code = (try? Self.code(enrolment, server)) ?? "" }
            #expect(await prompt.submitCode())
            #expect(try await deleting.value, "perform waited for the code, then ran the action")
            #expect(await prompt.asking == nil)
            #expect(try await server.store.userCount() == 0, "the action ran after the step-up")
        }
    }
}
