import Foundation
import Testing

@testable import ChatterServer

/// The storage behaviour every backend must show. Each test runs against every implementation that can
/// run here (SQLite always; PostgreSQL joins when it lands).
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite

    var testDescription: String { rawValue }

    func withStore<T>(_ body: (any ChatterStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { dir in
            let store = try await SQLiteStore.open(path: dir + "/test.sqlite")
            do {
                let value = try await body(store)
                try await store.close()
                return value
            } catch {
                try? await store.close()
                throw error
            }
        }
    }
}

@Suite struct StoreSuite {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let ada = IdentityKey(issuer: "https://accounts.google.com", subject: "1")

    @Test(arguments: StoreBackend.allCases)
    func signInCreatesOneUserPerIdentity(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let first = try await store.signIn(identity: ada, displayName: "Ada", fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            let again = try await store.signIn(identity: ada, displayName: "Ada", fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            #expect(first.id == again.id)
            #expect(try await store.userCount() == 1)
            let other = try await store.signIn(
                identity: IdentityKey(issuer: "https://appleid.apple.com", subject: "1"), displayName: nil,
                fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            #expect(other.id != first.id, "the same subject at another issuer is another person")
            #expect(other.displayName == "Profile NA")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func signInFollowsRenamesButKeepsNameWhenNoneIsGiven(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.signIn(identity: ada, displayName: "Ada", fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            let renamed = try await store.signIn(identity: ada, displayName: "Ada King", fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            #expect(renamed.displayName == "Ada King")
            let nameless = try await store.signIn(identity: ada, displayName: nil, fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            #expect(nameless.displayName == "Ada King")
            #expect(try await store.user(id: renamed.id)?.displayName == "Ada King")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func sessionsAreFoundByHashAndExpire(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(identity: ada, displayName: "Ada", fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            let token = SessionToken.generate()
            let id = try await store.createSession(userID: user.id, tokenHash: token.hash, createdAt: now, expiresAt: now.addingTimeInterval(60))
            guard case .valid(let session) = try await store.session(tokenHash: token.hash, at: now.addingTimeInterval(59)) else {
                Issue.record("a live session was not found")
                return
            }
            #expect(session.sessionID == id)
            #expect(session.user == user)
            #expect(try await store.session(tokenHash: SessionToken.generate().hash, at: now) == .unknown)
            #expect(try await store.session(tokenHash: token.hash, at: now.addingTimeInterval(60)) == .expired)
            #expect(try await store.sessionCount() == 0, "an expired session is purged when presented")
            #expect(try await store.session(tokenHash: token.hash, at: now) == .unknown)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func purgeRemovesOnlyExpiredSessions(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(identity: ada, displayName: "Ada", fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            for lifetime in [10.0, 20, 30] {
                _ = try await store.createSession(userID: user.id, tokenHash: SessionToken.generate().hash, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
            }
            #expect(try await store.purgeExpiredSessions(at: now.addingTimeInterval(20)) == 2)
            #expect(try await store.sessionCount() == 1)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func chattsComeBackOldestFirst(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(identity: ada, displayName: "Ada", fallbackName: "Profile NA", email: nil, emailVerified: false, at: now)
            let chatts = (0..<5).map { Chatt(name: "n\($0)", message: "m\($0)", time: now.addingTimeInterval(Double($0)), userID: $0 == 0 ? nil : user.id) }
            for chatt in chatts { try await store.addChatt(chatt) }
            #expect(try await store.allChatts() == chatts)
            #expect(try await store.chattCount() == 5)
        }
    }
}
