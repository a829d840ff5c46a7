import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

extension AppJourneyTests {
    /// The CourseChat example with Face ID on its Keychain session: a post signs in with Google first, then the app
    /// comes back locked, one prompt opens it, and the next post needs no sign-in.
    @Test func googleThenTheKeychainWithFaceIDThenPostingAgainAfterTheLock() async throws {
        try await LiveServer.run { @MainActor server in
            let keychain = KeychainStandIn()
            func client(_ authenticator: ContextAuthenticator) -> ChatterClient {
                server.client(
                    store: KeychainStore(
                        service: "com.example.CourseChat", accessControl: .userPresence, authenticationContext: { authenticator.context },
                        functions: keychain.functions))
            }
            let first = ChattFlow(client: client(ContextAuthenticator(keychain)), clientID: TestIssuer.clientID, googleSession: .native)
            await first.launch()
            #expect(first.advisory == nil, "nothing stored yet")
            first.draft = "First post"
            let posting = Task { await first.postDraft() }
            #expect(await eventually { await first.isSignInRequested }, "the sheet, with its button")
            await first.completeSignIn(using: { try server.googleToken(subject: "ada") })
            #expect(await posting.value, "\(first.errorMessage ?? "")")

            // Relaunched: locked before the read, one prompt for the lock and the Keychain.
            let checks = keychain.presenceChecks
            let authenticator = ContextAuthenticator(keychain)
            let relaunched = client(authenticator)
            let chatter = Chatter(client: relaunched, appleCredentials: nil)
            let gate = BiometricGate(authenticator: authenticator)
            let running = Task { await chatter.run(unlockingWith: gate) }
            #expect(await eventually { await gate.screen == .locked }, "the lock screen, with its button")
            #expect(await gate.unlock(reason: "Unlock") == .success)
            #expect(await eventually { await chatter.isSignedIn })
            let timeline = ChattFlow(client: relaunched, clientID: TestIssuer.clientID, googleSession: .native)
            await timeline.launch()
            #expect(timeline.advisory == .sessionAvailable(username: "Ada Lovelace"))
            timeline.draft = "Back after the lock"
            #expect(await timeline.postDraft())
            #expect(timeline.isSignInRequested == false, "no sign-in: the session was kept")
            #expect(keychain.presenceChecks == checks + 1, "one prompt at launch")
            running.cancel()
        }
    }
}
