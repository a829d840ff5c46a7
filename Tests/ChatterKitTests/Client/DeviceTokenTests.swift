import ChatterKit
import ChatterWire
import Foundation
import Testing

/// ChatterKit keeps the device token chatterd issues and sends it, so someone else's failed guesses never
/// lock this device out of its own account.
@Suite struct DeviceTokenTests {
    static let password = "correct horse battery staple"

    @Test func theOwnersDeviceSignsInAfterAnAttackerUsedUpTheAccountsAllowance() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let owner = server.client(store: store)
            _ = try await owner.requestEmailCode(email: "ada@example.com")
            let code = try #require(server.mail.lastCode(to: "ada@example.com"))
            try await owner.signUp(email: "ada@example.com", code: code, password: Self.password)
            #expect(try await store.read(StoreKey.device("Ada@Example.com ")) != nil, "kept under the address however it is typed")
            _ = try await owner.sessions.signOut()
            #expect(try await store.read(StoreKey.device("ada@example.com")) != nil, "signing out keeps it")

            let attacker = server.client()
            for index in 0..<10 {
                await #expect(throws: ChatterError.self) { try await attacker.signIn(email: "ada@example.com", password: "guess \(index)") }
            }
            do {
                try await attacker.signIn(email: "ada@example.com", password: Self.password)
                Issue.record("the account's allowance for unknown devices should be used up")
            } catch ChatterError.rateLimited {}

            let session = try await owner.signIn(email: "ada@example.com", password: Self.password)
            #expect(session.user?.email == "ada@example.com")
        }
    }
}
