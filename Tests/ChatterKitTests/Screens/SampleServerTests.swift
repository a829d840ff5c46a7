import Foundation
import Testing

@testable import ChatterKit

/// The sample data behind ChatterUI's previews: every screen's first request gets a plausible answer.
@MainActor @Suite struct SampleServerTests {
    @Test func everyScreenLoadsFromTheSampleServer() async throws {
        let timeline = ChattFlow(client: .sample(signedIn: false), clientID: "preview")
        await timeline.launch()
        await timeline.reload()
        #expect(timeline.chatts.count == 3 && timeline.chatts.allSatisfy { $0.postedAt != nil })
        #expect(timeline.advisory == nil)

        let signedIn = ChattFlow(client: .sample(), clientID: "preview")
        await signedIn.launch()
        #expect(signedIn.advisory == .sessionAvailable(username: SampleServer.username))
        #expect(await signedIn.post("hi"))

        let sessions = SessionList(client: .sample())
        await sessions.load()
        #expect(sessions.rows.map(\.device) == ["Chatter app", "Mac", "chatter (terminal)"])

        let account = AccountFlow(client: .sample())
        await account.load()
        #expect(account.profile?.displayName == SampleServer.username && account.methodsDescription == "Google, Password, Passkey")

        let form = PasswordForm(client: .sample(signedIn: false))
        await form.load()
        #expect(form.policy?.minimumLength == 8)
        form.email = "ada@example.com"
        form.password = "a long passphrase"
        #expect(await form.submit())

        let code = EmailCodeFlow(client: .sample(signedIn: false))
        code.email = "ada@example.com"
        await code.sendCode()
        #expect(code.step == .code)

        let web = WebSignIn(client: .sample())
        await web.load()
        #expect(web.request?.url?.host == "chatter.example")
    }

    @Test func theTwoStepSampleAsksForTheCodeAndToConfirmItIsYou() async throws {
        let form = PasswordForm(client: .sample(signedIn: false, secondFactor: true))
        form.email = "ada@example.com"
        form.password = "a long passphrase"
        await form.submit()
        guard case .secondStep(let step) = form.progress else {
            Issue.record("no second step: \(form.progress)")
            return
        }
        step.code = "000000"
        #expect(await step.submit() == false)
        #expect(step.errorBanner != nil)
        step.switchKeyboard()
        step.code = SampleServer.recoveryCode
        #expect(await step.submit())
        #expect(form.signedIn != nil)

        let account = AccountFlow(client: .sample(secondFactor: true))
        let deleting = Task { await account.confirmDeletion() }
        #expect(await eventually { await account.stepUp.asking == .secondFactor })
        #expect(account.stepUp.offersPasskey == false, "the account screen's prompt has no authenticator")
        account.stepUp.code = SampleServer.appCode
        #expect(await account.stepUp.submitCode())
        await deleting.value
        #expect(account.isFinished)

        let setup = AuthenticatorSetup(client: .sample())
        await setup.load()
        #expect(setup.step == .off)
        await setup.start()
        #expect(setup.keyURL?.scheme == "otpauth")
        setup.code = SampleServer.appCode
        await setup.confirm()
        #expect(setup.recoveryCodesText != nil)
        #expect(StepUpPrompt.sample(asking: .signInAgain).ways == [.passkey, .password, .emailCode])

        let passkeys = PasskeyFlow(client: .sample(), authenticator: SamplePasskeys())
        #expect(await passkeys.signIn() == false)
        #expect(passkeys.errorMessage == nil, "a sample sheet ends as a cancel: no banner")
    }

    @Test func aRouteChatterdDoesNotServeIsItsNotFound() async throws {
        let answer = try await SampleServer().send(TransportRequest(method: "GET", url: URL(string: "https://chatter.example/nowhere")!))
        #expect(answer.status == 404)
        #expect(try JSONDecoder().decode(ErrorBody.self, from: answer.body).error == "not_found")
        let revoke = try await SampleServer().send(TransportRequest(method: "DELETE", url: URL(string: "https://chatter.example/v1/sessions/abc")!))
        #expect(revoke.status == 200)
    }
}
