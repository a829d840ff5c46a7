import ChatterTestSupport
import ChatterWire
import Foundation
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// Sign in with Apple, complete: the credential's authorization code reaches chatterd, which keeps Apple's token
/// and revokes it at Apple (a local stand-in checking what Apple checks) when the account is deleted; at launch the
/// app asks Apple whether the credential still stands and signs out when Apple says it was revoked.
@Suite struct AppleCredentialTests {
    /// Apple's answers as `ASAuthorizationAppleIDProvider` would give them: nothing real answers on Linux, so a
    /// table of states by user, counting the questions.
    final class AppleAnswers: AppleIDCredentialStates {
        let states: Mutex<[String: AppleIDCredentialState]>
        let asked = Atomic<Int>(0)
        let failing: Bool

        init(_ states: [String: AppleIDCredentialState] = [:], failing: Bool = false) {
            self.states = Mutex(states)
            self.failing = failing
        }

        func state(forUserID userID: String) async throws -> AppleIDCredentialState {
            asked.add(1, ordering: .relaxed)
            struct Unreachable: Error {}
            if failing { throw Unreachable() }
            return states.withLock { $0[userID] } ?? .notFound
        }
    }

    /// Signs `subject` in through the flow with a code from `apple`, on `store`.
    func signIn(_ server: LiveServer, _ apple: AppleTokenService, subject: String, store: MemoryStore) async throws -> ChatterClient {
        let client = server.client(store: store)
        let flow = await AppleSignInFlow(client: client)
        let nonce = await flow.startRequest()
        let credential = AppleCredential(
            identityToken: Data(try server.appleToken(subject: subject, nonce: nonce.raw).utf8), fullName: nil, email: nil,
            authorizationCode: Data(apple.authorizationCode(for: subject, clientID: LiveServer.appleClientID).utf8), user: subject)
        #expect(await flow.complete(.success(credential), isCancellation: { _ in false }))
        return client
    }

    @Test func theCodeReachesChatterdAndDeletingTheAccountRevokesApplesToken() async throws {
        let apple = AppleTokenService()
        try await apple.run { url in
            try await LiveServer.run(appleTokenService: (apple, url)) { server in
                let client = try await signIn(server, apple, subject: "001.grace", store: MemoryStore())
                #expect(apple.exchanges == 1)
                #expect(apple.refusals.isEmpty, "chatterd's client secret passed Apple's checks")
                let issued = apple.issued(for: "001.grace")
                #expect(issued.count == 1)
                try await client.deleteAccount()
                #expect(apple.revoked == issued)
            }
        }
    }

    @Test(arguments: [AppleIDCredentialState.revoked, .notFound])
    func aRevokedCredentialSignsOutAtLaunchAndEndsTheSessionOnTheServer(state: AppleIDCredentialState) async throws {
        let apple = AppleTokenService()
        try await apple.run { url in
            try await LiveServer.run(appleTokenService: (apple, url)) { server in
                let store = MemoryStore()
                let client = try await signIn(server, apple, subject: "002.ada", store: store)
                #expect(store.keys.contains(StoreKey.appleSignIn))
                let token = try #require(await client.sessions.session?.accessToken)

                // Next launch: Apple says the user stopped using Sign in with Apple with this app.
                let answers = AppleAnswers(["002.ada": state])
                let chatter = await Chatter(client: server.client(store: store), appleCredentials: answers)
                let running = Task { await chatter.run() }
                #expect(await eventually { await chatter.phase == .signedOut(reason: .appleIDRevoked) })
                running.cancel()
                #expect(answers.asked.load(ordering: .relaxed) == 1)
                #expect(!store.keys.contains(StoreKey.session))
                #expect(!store.keys.contains(StoreKey.appleSignIn))
                #expect(try await server.store.session(accessHash: SessionToken.hash(token), at: server.clock.now) == .unknown)
                #expect(ChatterError.signedOut(.appleIDRevoked).message.contains("Sign in with Apple"))
            }
        }
    }

    @Test(arguments: [AppleIDCredentialState.authorized, .transferred])
    func aStandingCredentialKeepsTheSession(state: AppleIDCredentialState) async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = try await signIn(server, AppleTokenService(), subject: "003.kim", store: store)
            #expect(await client.sessions.checkAppleCredential(with: AppleAnswers(["003.kim": state])) == false)
            #expect(await client.sessions.currentSession != nil)
            #expect(store.keys.contains(StoreKey.appleSignIn), "asked again at the next launch")
        }
    }

    @Test func noAnswerFromAppleKeepsTheSession() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = try await signIn(server, AppleTokenService(), subject: "004.lin", store: store)
            let answers = AppleAnswers(failing: true)
            #expect(await client.sessions.checkAppleCredential(with: answers) == false)
            #expect(answers.asked.load(ordering: .relaxed) == 1)
            #expect(await client.sessions.currentSession != nil)
        }
    }

    /// Signed in with Apple once, then with Google on the same device: Apple's answer says nothing of the session.
    @Test func aSessionOfAnotherSignInIsNeverJudgedByApple() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = try await signIn(server, AppleTokenService(), subject: "005.max", store: store)
            _ = try await client.signInWithGoogle(idToken: try server.googleToken(subject: "g-005"), clientID: TestIssuer.clientID)
            let answers = AppleAnswers(["005.max": .revoked])
            #expect(await client.sessions.checkAppleCredential(with: answers) == false)
            #expect(answers.asked.load(ordering: .relaxed) == 0)
            #expect(await client.sessions.currentSession?.user?.methods == ["google"])
            #expect(!store.keys.contains(StoreKey.appleSignIn), "the stale record is gone")
        }
    }

    /// An app with a sheet of its own that passes no `user`: the identity token's `sub` is the same identifier.
    @Test func aSignInWithoutTheUserIsCheckedByTheTokensAppleID() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            let flow = await AppleSignInFlow(client: client)
            let nonce = await flow.startRequest()
            let token = try server.appleToken(subject: "007.eve", nonce: nonce.raw)
            #expect(await flow.complete(identityToken: token, name: nil, email: nil))
            let answers = AppleAnswers(["007.eve": .revoked])
            #expect(await client.sessions.checkAppleCredential(with: answers))
            #expect(answers.asked.load(ordering: .relaxed) == 1)
            #expect(await client.sessions.currentSession == nil)
        }
    }

    @Test func withoutAnAppleSignInNothingIsAsked() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            _ = try await client.signInWithGoogle(idToken: try server.googleToken(subject: "g-006"), clientID: TestIssuer.clientID)
            let answers = AppleAnswers()
            #expect(await client.sessions.checkAppleCredential(with: answers) == false)
            #expect(answers.asked.load(ordering: .relaxed) == 0)
        }
    }
}
