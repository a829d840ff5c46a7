import ChatterTestSupport
import Foundation
import Logging
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// The ways into an account (docs/journeys.md) as an app walks them with ChatterKit's flows against a live
/// chatterd, in the account states of its ChatterKit column: disabled by an operator (every way is refused with
/// the operator's message and keeps no session, a waiting second step too), deleted by its owner (refused, or a
/// new empty account), passkeys only (every way but a password reaches it), an authenticator app (the ways ask
/// for its code, a reset changes nothing before it) and a remembered device (the second step is skipped).
/// `JourneyKitTests+Sessions.swift` walks what an app does with a session it holds: the hand-off, a
/// passkey on an account with an app, and an old session's proof before it changes how the account signs in.
/// Its cases run one at a time (`.serialized`): each starts a live chatterd, and a hundred at once would
/// crowd the timing-bound tests of a 2-core machine running the whole suite in parallel.
@Suite(.serialized) struct JourneyKitTests {
    static let email = "ada@example.com"
    /// The password `SecondFactorFlowTests.enrolled` signs up with, and the one a sign-up or reset sets here.
    static let password = "correct horse battery staple"
    static let newPassword = "a brand new passphrase"
    static let disabled = "This account has been disabled by the server's operator; ask them to enable it again."
    static let wrongPassword = "The email or password is not right."

    /// A way into the account on `email` that ChatterKit offers an app.
    enum Way: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case google, apple, emailCode, passwordSignIn, passwordSignUp, passwordReset, passkeySignIn, passkeySignUp, course

