import Foundation
import ServiceLifecycle

// Storage is reached only through these protocols, so each database has one implementation and one
// shared test suite (Tests/ChatterServerTests/Storage) runs against every implementation.

public protocol UserRepository: Sendable {
    /// Finds the user behind `claims.key`, creating both on first sign-in. A user found through a verified
    /// email of another identity is linked only when `claims.emailVerified` is true as well. A non-nil
    /// display name replaces the stored one; name parts are stored once and never erased by an empty sign-in.
    func signIn(_ claims: IdentityClaims, fallbackName: String, at: Date) async throws -> User
    /// The user behind `key`, without creating anything.
    func user(for key: IdentityKey) async throws -> User?
    func user(id: UUID) async throws -> User?
    func identities(of userID: UUID) async throws -> [Identity]
    /// Removes one identity; when it was the user's last, the user goes too. Returns the user's id.
    @discardableResult
    func deleteIdentity(_ key: IdentityKey) async throws -> UUID?
    func setEmailForwarding(_ key: IdentityKey, enabled: Bool) async throws
    /// Deletes the user, their identities, password, sessions and chatts.
    func deleteUser(id: UUID) async throws
    func userCount() async throws -> Int
}

public protocol PasswordRepository: Sendable {
    func passwordHash(userID: UUID) async throws -> String?
    func setPasswordHash(_ hash: String, userID: UUID, at: Date) async throws
}

public protocol SessionRepository: Sendable {
    func createSession(_ session: NewSession) async throws
    /// The session whose access token hashes to `accessHash`. An expired session that cannot be refreshed
    /// is deleted when presented.
    func session(accessHash: [UInt8], at: Date) async throws -> SessionLookup
    func rotate(_ rotation: Rotation) async throws -> RotationOutcome
    func sessions(of userID: UUID) async throws -> [SessionRecord]
    /// Deletes one session of `userID`; false when it is not theirs or does not exist.
    func revokeSession(id: UUID, userID: UUID) async throws -> Bool
    /// Deletes every session of `userID` except `keeping`; returns how many.
    @discardableResult
    func revokeSessions(of userID: UUID, except keeping: UUID?) async throws -> Int
    @discardableResult
    func revokeSessions(of userID: UUID, method: String) async throws -> Int
    /// Deletes every session past its absolute lifetime, unused for `idleLifetime`, or (when it cannot
    /// be refreshed) past its access token's lifetime; returns how many.
    @discardableResult
    func purgeExpiredSessions(at: Date, idleLifetime: Double) async throws -> Int
    func sessionCount() async throws -> Int
}

public protocol EmailCodeRepository: Sendable {
    /// The live and expired codes for `email`, oldest first.
    func emailCodes(for email: String) async throws -> [EmailCodeRecord]
    /// Adds a code for `email` beside any already sent (a new request never cancels an earlier code),
    /// unless a code of the same `scope` was sent less than `cooldown` seconds before: then nothing is
    /// added and the answer is the seconds left to wait. One conditional insert decides.
    func storeEmailCode(_ record: EmailCodeRecord, for email: String, scope: String, cooldown: Double) async throws -> Double?
    /// One guess at `email`'s codes, counted before anything is compared: every unexpired code with fewer
    /// than `maximumGuesses` counted gets one more, in one statement, and the hashes of those codes are
    /// returned. However many guesses arrive at once, no code is compared more than `maximumGuesses` times.
    func takeGuess(for email: String, maximumGuesses: Int, at: Date) async throws -> [[UInt8]]
    /// Removes the code of `email` whose hash is `codeHash`, and with it every other code for `email`.
    /// True only for the one request that removed it.
    func consumeEmailCode(for email: String, codeHash: [UInt8]) async throws -> Bool
}

public protocol DeviceTokenRepository: Sendable {
    func storeDeviceToken(hash: [UInt8], email: String, at: Date) async throws
    /// The address the device token hashing to `hash` was issued for.
    func deviceTokenEmail(hash: [UInt8]) async throws -> String?
}

public protocol NotificationRepository: Sendable {
    /// Remembers a processed notification until `expiresAt`; false when `jti` was already remembered.
    func markNotificationSeen(jti: String, expiresAt: Date) async throws -> Bool
}

public protocol RateLimitRepository: Sendable {
    /// Adds one to the fixed window counter `key` and returns the count in the current window, this hit
    /// included. One statement: of concurrent hits each sees its own count, so "count > limit" refuses
    /// exactly the hits past the limit.
    func hit(_ key: String, window: Double, at: Date) async throws -> Int
    /// The count in the current window without adding to it.
    func count(_ key: String, window: Double, at: Date) async throws -> Int
    /// Takes back one hit of `key` (an attempt that turned out not to count, such as a successful sign-in).
    func release(_ key: String) async throws
    /// Forgets counters whose window started before `cutoff`, and expired codes and handoffs.
    func purgeStaleRecords(before cutoff: Date) async throws
}

public protocol WebHandoffRepository: Sendable {
    func storeHandoff(codeHash: [UInt8], userID: UUID, expiresAt: Date) async throws
    /// Returns the user and deletes the handoff: each code works once.
    func redeemHandoff(codeHash: [UInt8], at: Date) async throws -> UUID?
    /// The user a live handoff would sign in, leaving it in place: for asking before it is used.
    func handoffUser(codeHash: [UInt8], at: Date) async throws -> UUID?
}

public protocol AuditRepository: Sendable {
    func record(_ event: AuditEvent) async throws
    func auditEvents(userID: UUID?) async throws -> [AuditEvent]
}

public protocol ChattRepository: Sendable {
    /// Throws `StoreError.userGone` when the author was deleted meanwhile.
    func addChatt(_ chatt: Chatt) async throws
    /// Every chatt, oldest first.
    func allChatts() async throws -> [Chatt]
    /// Newest first, strictly older than the chatt `before` (by id) when given.
    func chatts(before: UUID?, limit: Int) async throws -> [Chatt]
    func chattCount() async throws -> Int
    /// A value that changes whenever any instance changes the timeline, cheap to read: caches compare it
    /// before answering. nil when this process is the database's only writer, whose own writes are all
    /// a cache needs to watch.
    func timelineStamp() async throws -> TimelineStamp?
}

/// See `ChattRepository.timelineStamp()`.
public struct TimelineStamp: Sendable, Equatable {
    public var values: [Int]
    public init(_ values: [Int]) { self.values = values }
}

/// Everything chatterd stores, and the lifecycle of the store itself.
public protocol ChatterStore: UserRepository, PasswordRepository, SessionRepository, EmailCodeRepository,
    DeviceTokenRepository, NotificationRepository, RateLimitRepository, WebHandoffRepository, AuditRepository, ChattRepository
{
    /// What the store needs running beside the server (a connection pool), started before and stopped
    /// after the services that use the store.
    var services: [any Service] { get }
    /// A human-readable name of the database, without any password, for the banner and the log.
    var location: String { get }
    func close() async throws
}
