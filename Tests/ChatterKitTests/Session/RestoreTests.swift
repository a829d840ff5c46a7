import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// Restart-and-restore, and the launch advisory, against a live chatterd.
@Suite struct RestoreTests {
    @Test func aNewProcessRestoresTheStoredSessionAndUsesIt() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { directory in
                let first = server.client(store: FileStore(directory: directory))
                try await first.signInByEmail(on: server)

                // A new client on the same files stands for the next launch.
                let second = server.client(store: FileStore(directory: directory))
                let state = await second.sessions.start()
                guard case .valid(let session) = state else {
                    Issue.record("restored \(state)")
                    return
                }
                #expect(session.kind == .native)
                #expect(session.user?.email == "ada@example.com")
                #expect(try await second.me().email == "ada@example.com")
            }
        }
    }

    @Test func launchSaysACourseSessionHasExpired() async throws {
        try await LiveServer.run(sessionLifetime: 3600) { server in
            let store = MemoryStore()
            try await server.client(store: store).addUser(clientID: TestIssuer.clientID, idToken: server.googleToken())
            #expect(await server.client(store: store).sessions.start() == .valid(try #require(await storedSession(in: store)).publicView))

            server.clock.advance(by: 3601)
            let state = await server.client(store: store).sessions.start()
            guard case .expired(let session) = state else {
                Issue.record("restored \(state)")
                return
            }
            #expect(session.username == "Ada Lovelace")
        }
    }

    @Test func launchWithNothingStoredIsSignedOut() async throws {
        let manager = SessionManager(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: MemoryStore())
        #expect(await manager.start() == .signedOut)
        await #expect(throws: ChatterError.notSignedIn) { try await ChatterClient(sessions: manager).me() }
    }

    @Test func unavailableStorageIsNotSignedOutAndRecovers() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            try await server.client(store: store).signInByEmail(on: server)

            store.setFailure(.unavailable("device locked"))
            let client = server.client(store: store)
            #expect(await client.sessions.start() == .storageUnavailable(.unavailable("device locked")))
            await #expect(throws: ChatterError.storage(.unavailable("device locked"))) { try await client.me() }
            #expect(store.keys.contains(StoreKey.session), "nothing was deleted")

            // Unlocked again: the same client reads the session on its next request.
            store.setFailure(nil)
            #expect(try await client.me().email == "ada@example.com")
        }
    }

    @Test func signingOutWhileStorageIsUnavailableSaysSoAndKeepsTheSession() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            try await server.client(store: store).signInByEmail(on: server)
            store.setFailure(.unavailable("device locked"))
            let client = server.client(store: store)
            await #expect(throws: ChatterError.storage(.unavailable("device locked"))) { try await client.sessions.signOut() }
            store.setFailure(nil)
            #expect(try await client.me().email == "ada@example.com", "still signed in on the server and here")
        }
    }

    @Test func aCorruptStoredSessionCountsAsNone() async throws {
        let store = MemoryStore([StoreKey.session: Data("not json".utf8)])
        let manager = SessionManager(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: store)
        #expect(await manager.start() == .signedOut)
    }
}
