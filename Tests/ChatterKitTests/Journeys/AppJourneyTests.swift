import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// ChatterUI's journeys walked through their view models against a live chatterd, as a user would: tapping (the
/// methods the screens' buttons call), typing with the keyboard each field declares, cancelling, leaving a screen
/// (its task cancelled), letting a waiting sign-in expire. Each asserts that every state reached shows a way
/// forward, and where it leads. The screens switch over the same states (`StepUpPrompt.Ask`,
/// `PasswordForm.Progress`, `AuthenticatorSetup.Step`, `BiometricGate.Screen`), so a state without its view
/// fails `.ci/apple-typecheck`. Serialized: each case starts a live chatterd.
@Suite(.serialized) @MainActor struct AppJourneyTests {
    static let email = JourneyKitTests.email
    static let password = JourneyKitTests.password

    /// Types `text` key by key on `keyboard`: keys it lacks type nothing, as on a number pad.
    static func type(_ text: String, on keyboard: CodeKeyboard) -> String { String(text.filter(keyboard.types)) }

    /// A password account with an authenticator app, and a second client signed in to it through its code.
    static func accountWithAnApp(_ server: LiveServer) async throws -> (client: ChatterClient, other: ChatterClient, TOTPEnrolment, [String]) {
        let client = server.client()
        let (enrolment, codes) = try await SecondFactorFlowTests.enrolled(server, client)
        let other = server.client()
        do {
            try await other.signIn(email: email, password: password)
            Issue.record("signed in without the app's code")
        } catch let error as ChatterError {
            try await other.completeSignIn(try #require(error.secondFactorChallenge), code: try SecondFactorFlowTests.code(enrolment, server))
        }
        return (client, other, enrolment, codes)
    }

    // MARK: Step-up

    @Test func deletingTheAccountLaterAsksForTheAppsCodeAndARecoveryCodeIsTypedOnItsKeyboard() async throws {
        try await LiveServer.run { @MainActor server in
            let (client, _, _, codes) = try await Self.accountWithAnApp(server)
            server.clock.advance(by: StepUp.window)
            let account = AccountFlow(client: client)
            account.requestDeletion()
            let deleting = Task { await account.confirmDeletion() }
            #expect(await eventually { await account.stepUp.asking == .secondFactor }, "the code prompt, not a banner without a field")
            #expect(account.stepUp.purpose == .deleteAccount)
            #expect(account.errorMessage == nil)
            // On the number pad a recovery code types only its digits: no code of either kind, nothing sent.
            #expect(account.stepUp.codeKeyboard == .digits)
            account.stepUp.code = Self.type(codes[0], on: account.stepUp.codeKeyboard)
            #expect(SecondFactorCodeKind(account.stepUp.code) != .recovery)
            // "Use a recovery code": the full keyboard.
            account.stepUp.switchKeyboard()
            #expect(account.stepUp.codeKeyboard == .lettersAndDigits)
            account.stepUp.code = Self.type(codes[0], on: account.stepUp.codeKeyboard)
            #expect(await account.stepUp.submitCode(), "\(account.stepUp.errorBanner ?? "")")
            await deleting.value
            #expect(account.isFinished, "the deletion ran once confirmed")
            #expect(try await server.store.userCount() == 0)
        }
    }

    @Test func endingAnotherSessionCancelledOrLeftChangesNothingAndTheCodeEndsIt() async throws {
        try await LiveServer.run { @MainActor server in
            let (client, _, enrolment, _) = try await Self.accountWithAnApp(server)
            server.clock.advance(by: StepUp.window)
            let list = SessionList(client: client)
            await list.load()
            let other = try #require(list.rows.first { !$0.isCurrent })

            // Cancel: the row stays, and no banner says anything went wrong.
            let cancelled = Task { await list.revoke(other) }
            #expect(await eventually { await list.stepUp.asking == .secondFactor })
            #expect(list.stepUp.purpose == .endSession)
            list.stepUp.cancel()
            await cancelled.value
            #expect(list.rows.contains(other) && list.errorMessage == nil && list.stepUp.asking == nil)

            // Leaving the screen (its task ends) gives the action up too, and closes the prompt.
            let left = Task { await list.revoke(other) }
            #expect(await eventually { await list.stepUp.asking == .secondFactor })
            left.cancel()
            await left.value
            #expect(await eventually { await list.stepUp.asking == nil })
            #expect(try await client.activeSessions().count == 2)

            // The app's code: the session ends.
            let ending = Task { await list.revoke(other) }
            #expect(await eventually { await list.stepUp.asking == .secondFactor })
            list.stepUp.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await list.stepUp.submitCode())
            await ending.value
            #expect(!list.rows.contains(other))
            #expect(try await client.activeSessions().count == 1)
        }
    }

