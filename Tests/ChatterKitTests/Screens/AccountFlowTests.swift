import Foundation
import Testing

@testable import ChatterKit

/// The account screen's model (F5) against a live chatterd.
@Suite struct AccountFlowTests {
    @Test func showsTheAccountAndItsSignInMethods() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            _ = try await client.requestEmailCode(email: "ada@example.com")
            try await client.signUp(email: "ada@example.com", code: try #require(server.mail.lastCode(to: "ada@example.com")), password: "a long passphrase")
            let account = await AccountFlow(client: client)
            await account.load()
            #expect(await account.profile?.email == "ada@example.com")
            #expect(await account.methodsDescription.contains("Password"))
            #expect(await account.canAct)
        }
    }

    @Test func signingOutEverywhereEndsTheOtherDevicesToo() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            let other = server.client()
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 61)
            try await other.signInByEmail(on: server)
            let account = await AccountFlow(client: client)
            await account.signOutEverywhere()
            #expect(await account.isFinished)
            #expect(store.keys.contains(StoreKey.session) == false)
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await other.me() }
        }
    }

    @Test func signingOutEverywhereWithoutTheServerKeepsThisDeviceSignedIn() async throws {
        try await LiveServer.run { server in
            let transport = SwitchableTransport()
            let store = MemoryStore()
            let client = server.client(store: store, transport: transport)
            try await client.signInByEmail(on: server)
            transport.setDown(true)
            let account = await AccountFlow(client: client)
            await account.signOutEverywhere()
            #expect(await account.isFinished == false)
            #expect(await account.errorMessage?.contains("Cannot reach the server") == true)
            #expect(store.keys.contains(StoreKey.session), "the user can try again; the other devices are what this is for")
        }
    }

    @Test func deletionWaitsForConfirmationThenDeletesEverywhere() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            try await client.signInByEmail(on: server)
            let account = await AccountFlow(client: client)
            await account.requestDeletion()
            #expect(await account.isConfirmingDeletion)
            #expect(try await server.store.userCount() == 1, "asking is not deleting")

            await account.confirmDeletion()
            #expect(await account.isConfirmingDeletion == false)
            #expect(await account.isFinished)
            #expect(try await server.store.userCount() == 0)
            #expect(await account.canAct == false)
        }
    }

    @Test func aSessionTheServerEndedFinishesTheScreen() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            let other = server.client()
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 61)
            try await other.signInByEmail(on: server)
            try await other.sessions.signOut(all: true)
            let account = await AccountFlow(client: client)
            await account.load()
            #expect(await account.isFinished, "a revoked session sends the app back to sign-in")
            #expect(await account.errorMessage == nil)
        }
    }
}
