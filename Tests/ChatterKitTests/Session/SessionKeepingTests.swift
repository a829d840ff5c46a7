import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// `load()` never throws away a session newer than the stored one (issue finding 3): `start()` runs on every
/// `.task` of a view, and storage may be locked, slow or behind memory at that moment.
@Suite struct SessionKeepingTests {
    @Test func startingAgainKeepsTheRotatedSessionStorageRefused() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = ScriptedStore()
            let client = server.client(store: store)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)
            store.failWrites(.failed("disk full"))
            _ = try await client.me()  // refreshed; the rotated pair lives only in memory
            let rotated = try #require(await client.sessions.currentSession)

            // A view appears again and its .task calls start().
            let state = await client.sessions.start()
            #expect(state == .valid(rotated), "not the stored (deleted) session: \(state)")
            #expect(try await client.me().email == "ada@example.com", "and the rotated tokens still work")
        }
    }

    @Test func startingAgainWhileStorageIsLockedIsNotALockedApp() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            let session = try await client.signInByEmail(on: server)
            store.setFailure(.unavailable("locked"))
            #expect(await client.sessions.start() == .valid(session))
        }
    }

    @Test func aSignInWhileTheFirstReadWaitsIsNotOverwrittenByIt() async throws {
        try await LiveServer.run { server in
            let store = ScriptedStore()
            let client = server.client(store: store)
            store.holdReads(true)
            let launch = Task { await client.sessions.start() }
            #expect(await eventually { store.heldReads == 1 })
            // The launch's read started on an empty store; the user signs in before it answers.
            let session = try await client.signInByEmail(on: server)
            store.holdReads(false)
            _ = await launch.value
            #expect(await client.sessions.state == .valid(session), "the late answer of the first read did not sign the user out")
        }
    }
}