        var testDescription: String { rawValue }
    }

    /// An account, the client that made it, and its passkey.
    struct Account {
        let id: UUID
        let client: ChatterClient
        let passkey: SoftwareAuthenticator
    }

    /// What a way came to: the client's session after it, its flow's banner, and the second step it offers.
    struct Outcome {
        let session: AuthSession?
        let banner: String?
        var secondStep: SecondStepForm? = nil
    }

    /// A password account on `email` that Google and Apple (vouching for the address) link to, with a passkey.
    @MainActor static func accountWithEveryWayIn(_ server: LiveServer) async throws -> Account {
        let client = server.client()
        _ = try await client.requestEmailCode(email: email)
        let owner = try await client.signUp(email: email, code: try #require(server.mail.lastCode(to: email)), password: password)
        let id = try #require(owner.user.flatMap { UUID(uuidString: $0.id) })
        let google = try await server.client().signInWithGoogle(idToken: try server.googleToken(subject: "ada"), clientID: TestIssuer.clientID)
        let nonce = Nonce(raw: "linking")
        let token = try server.appleToken(subject: "001.ada", nonce: nonce.raw, email: email)
        let apple = try await server.client().signInWithApple(AppleSignInRequest(identityToken: token, rawNonce: nonce.raw))
        try #require(google.user?.id == owner.user?.id && apple.user?.id == owner.user?.id, "Google and Apple link by the address")
        let passkey = SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)
        let flow = PasskeyFlow(client: client, authenticator: SoftwarePasskeys(device: passkey))
        try #require(await flow.addPasskey(), "\(flow.errorMessage ?? "")")
        return Account(id: id, client: client, passkey: passkey)
    }

    /// An account made by `PasskeyFlow.signUp`: its address and a passkey, no password.
    @MainActor static func passkeysOnlyAccount(_ server: LiveServer) async throws -> Account {
        let client = server.client()
        _ = try await client.requestEmailCode(email: email)
        let passkey = SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)
        let flow = PasskeyFlow(client: client, authenticator: SoftwarePasskeys(device: passkey))
        try #require(await flow.signUp(email: email, code: try #require(server.mail.lastCode(to: email))), "\(flow.errorMessage ?? "")")
        #expect(try await client.me().methods.contains("password") == false)
        return Account(id: try #require(flow.signedIn?.user.flatMap { UUID(uuidString: $0.id) }), client: client, passkey: passkey)
    }

    /// A code for `email` from `client`, asked for once the last one's cooldown is over.
    @MainActor static func freshCode(_ server: LiveServer, _ client: ChatterClient) async throws -> String {
        server.clock.advance(by: 61)
        _ = try await client.requestEmailCode(email: email)
        return try #require(server.mail.lastCode(to: email))
    }

    /// Walks `way` on `client` through the flow an app shows for it. A passkey sign-up makes a new passkey; a
    /// password sign-up or reset sets `newPassword`.
    @MainActor static func walk(_ way: Way, _ server: LiveServer, _ client: ChatterClient, passkey: SoftwareAuthenticator) async throws -> Outcome {
        var banner: String?
        var secondStep: SecondStepForm?
        switch way {
        case .google, .course:
            let flow = ChattFlow(client: client, clientID: TestIssuer.clientID, googleSession: way == .google ? .native : .course)
            _ = await flow.signIn(idToken: try server.googleToken(subject: "ada"))
            banner = flow.errorMessage
        case .apple:
            let flow = AppleSignInFlow(client: client)
            let nonce = flow.startRequest()
            await flow.complete(identityToken: try server.appleToken(subject: "001.ada", nonce: nonce.raw, email: email), name: nil, email: nil)
            banner = flow.errorMessage
        case .emailCode:
            let flow = EmailCodeFlow(client: client)
            flow.email = email
            server.clock.advance(by: 61)
            await flow.sendCode()
            flow.code = server.mail.lastCode(to: email) ?? ""
            await flow.verify()
            banner = flow.errorMessage
            if case .secondFactor(let step) = flow.step { secondStep = step }
        case .passwordSignIn, .passwordSignUp:
            let form = PasswordForm(client: client, mode: way == .passwordSignIn ? .signIn : .signUp)
            await form.load()
            form.email = email
            form.password = way == .passwordSignIn ? password : newPassword
            if way == .passwordSignUp { form.code = try await freshCode(server, client) }
            await form.submit()
            banner = form.errorBanner
            secondStep = form.secondStep
        case .passwordReset:
            // ChatterKit has no screen for a reset: an app calls the client and shows the error's banner.
            do { try await client.resetPassword(email: email, code: try await freshCode(server, client), newPassword: newPassword) } catch {
                banner = ChatterError.banner(for: error)
            }
        case .passkeySignIn:
            let flow = PasskeyFlow(client: client, authenticator: SoftwarePasskeys(device: passkey))
            await flow.signIn()
            banner = flow.errorMessage
        case .passkeySignUp:
            let code = try await freshCode(server, client)
            let flow = PasskeyFlow(client: client, authenticator: SoftwarePasskeys(device: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)))
            await flow.signUp(email: email, code: code)
            banner = flow.errorMessage
        }
        return Outcome(session: await client.sessions.currentSession, banner: banner, secondStep: secondStep)
    }

    /// The error `work` throws, as ChatterKit reports it.
    @MainActor static func refusal(_ work: () async throws -> AuthSession) async -> ChatterError? {
        do {
            _ = try await work()
            return nil
        } catch {
            return error as? ChatterError
        }
    }

    @Test(arguments: Way.allCases)
    func aDisabledAccountIsRefusedByEveryWayTheAppOffers(way: Way) async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await Self.accountWithEveryWayIn(server)
            let admin = AdminService(store: server.store, now: server.clock.function, logger: Logger(label: "journey-kit-admin"))
            try await admin.setDisabled(true, userID: account.id, by: .commandLine(login: "ops"))
            await #expect(throws: ChatterError.signedOut(.revoked), "disabling ended the owner's session") { try await account.client.me() }

            let store = MemoryStore()
            let outcome = try await Self.walk(way, server, server.client(store: store), passkey: account.passkey)
            #expect(outcome.banner == Self.disabled)
            #expect(outcome.session == nil)
            #expect(try await storedSession(in: store) == nil, "no session is kept")
            #expect(try await server.store.sessionCount() == 0)
            #expect(try await server.store.userCount() == 1, "no other account either")
            #expect(try await server.store.passkeys(of: account.id).count == 1, "no passkey was added")
        }
    }

    @Test(arguments: Way.allCases)
    func aDeletedAccountsWaysInAreRefusedOrMakeANewEmptyAccount(way: Way) async throws {
        try await LiveServer.run { @MainActor server in
            let old = try await Self.accountWithEveryWayIn(server)
            try await old.client.post("soon gone")
            let screen = AccountFlow(client: old.client)
            screen.requestDeletion()
            await screen.confirmDeletion()
            try #require(screen.isFinished, "\(screen.errorMessage ?? "")")
            #expect(try await server.store.userCount() == 0)

            let outcome = try await Self.walk(way, server, server.client(), passkey: old.passkey)
            switch way {
            case .passwordSignIn, .passkeySignIn:
                let refusal = way == .passwordSignIn ? Self.wrongPassword : "This passkey is not registered here; sign in another way."
                #expect(outcome.banner == refusal)
                #expect(outcome.session == nil)
                #expect(try await server.store.userCount() == 0, "no account")
            default:
                #expect(outcome.banner == nil)
                let session = try #require(outcome.session)
                let now = try await server.store.accounts(withEmail: Self.email).map(\.user.id)
                #expect(now.count == 1 && now.first != old.id, "a new account: \(now) after \(old.id)")
                if session.kind == .native { #expect(session.user.flatMap { UUID(uuidString: $0.id) } == now.first) }
                #expect(try await server.store.userCount() == 1)
                #expect(try await server.store.chattCount() == 0, "the old chatts went with the old account")
                #expect(try await server.store.passkeys(of: try #require(now.first)).count == (way == .passkeySignUp ? 1 : 0))
            }
        }
    }

    @Test(arguments: Way.allCases)
    func aPasskeysOnlyAccountIsReachedByEveryWayButAPassword(way: Way) async throws {
        try await LiveServer.run { @MainActor server in
            let account = try await Self.passkeysOnlyAccount(server)
            let outcome = try await Self.walk(way, server, server.client(), passkey: account.passkey)
            #expect(try await server.store.userCount() == 1, "no other account")
            guard way != .passwordSignIn else {
                #expect(outcome.banner == Self.wrongPassword, "refused as an address with no account is")
                #expect(outcome.session == nil)
                return
            }
            #expect(outcome.banner == nil)
            let session = try #require(outcome.session)
            if session.kind == .native { #expect(session.user.flatMap { UUID(uuidString: $0.id) } == account.id) }
            #expect(try await server.store.accounts(withEmail: Self.email).map(\.user.id) == [account.id])
            if way == .passwordSignUp || way == .passwordReset {
                let signedIn = try await server.client().signIn(email: Self.email, password: Self.newPassword)
                #expect(signedIn.user.flatMap { UUID(uuidString: $0.id) } == account.id, "its first password")
            }
        }
    }

    @Test(arguments: [Way.google, .apple, .passwordSignUp, .course, .passkeySignUp])
    func anAccountWithAnAppAsksTheOtherWaysInForItsCodeOrRefusesThem(way: Way) async throws {
        try await LiveServer.run { @MainActor server in
            let owner = server.client()
            let (enrolment, _) = try await SecondFactorFlowTests.enrolled(server, owner)
            let id = try await owner.me().id
            let client = server.client()
            var step: SecondStepForm?
            switch way {
            case .google, .apple:
                // AppleSignInFlow and ChattFlow show the challenge only as a banner: an app reads it from the client.
                let nonce = Nonce(raw: "second")
                let apple = try server.appleToken(subject: "001.ada", nonce: nonce.raw, email: Self.email)
                let asked = await Self.refusal {
                    way == .google
                        ? try await client.signInWithGoogle(idToken: try server.googleToken(subject: "ada"), clientID: TestIssuer.clientID)
                        : try await client.signInWithApple(AppleSignInRequest(identityToken: apple, rawNonce: nonce.raw))
                }
                step = asked?.secondFactorChallenge.map { SecondStepForm(client: client, challenge: $0) }
            default:
                let outcome = try await Self.walk(way, server, client, passkey: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin))
                step = outcome.secondStep
                if way != .passwordSignUp {
                    #expect(outcome.banner == "This account has a second factor: sign in with the app or the web pages.")
                    #expect(outcome.session == nil && step == nil, "no second step can follow")
                    #expect(try await server.store.sessionCount() == 1, "the owner's only")
                    return
                }
            }
            let second = try #require(step, "asked for the app's code")
            #expect(await client.sessions.currentSession == nil, "nothing before the code")
            second.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await second.submit(), "\(second.errorBanner ?? "")")
            #expect(try await client.me().id == id)
            if way == .passwordSignUp {
                let next = await Self.refusal { try await server.client().signIn(email: Self.email, password: Self.newPassword) }
                #expect(next?.secondFactorChallenge != nil, "the new password passes the first factor once the code did")
            }
        }
    }

    @Test func aResetByEmailedCodeWithAnAppChangesNothingUntilTheAppsCode() async throws {
        try await LiveServer.run { @MainActor server in
            let laptop = server.client()
            let (enrolment, _) = try await SecondFactorFlowTests.enrolled(server, laptop)
            let store = MemoryStore()
            let phone = server.client(store: store)
            let code = try await Self.freshCode(server, phone)
            let asked = await Self.refusal { try await phone.resetPassword(email: Self.email, code: code, newPassword: Self.newPassword) }
            let challenge = try #require(asked?.secondFactorChallenge, "the reset asks for the app's code: \(String(describing: asked))")
            #expect(try await storedSession(in: store) == nil)
            #expect(try await laptop.me().email == Self.email, "no session ended on a mailbox alone")
            let early = await Self.refusal { try await server.client().signIn(email: Self.email, password: Self.newPassword) }
            #expect(early?.code == ErrorCode.invalidCredentials.rawValue, "the new password waits for the app's code")

            let step = SecondStepForm(client: phone, challenge: challenge, email: Self.email)
            step.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await step.submit(), "\(step.errorBanner ?? "")")
            #expect(try await phone.me().email == Self.email)
            #expect(try await storedSession(in: store) != nil)
            await #expect(throws: ChatterError.signedOut(.revoked), "the other device's session ended") { try await laptop.me() }

            let old = await Self.refusal { try await server.client().signIn(email: Self.email, password: Self.password) }
            #expect(old?.code == ErrorCode.invalidCredentials.rawValue, "the old password is gone")
            let form = PasswordForm(client: server.client())
            form.email = Self.email
            form.password = Self.newPassword
            #expect(await form.submit() == false)
            let next = try #require(form.secondStep, "the new password passes the first factor: \(form.errorBanner ?? "")")
            next.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await next.submit(), "\(next.errorBanner ?? "")")
        }
    }

    /// A password sign-in on `client` that stops at the second step: the form, and the step it offers.
    @MainActor static func askedForTheCode(_ client: ChatterClient) async throws -> (PasswordForm, SecondStepForm) {
        let form = PasswordForm(client: client)
        form.email = Self.email
        form.password = Self.password
        #expect(await form.submit() == false)
        return (form, try #require(form.secondStep, "asked for the app's code: \(form.errorBanner ?? "")"))
    }

    /// A device that passed the second step with "remember" ticked, then signed out: its store, and the app.
    @MainActor static func rememberedDevice(_ server: LiveServer) async throws -> (MemoryStore, TOTPEnrolment) {
        let (enrolment, _) = try await SecondFactorFlowTests.enrolled(server, server.client())
        let store = MemoryStore()
        let (_, step) = try await askedForTheCode(server.client(store: store))
        step.rememberDevice = true
        step.code = try SecondFactorFlowTests.code(enrolment, server)
        #expect(await step.submit(), "\(step.errorBanner ?? "")")
        try await server.client(store: store).sessions.signOut()
        return (store, enrolment)
    }

    @Test func aDeviceThatAskedToBeRememberedSkipsTheSecondStepNextTime() async throws {
        try await LiveServer.run { @MainActor server in
            let (store, _) = try await Self.rememberedDevice(server)
            let again = PasswordForm(client: server.client(store: store))
            await again.load()
            again.password = Self.password
            #expect(await again.submit(), "\(again.errorBanner ?? "")")
            #expect(again.secondStep == nil, "no code asked")
            let current = try await server.client(store: store).activeSessions().first { $0.current }
            #expect(current?.secondFactor == SecondFactorKind.rememberedDevice.rawValue)

            try await server.client(store: store).sessions.signOut()
            let byCode = try await Self.walk(.emailCode, server, server.client(store: store), passkey: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin))
            #expect(byCode.session != nil && byCode.banner == nil, "the emailed code skips the step too")

            let elsewhere = PasswordForm(client: server.client())
            elsewhere.email = Self.email
            elsewhere.password = Self.password
            #expect(await elsewhere.submit() == false)
            #expect(elsewhere.secondStep != nil, "a device that did not ask is still asked")
        }
    }

    /// What ends an account while one of its sign-ins waits for the second step.
    enum Ending: String, CaseIterable, Sendable { case disabled, deleted }

    @Test(arguments: Ending.allCases)
    func aSecondStepWaitingWhenTheAccountEndsStartsNoSession(ending: Ending) async throws {
        try await LiveServer.run { @MainActor server in
            let owner = server.client()
            let (enrolment, _) = try await SecondFactorFlowTests.enrolled(server, owner)
            let store = MemoryStore()
            let (form, step) = try await Self.askedForTheCode(server.client(store: store))
            switch ending {
            case .disabled:
                let admin = AdminService(store: server.store, now: server.clock.function, logger: Logger(label: "journey-kit-admin"))
                try await admin.setDisabled(true, userID: try #require(UUID(uuidString: try await owner.me().id)), by: .commandLine(login: "ops"))
            case .deleted:
                // Confirming the app was a step-up: the owner deletes the account from the other device at once.
                try await owner.deleteAccount()
            }

            step.code = try SecondFactorFlowTests.code(enrolment, server)
            #expect(await step.submit() == false)
            #expect(step.mustStartOver)
            #expect(step.errorBanner == "This sign-in has expired or was completed; sign in again.")
            #expect(try await storedSession(in: store) == nil)
            #expect(try await server.store.sessionCount() == 0)
            #expect(try await server.store.userCount() == (ending == .deleted ? 0 : 1), "no account came back")
            // Starting over: the account's state shows at once; no code is asked for that could not help.
            form.password = Self.password
            #expect(await form.submit() == false)
            #expect(form.errorBanner == (ending == .disabled ? Self.disabled : Self.wrongPassword))
            #expect(form.secondStep == nil)
            #expect(try await storedSession(in: store) == nil)
            if ending == .disabled {
                #expect(try await server.store.auditEvents(userID: nil).contains { $0.detail == AuditLog.accountDisabled }, "the refusal is audited")
            }
        }
    }
}
