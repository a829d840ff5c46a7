import ChatterTestSupport
import Foundation
import Logging
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// More of docs/journeys.md's ChatterKit column, on what an app does with a session it holds: hand it to a
/// browser (in each account state), get one by passkey on an account with an app, and show it is the owner's
/// again before it changes how the account signs in.
extension JourneyKitTests {
    /// The state an app's account is in when the app hands its session to a browser.
    enum HandOffState: String, CaseIterable, Sendable { case appOn, passkeysOnly, disabled, deleted }

    /// Opens a hand-off link as the app's web view does, with the app's header: the status, and whether the
    /// answer set the browser's session cookie.
    static func open(_ request: URLRequest) async throws -> (status: Int, sessionCookie: Bool) {
        let web = URLSessionTransport(session: URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil))
        let answer = try await web.send(TransportRequest(method: "GET", url: try #require(request.url), headers: request.allHTTPHeaderFields ?? [:]))
        return (answer.status, answer.headers.contains { $0.key.lowercased() == "set-cookie" && $0.value.hasPrefix("__Host-chatter-session=") })
    }

    /// An app signed in by password and the app's code, on an account with an authenticator app.
    @MainActor static func signedInWithTheAppsCode(_ server: LiveServer) async throws -> ChatterClient {
        let (enrolment, _) = try await SecondFactorFlowTests.enrolled(server, server.client())
        let app = server.client()
        let (_, step) = try await askedForTheCode(app)
        step.code = try SecondFactorFlowTests.code(enrolment, server)
        #expect(await step.submit(), "\(step.errorBanner ?? "")")
        return app
    }

    @Test(arguments: HandOffState.allCases)
    func theAppHandsItsSessionToABrowserWhileTheAccountIsUsable(state: HandOffState) async throws {
        try await LiveServer.run { @MainActor server in
            let app: ChatterClient
            switch state {
            case .appOn:
                app = try await Self.signedInWithTheAppsCode(server)
            case .passkeysOnly:
                app = try await Self.passkeysOnlyAccount(server).client
            case .disabled:
                let account = try await Self.accountWithEveryWayIn(server)
                app = account.client
                let admin = AdminService(store: server.store, now: server.clock.function, logger: Logger(label: "journey-kit-admin"))
                try await admin.setDisabled(true, userID: account.id, by: .commandLine(login: "ops"))
            case .deleted:
                app = try await Self.accountWithEveryWayIn(server).client
                // The owner deletes the account from another device.
                let phone = server.client()
                _ = try await phone.signIn(email: Self.email, password: Self.password)
                try await phone.deleteAccount()
            }

            let before = try await server.store.sessionCount()
            if state == .disabled || state == .deleted {
                await #expect(throws: ChatterError.signedOut(.revoked), "no link for an ended session") { try await app.webSessionRequest() }
                #expect(await app.sessions.currentSession == nil, "the app forgets the session")
                #expect(try await server.store.sessionCount() == 0)
                return
            }
            let opened = try await Self.open(try await app.webSessionRequest())
            #expect(opened.status == 303 && opened.sessionCookie, "the browser is signed in without a code: \(opened.status)")
            #expect(try await server.store.sessionCount() == before + 1, "the browser's session beside the app's")
            #expect(try await app.me().email == Self.email, "the app stays signed in")
        }
    }

    @Test func aPasskeySignsInAnAccountWithAnAppWithoutItsCode() async throws {
        try await LiveServer.run { @MainActor server in
            let owner = server.client()
            _ = try await SecondFactorFlowTests.enrolled(server, owner)
            let passkey = SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)
            let adding = PasskeyFlow(client: owner, authenticator: SoftwarePasskeys(device: passkey))
            try #require(await adding.addPasskey(), "\(adding.errorMessage ?? "")")

            let store = MemoryStore()
            let phone = server.client(store: store)
            let flow = PasskeyFlow(client: phone, authenticator: SoftwarePasskeys(device: passkey))
            await flow.signIn()
            #expect(flow.errorMessage == nil)
            #expect(try await phone.me().id == owner.me().id)
            #expect(try await storedSession(in: store) != nil, "kept")
            let current = try await phone.activeSessions().first { $0.current }
            #expect(current?.secondFactor == SecondFactorKind.passkey.rawValue, "the passkey was both factors")
        }
    }

    /// An app's session older than the step-up window, on an account in one of three states.
    enum OldSession: String, CaseIterable, Sendable { case noSecondFactor, passkeysOnly, remembered }

    @Test(arguments: OldSession.allCases)
    func anOldSessionConfirmsItIsYouBeforeChangingHowItSignsIn(state: OldSession) async throws {
        try await LiveServer.run { @MainActor server in
            if state == .remembered {
                // A remembered device skipped the sign-in's code, never a step-up's.
                let (store, enrolment) = try await Self.rememberedDevice(server)
                let client = server.client(store: store)
                try await client.signIn(email: Self.email, password: Self.password)
                let prompt = StepUpPrompt(client: client)
                let deleting = Task { @MainActor in try await prompt.perform(.deleteAccount) { try await client.deleteAccount() } }
                #expect(await eventually { await prompt.asking == .secondFactor }, "asked for the app's code at once, though the sign-in was just now")
                prompt.code = try SecondFactorFlowTests.code(enrolment, server)
                #expect(await prompt.submitCode(), "\(prompt.errorBanner ?? "")")
                #expect(try await deleting.value)
                #expect(try await server.store.userCount() == 0, "the action ran after the step-up")
                return
            }
            let account = state == .noSecondFactor ? try await Self.accountWithEveryWayIn(server) : try await Self.passkeysOnlyAccount(server)
            server.clock.advance(by: StepUp.window)
            do {
                _ = try await account.client.passkeyRegistrationOptions()
                Issue.record("an old session asked for options")
            } catch {
                #expect((error as? ChatterError)?.isSignInAgain == true, "\(error)")
            }
            #expect(try await server.store.passkeys(of: account.id).count == 1)

            // The way forward: "Add a passkey" asks to confirm it is you, with the passkey either account has, then adds it.
            let prompt = StepUpPrompt(client: account.client, authenticator: SoftwarePasskeys(device: account.passkey))
            let flow = PasskeyFlow(
                client: account.client, authenticator: SoftwarePasskeys(device: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)), stepUp: prompt)
            let adding = Task { await flow.addPasskey() }
            #expect(await eventually { await prompt.asking == .signInAgain })
            #expect(prompt.ways.contains(.passkey) && prompt.ways.contains(.password) == (state == .noSecondFactor), "\(prompt.ways)")
            #expect(try await server.store.passkeys(of: account.id).count == 1, "nothing added while it asks")
            #expect(await prompt.usePasskey(), "\(prompt.errorBanner ?? "")")
            #expect(await adding.value, "\(flow.errorMessage ?? "")")
            #expect(try await server.store.passkeys(of: account.id).count == 2)
        }
    }
}
