import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// F1, the course flow, against a live chatterd: /adduser with a Google ID token, /postauth, /getchatts.
@Suite struct ChattFlowTests {
    @Test func postSignsInFirstThenCompletesTheSamePost() async throws {
        try await LiveServer.run { server in
            let flow = await ChattFlow(client: server.client(), clientID: TestIssuer.clientID)
            await flow.launch()
            #expect(await flow.advisory == nil)

            let post = Task { await flow.post("hello from the flow") }
            #expect(await eventually { await flow.isSignInRequested })
            #expect(try await server.client().courseChatts().isEmpty, "nothing is posted before sign-in finishes")
            await flow.finishSignIn(idToken: try server.googleToken(name: "Ada Lovelace"))

            #expect(await post.value)
            #expect(await flow.username == "Ada Lovelace")
            let rows = await flow.chatts
            #expect(rows.map(\.message) == ["hello from the flow"])
            #expect(rows.map(\.name) == ["Ada Lovelace"], "the server names the chatt after the session's user")
        }
    }

    @Test func aNativeGoogleSessionRefreshesAndCanBeRevoked() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let client = server.client()
            let flow = await ChattFlow(client: client, clientID: TestIssuer.clientID, googleSession: .native)
            let post = Task { await flow.post("native hello") }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.finishSignIn(idToken: try server.googleToken(name: "Ada Lovelace"))
            #expect(await post.value)
            #expect(await client.sessions.currentSession?.kind == .native)
            // What a chatterID cannot do: refresh, and list its sessions.
            server.clock.advance(by: 301)
            try await client.sessions.refresh()
            #expect(try await client.activeSessions().count == 1)
            #expect(try await server.client().chatts().chatts.map(\.message) == ["native hello"])
        }
    }

    @Test func cancellingSignInFailsThePostCleanly() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let flow = await ChattFlow(client: server.client(store: store), clientID: TestIssuer.clientID)
            await flow.launch()
            let post = Task { await flow.post("never posted") }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.cancelSignIn()

            #expect(await post.value == false)
            #expect(await flow.errorMessage?.contains("cancelled") == true)
            #expect(await flow.isPosting == false)
            #expect(await flow.isSignInRequested == false)
            #expect(store.keys.isEmpty)
            let rows = try await server.client().courseChatts()
            #expect(rows.isEmpty)
        }
    }

    @Test func aRefusedTokenFailsThePostWithTheServersReason() async throws {
        try await LiveServer.run { server in
            let flow = await ChattFlow(client: server.client(), clientID: "some-other-client.apps.googleusercontent.com")
            await flow.launch()
            let post = Task { await flow.post("refused") }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.finishSignIn(idToken: try server.googleToken())
            #expect(await post.value == false)
            #expect(await flow.errorMessage?.isEmpty == false)
        }
    }

    @Test func aValidSessionPostsWithoutAskingAndLaunchSaysSo() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            try await server.client(store: store).addUser(clientID: TestIssuer.clientID, idToken: server.googleToken(name: nil))

            let flow = await ChattFlow(client: server.client(store: store), clientID: TestIssuer.clientID)
            await flow.launch()
            #expect(await flow.advisory == .sessionAvailable(username: "Profile NA"))
            #expect(await flow.post("no prompt needed"))
            #expect(await flow.chatts.map(\.name) == ["Profile NA"])
        }
    }

    @Test func launchAdvisesAnExpiredSessionAndPostingSignsInAgain() async throws {
        try await LiveServer.run(sessionLifetime: 3600) { server in
            let store = MemoryStore()
            try await server.client(store: store).addUser(clientID: TestIssuer.clientID, idToken: server.googleToken())
            server.clock.advance(by: 4000)

            let flow = await ChattFlow(client: server.client(store: store), clientID: TestIssuer.clientID)
            await flow.launch()
            #expect(await flow.advisory == .sessionExpired)
            let post = Task { await flow.post("after expiry") }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.finishSignIn(idToken: try server.googleToken())
            #expect(await post.value)
        }
    }

    @Test func aSessionTheServerForgotIsReplacedBySigningInAgain() async throws {
        try await LiveServer.run(sessionLifetime: 3600) { server in
            // The device thinks its chatterID is good; the server's clock says it has expired.
            let device = TestClock(server.clock.now)
            let store = MemoryStore()
            let client = server.client(store: store, now: device.function)
            try await client.addUser(clientID: TestIssuer.clientID, idToken: server.googleToken())
            server.clock.advance(by: 3601)

            let flow = await ChattFlow(client: client, clientID: TestIssuer.clientID)
            await flow.launch()
            let post = Task { await flow.post("retried after 401") }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.finishSignIn(idToken: try server.googleToken())
            #expect(await post.value)
            #expect(await flow.chatts.map(\.message) == ["retried after 401"])
        }
    }

    @Test func aLongGoogleNameIsHandled() async throws {
        try await LiveServer.run { server in
            let flow = await ChattFlow(client: server.client(), clientID: TestIssuer.clientID)
            #expect(await flow.signIn(idToken: try server.googleToken(name: String(repeating: "N", count: 100))))
            let name = try #require(await flow.username)
            #expect(name.count <= Limits.nameCharacters)
            #expect(name.hasSuffix("…"))
        }
    }
}
