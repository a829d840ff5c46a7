import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// Sign-out, revocation and the 401 answers that end a session.
@Suite struct SignOutTests {
    @Test func signOutRevokesOnTheServerAndDeletesHere() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            try await client.signInByEmail(on: server)
            let token = try #require(await storedSession(in: store)).accessToken
            let events = EventLog(await client.sessions.events())

            #expect(try await client.sessions.signOut())
            #expect(store.keys.contains(StoreKey.session) == false)
            #expect(await client.sessions.state == .signedOut)
            #expect(await events.waitFor(2).last == .signedOut(.userRequested))
            // The token no longer works on the server.
            let api = server.api()
            await #expect(throws: ChatterError.self) { let _: UserProfile = try await api.send("GET", NativePath.me, bearer: token) }
        }
    }

    @Test func signOutEverywhereEndsTheOtherDevicesToo() async throws {
        try await LiveServer.run { server in
            let phone = server.client()
            let laptop = server.client()
            try await phone.signInByEmail(on: server)
            try await laptop.signInByEmail(on: server)
            #expect(try await laptop.activeSessions().count == 2)

            #expect(try await phone.sessions.signOut(all: true))
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await laptop.me() }
            #expect(await laptop.sessions.state == .signedOut)
        }
    }

    @Test func signOutWithoutANetworkStillSignsOutHere() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let switchable = SwitchableTransport()
            let client = server.client(store: store, transport: switchable)
            try await client.signInByEmail(on: server)
            switchable.setDown(true)
            #expect(try await client.sessions.signOut() == false, "the server could not confirm")
            #expect(store.keys.contains(StoreKey.session) == false)
        }
    }

    @Test func signOutEverywhereWithoutANetworkKeepsTheSession() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let switchable = SwitchableTransport()
            let client = server.client(store: store, transport: switchable)
            try await client.signInByEmail(on: server)
            switchable.setDown(true)
            await #expect(throws: ChatterError.self) { try await client.sessions.signOut(all: true) }
            #expect(store.keys.contains(StoreKey.session), "the user can try again once online")
        }
    }

    @Test func aSessionRevokedElsewhereIsDeletedOnItsNext401() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let phone = server.client(store: store)
            let laptop = server.client()
            try await phone.signInByEmail(on: server)
            try await laptop.signInByEmail(on: server)
            let phoneSession = try #require(try await laptop.activeSessions().first { !$0.current })
            try await laptop.revokeSession(id: phoneSession.id)

            let events = EventLog(await phone.sessions.events())
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await phone.me() }
            #expect(store.keys.contains(StoreKey.session) == false)
            #expect(await events.waitFor(2).last == .signedOut(.revoked))
            #expect(try await laptop.activeSessions().count == 1)
        }
    }

    @Test func aCourse401DeletesTheChatterID() async throws {
        try await LiveServer.run(sessionLifetime: 3600) { server in
            let store = MemoryStore()
            let device = TestClock(server.clock.now)
            let client = server.client(store: store, now: device.function)
            try await client.addUser(clientID: TestIssuer.clientID, idToken: server.googleToken())
            try await client.post("before expiry")

            server.clock.advance(by: 3601)
            await #expect(throws: ChatterError.signedOut(.expired)) { try await client.post("after expiry") }
            #expect(store.keys.isEmpty)
            let rows = try await client.courseChatts()
            #expect(rows.map(\.message) == ["before expiry"])
        }
    }

    @Test func otherServerErrorsLeaveTheSessionAlone() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            try await client.addUser(clientID: TestIssuer.clientID, idToken: server.googleToken())
            let tooLong = String(repeating: "x", count: Limits.messageCharacters + 1)
            await #expect(throws: ChatterError.self) { try await client.post(tooLong) }
            #expect(store.keys.contains(StoreKey.session))
        }
    }
}