    @Test func anOldSessionSignsInAgainWithThePasswordNotAnotherAccountThenAddsThePasskey() async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await JourneyKitTests.accountWithEveryWayIn(server)
            server.clock.advance(by: StepUp.window)
            let old = try #require(await account.client.sessions.session?.sessionID)
            let newDevice = SoftwarePasskeys(device: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin))
            let flow = PasskeyFlow(client: account.client, authenticator: newDevice)
            let adding = Task { await flow.addPasskey() }
            #expect(await eventually { await flow.stepUp.asking == .signInAgain })
            #expect(flow.stepUp.purpose == .addPasskey)
            #expect(flow.stepUp.ways == [.passkey, .password, .emailCode, .google, .apple], "every way the account has")
            #expect(flow.stepUp.email == Self.email)

            // Another Google account proves nothing about this one: refused, its session ended, ours unchanged.
            let stranger = try server.googleToken(subject: "someone-else")
            #expect(await flow.stepUp.confirm(with: .google(idToken: stranger, clientID: TestIssuer.clientID)) == false)
            #expect(flow.stepUp.errorBanner == ChatterError.otherAccount.message)
            #expect(await account.client.sessions.session?.sessionID == old)
            #expect(flow.stepUp.asking == .signInAgain, "still asking")

            flow.stepUp.password = "not the password"
            #expect(await flow.stepUp.submitPassword() == false)
            #expect(flow.stepUp.errorBanner == JourneyKitTests.wrongPassword)
            flow.stepUp.password = Self.password
            #expect(await flow.stepUp.submitPassword(), "\(flow.stepUp.errorBanner ?? "")")
            #expect(await adding.value, "\(flow.errorMessage ?? "")")
            #expect(try await server.store.passkeys(of: account.id).count == 2)
            // The new sign-in replaced the old session, which ended: one session on this device, not two.
            let now = try #require(await account.client.sessions.session?.sessionID)
            #expect(now != old)
            #expect(try await account.client.activeSessions().map(\.id).contains(old) == false)
        }
    }

    @Test func signingInAgainKeepsTheLaunchsSignInWithAppleCheckOnTheNewSession() async throws {
        try await LiveServer.run { @MainActor server in
            _ = try await JourneyKitTests.accountWithEveryWayIn(server)
            let store = MemoryStore()
            let client = server.client(store: store)
            let apple = AppleSignInFlow(client: client)
            let nonce = apple.startRequest()
            let token = try server.appleToken(subject: "001.ada", nonce: nonce.raw, email: Self.email)
            #expect(await apple.complete(identityToken: token, name: nil, email: Self.email, user: "001.ada"), "\(apple.errorMessage ?? "")")
            server.clock.advance(by: StepUp.window)
            let flow = PasskeyFlow(client: client, authenticator: SoftwarePasskeys(device: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)))
            let adding = Task { await flow.addPasskey() }
            #expect(await eventually { await flow.stepUp.asking == .signInAgain })
            flow.stepUp.password = Self.password
            #expect(await flow.stepUp.submitPassword(), "\(flow.stepUp.errorBanner ?? "")")
            #expect(await adding.value)
            let now = try #require(await client.sessions.session?.sessionID)
            let data = try #require(try await store.read(StoreKey.appleSignIn))
            #expect(try JSONDecoder().decode(AppleSignInRecord.self, from: data).sessionID == now, "Apple's launch check covers the session that replaced it")
        }
    }

    @Test func anEmailedCodeConfirmsItIsYouOnAnAccountWithoutAPassword() async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await JourneyKitTests.passkeysOnlyAccount(server)
            server.clock.advance(by: StepUp.window)
            let setup = AuthenticatorSetup(client: account.client)
            await setup.load()
            #expect(setup.step == .off)
            let starting = Task { await setup.start() }
            #expect(await eventually { await setup.stepUp.asking == .signInAgain })
            #expect(setup.stepUp.ways == [.emailCode], "no password, and this prompt has no authenticator")
            #expect(await setup.stepUp.submitEmailCode() == false, "no code sent yet")
            server.clock.advance(by: 61)
            await setup.stepUp.sendEmailCode()
            #expect(setup.stepUp.emailCodeSent, "\(setup.stepUp.errorBanner ?? "")")
            setup.stepUp.code = Self.type(try #require(server.mail.lastCode(to: Self.email)), on: .digits)
            #expect(await setup.stepUp.submitEmailCode(), "\(setup.stepUp.errorBanner ?? "")")
            await starting.value
            guard case .scanning = setup.step else {
                Issue.record("no key after confirming: \(setup.step), \(setup.errorBanner ?? "")")
                return
            }
        }
    }

    // MARK: The authenticator app

    @Test func addingAnAppOnTheSamePhoneThenNewCodesThenTurningItOff() async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await JourneyKitTests.accountWithEveryWayIn(server)
            server.clock.advance(by: StepUp.window)
            let setup = AuthenticatorSetup(
                client: account.client, stepUp: StepUpPrompt(client: account.client, authenticator: SoftwarePasskeys(device: account.passkey)))
            // A second screen read before the first turns it on.
            let stale = AuthenticatorSetup(client: account.client)
            await stale.load()
            await setup.load()
            #expect(setup.step == .off, "offers Add only when there is none")

            let starting = Task { await setup.start() }
            #expect(await eventually { await setup.stepUp.asking == .signInAgain })
            #expect(await setup.stepUp.usePasskey(), "\(setup.stepUp.errorBanner ?? "")")
            await starting.value
            guard case .scanning(let enrolment) = setup.step else {
                Issue.record("no key: \(setup.step) \(setup.errorBanner ?? "")")
                return
            }
            #expect(setup.keyURL?.scheme == "otpauth", "a link to the authenticator on this phone")
            #expect(setup.secret?.replacingOccurrences(of: " ", with: "") == enrolment.secret)
            setup.code = Self.type(try SecondFactorFlowTests.code(enrolment, server), on: .digits)
            await setup.confirm()
            guard case .showingCodes(let codes) = setup.step else {
                Issue.record("not on: \(setup.step) \(setup.errorBanner ?? "")")
                return
            }
            #expect(codes.allSatisfy { setup.recoveryCodesText?.contains($0) == true }, "Copy and Share carry every code")
            setup.savedRecoveryCodes()
            #expect(setup.step == .on(recoveryCodesLeft: 10))

            // The stale screen's "Add" shows the app as it is instead of a 409 banner.
            await stale.start()
            #expect(stale.step == .on(recoveryCodesLeft: 10))
            #expect(stale.errorBanner == nil)

            setup.code = codes[0]
            await setup.newRecoveryCodes()
            guard case .showingCodes(let fresh) = setup.step else {
                Issue.record("no new codes: \(setup.errorBanner ?? "")")
                return
            }
            #expect(Set(fresh).isDisjoint(with: codes))
            setup.savedRecoveryCodes()
            setup.code = try SecondFactorFlowTests.code(enrolment, server)
            await setup.turnOff()
            #expect(setup.step == .off, "\(setup.errorBanner ?? "")")
            #expect(try await account.client.secondFactorStatus().enabled == false)
        }
    }

    // MARK: The second step of a sign-in

    @Test func thePasswordFormsSecondStepSignsInOrStartsOverWhenItExpired() async throws {
        try await LiveServer.run { @MainActor server in
            let (_, _, enrolment, _) = try await Self.accountWithAnApp(server)
            let form = PasswordForm(client: server.client())
            form.email = Self.email
            form.password = Self.password
            await form.submit()
            guard case .secondStep(let step) = form.progress else {
                Issue.record("no second step: \(form.progress)")
                return
            }
            step.code = Self.type(try SecondFactorFlowTests.code(enrolment, server), on: step.codeKeyboard)
            #expect(await step.submit())
            #expect(form.progress == .signedIn(try #require(step.signedIn)), "the form reports the session")
            #expect(form.signedIn != nil)

            let late = PasswordForm(client: server.client())
            late.email = Self.email
            late.password = Self.password
            await late.submit()
            guard case .secondStep(let waiting) = late.progress else { return }
            server.clock.advance(by: SecondFactorService.stepLifetime)
            waiting.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await waiting.submit() == false)
            #expect(waiting.mustStartOver && !waiting.canSubmit)
            waiting.startOver()
            #expect(late.progress == .form, "Start Again shows the form")
            #expect(late.errorBanner?.contains("waited too long") == true)
            late.password = Self.password
            await late.submit()
            guard case .secondStep = late.progress else {
                Issue.record("the form did not go on: \(late.progress)")
                return
            }
        }
    }

    @Test func theEmailCodesSecondStepStartsOverAtTheAddress() async throws {
        try await LiveServer.run { @MainActor server in
            _ = try await Self.accountWithAnApp(server)
            let flow = EmailCodeFlow(client: server.client())
            flow.email = Self.email
            server.clock.advance(by: 61)
            await flow.sendCode()
            flow.code = try #require(server.mail.lastCode(to: Self.email))
            await flow.verify()
            guard case .secondFactor(let step) = flow.step else {
                Issue.record("no second step: \(flow.step)")
                return
            }
            step.startOver()
            #expect(flow.step == .email, "Sign In Another Way")
            #expect(flow.email == Self.email)
            #expect(flow.canSendCode)
        }
    }

    @Test func signInWithAppleOnAnAccountWithAnAppAsksForItsCodeOnceAndRecordsTheSession() async throws {
        try await LiveServer.run { @MainActor server in
            let (_, _, enrolment, _) = try await Self.accountWithAnApp(server)
            let store = MemoryStore()
            let flow = AppleSignInFlow(client: server.client(store: store))
            let nonce = flow.startRequest()
            let token = try server.appleToken(subject: "001.ada", nonce: nonce.raw, email: Self.email)
            #expect(await flow.complete(identityToken: token, name: NameParts(givenName: "Ada"), email: Self.email, user: "001.ada") == false)
            let step = try #require(flow.secondStep, "the code's field, not a banner: \(flow.errorMessage ?? "")")
            #expect(flow.errorMessage == nil)
            #expect(await flow.retryPendingRegistration() == false, "the answered registration is not sent again as the view reappears")
            step.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await step.submit())
            #expect(flow.secondStep == nil)
            let session = try #require(flow.signedIn)
            #expect(await eventually { (try? await store.read(StoreKey.appleSignIn)) != nil })
            let data = try #require(try await store.read(StoreKey.appleSignIn), "the launch check covers a session completed by its code")
            #expect(
                try JSONDecoder().decode(AppleSignInRecord.self, from: data) == AppleSignInRecord(user: "001.ada", sessionID: try #require(session.sessionID)))
        }
    }

    @Test func aPostAfterGoogleOnAnAccountWithAnAppWaitsForItsCode() async throws {
        try await LiveServer.run { @MainActor server in
            let (_, _, enrolment, _) = try await Self.accountWithAnApp(server)
            let flow = ChattFlow(client: server.client(), clientID: TestIssuer.clientID, googleSession: .native)
            flow.draft = "Hello after two steps"
            let posting = Task { await flow.postDraft() }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.completeSignIn(using: { try server.googleToken(subject: "ada") })
            #expect(await eventually { await flow.secondStep != nil })
            #expect(flow.showsSignInSheet, "the sheet stays for the code")
            let step = try #require(flow.secondStep)
            step.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await step.submit())
            #expect(await posting.value, "\(flow.errorMessage ?? "")")
            #expect(flow.showsSignInSheet == false)
            #expect(try await server.store.chatts(before: nil, limit: 10).contains { $0.message == "Hello after two steps" })
        }
    }
}
