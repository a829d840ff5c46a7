import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Apple's tokens on every backend: one per Apple ID and client on a live account, left to be revoked by the
/// account's deletion in its own transaction, and forgotten only once they wait.
extension StoreSuite {
    func appleToken(_ user: User?, subject: String = "apple.ada", client: String = "com.example.app", _ byte: UInt8) -> AppleTokenRecord {
        AppleTokenRecord(subject: subject, clientID: client, userID: user?.id, sealedToken: [byte, byte], keptAt: now.addingTimeInterval(Double(byte)))
    }

    @Test(arguments: StoreBackend.available)
    func appleTokensAreKeptOnePerAppleIDAndWaitForRevocationOnceTheirAccountIsDeleted(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(appleAda)
            let bystander = try await store.signIn(ada)
            #expect(try await store.keepAppleToken(appleToken(user, 1)))
            #expect(try await store.keepAppleToken(appleToken(user, 2)), "a newer token replaces the kept one")
            #expect(try await store.keepAppleToken(appleToken(user, client: "com.example.web", 3)), "another client's is its own")
            #expect(try await store.keepAppleToken(appleToken(bystander, subject: "apple.bob", 4)))
            #expect(try await store.appleTokenKeptAt(subject: "apple.ada", clientID: "com.example.app") == now.addingTimeInterval(2))
            #expect(try await !store.hasAppleToken(subject: "apple.ada", clientID: "com.other"))
            #expect(try await store.appleTokensToRevoke(limit: 10).isEmpty, "live accounts' tokens are not revoked")
            #expect(try await !store.keepAppleToken(appleToken(nil, 5)), "a token without an account")
            #expect(try await store.appleTokensToRevoke(limit: 10).isEmpty)

            try await store.deleteUser(id: user.id)
            // A token Apple issued while the account was being deleted is kept without it, to be revoked.
            #expect(try await !store.keepAppleToken(appleToken(user, subject: "apple.late", 6)))
            #expect(try await store.appleTokensToRevoke(limit: 10).map(\.sealedToken) == [[2, 2], [3, 3], [6, 6]])
            try await store.forgetAppleToken(appleToken(nil, subject: "apple.late", 6))
            let waiting = try await store.appleTokensToRevoke(limit: 10)
            #expect(waiting.map(\.sealedToken) == [[2, 2], [3, 3]], "the account's two, oldest first, the replaced one gone")
            #expect(waiting.allSatisfy { $0.userID == nil })
            #expect(try await !store.hasAppleToken(subject: "apple.ada", clientID: "com.example.app"))
            #expect(try await store.appleTokensToRevoke(limit: 1).count == 1)

            // The same Apple ID signing up again keeps a new token beside the one waiting.
            let again = try await store.signIn(appleAda)
            #expect(try await store.keepAppleToken(appleToken(again, 7)))
            #expect(try await store.appleTokensToRevoke(limit: 10).count == 2)

            try await store.forgetAppleToken(waiting[0])
            try await store.forgetAppleToken(appleToken(again, 7))
            #expect(try await store.appleTokensToRevoke(limit: 10).map(\.sealedToken) == [[3, 3]])
            #expect(try await store.hasAppleToken(subject: "apple.ada", clientID: "com.example.app"), "forgetting never touches a live token")

            #expect(try await store.releaseAppleTokens(subject: "apple.bob") == 1)
            #expect(try await store.releaseAppleTokens(subject: "apple.bob") == 0)
            #expect(try await store.appleTokensToRevoke(limit: 10).map(\.sealedToken) == [[3, 3], [4, 4]])
            #expect(try await store.user(id: bystander.id) != nil, "releasing a token leaves its account")

            // One Apple refuses for now goes to the back of the queue, behind every other.
            try await store.postponeAppleToken(appleToken(nil, client: "com.example.web", 3), to: now.addingTimeInterval(100))
            #expect(try await store.appleTokensToRevoke(limit: 10).map(\.sealedToken) == [[4, 4], [3, 3]])
            #expect(try await store.appleTokensToRevoke(limit: 1).map(\.sealedToken) == [[4, 4]])
        }
    }

    @Test(arguments: StoreBackend.available)
    func fiftyKeepsOfOneAppleIDAtOnceLeaveOneToken(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(appleAda)
            let kept = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<50 { group.addTask { try await store.keepAppleToken(appleToken(user, UInt8(index))) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(kept == 50)
            try await store.deleteUser(id: user.id)
            #expect(try await store.appleTokensToRevoke(limit: 100).count == 1)
        }
    }
}

extension AppleTokenRepository {
    /// Whether a token is kept for the Apple ID and client on a live account.
    func hasAppleToken(subject: String, clientID: String) async throws -> Bool {
        try await appleTokenKeptAt(subject: subject, clientID: clientID) != nil
    }
}
