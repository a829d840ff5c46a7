import Foundation

// Storage is reached only through these protocols, so each database has one implementation and one
// shared test suite (Tests/ChatterServerTests/Storage) runs against every implementation.

public protocol UserRepository: Sendable {
    /// Finds the user behind `identity`, creating both on first sign-in. A non-nil `displayName` replaces
    /// the stored one (people rename themselves); nil keeps it, or gives a new user `fallbackName`.
    func signIn(identity: IdentityKey, displayName: String?, fallbackName: String, email: String?, emailVerified: Bool, at: Date) async throws -> User
    func user(id: UUID) async throws -> User?
    func userCount() async throws -> Int
}

public protocol SessionRepository: Sendable {
    func createSession(userID: UUID, tokenHash: [UInt8], createdAt: Date, expiresAt: Date) async throws -> UUID
    /// The session whose token hashes to `tokenHash`; an expired one is deleted and reported as such.
    func session(tokenHash: [UInt8], at: Date) async throws -> SessionLookup
    /// Deletes every session past its lifetime; returns how many.
    @discardableResult
    func purgeExpiredSessions(at: Date) async throws -> Int
    func sessionCount() async throws -> Int
}

public protocol ChattRepository: Sendable {
    func addChatt(_ chatt: Chatt) async throws
    /// Every chatt, oldest first.
    func allChatts() async throws -> [Chatt]
    func chattCount() async throws -> Int
}

/// Everything chatterd stores, and the lifecycle of the store itself.
public protocol ChatterStore: UserRepository, SessionRepository, ChattRepository {
    func close() async throws
}
