import ChatterWire
import Foundation
import ServiceLifecycle
import Synchronization

// Storage is reached only through these protocols, so each database has one implementation and one
// shared test suite (Tests/ChatterServerTests/Storage) runs against every implementation.

// The stores offer atomic steps and transactions; the rules that combine them (account linking in
// `SignIn/AccountLinking.swift`, refresh rotation in `Sessions/RefreshRotation.swift`) are written once,
// over these protocols.

public protocol UserRepository: Sendable {
    /// The identity `key` and the account it belongs to, in one read.
    func linkedIdentity(_ key: IdentityKey) async throws -> LinkedIdentity?
    /// Runs `body` as one transaction over the account tables (`UserRepository.signIn` is its user). A
    /// store whose transactions can fail on a race (two first sign-ins of one identity inserting it at
    /// once) runs `body` again, so it must only use the transaction it is given.
    func accountTransaction<T: Sendable>(_ body: @Sendable (any AccountTransaction) async throws -> T) async throws -> T
    func user(id: UUID) async throws -> User?
    /// The account's identities (oldest first) and whether it has a password, in one read: what a profile shows.
    func accountSummary(userID: UUID) async throws -> AccountSummary
    /// Removes one identity; when it was the user's last, the user goes too. Returns the user's id.
    @discardableResult
    func deleteIdentity(_ key: IdentityKey) async throws -> UUID?
    func setEmailForwarding(_ key: IdentityKey, enabled: Bool) async throws
    /// Makes `address` the account's emailed-code identity in place of the one it had (if any), in one
    /// transaction whose insert decides: an address that is another account's identity is `.taken`, even
    /// when that account claims it at the same moment.
    func changeEmailIdentity(userID: UUID, to address: String, at: Date) async throws -> EmailIdentityChange
    /// Deletes the user, their identities, password, sessions and chatts.
    func deleteUser(id: UUID) async throws
    func userCount() async throws -> Int
}

/// What `changeEmailIdentity` did.
public enum EmailIdentityChange: Sendable, Equatable {
    /// The account signs in with the new address now; `previous` is the address it replaced, if any.
    case changed(previous: String?)
    /// The address is the account's already.
    case unchanged
    /// The address is another account's.
    case taken
}

extension UserRepository {
    /// Oldest first.
    public func identities(of userID: UUID) async throws -> [Identity] {
        try await accountSummary(userID: userID).identities
    }
}

public protocol PasswordRepository: Sendable {
    func passwordHash(userID: UUID) async throws -> String?
    func setPasswordHash(_ hash: String, userID: UUID, at: Date) async throws
    /// Sets the hash only while the account has no confirmed authenticator, in one statement; false (nothing
    /// written) when it has one: a password an emailed code asks for must then wait for the second factor.
    func setPasswordHashUnlessSecondFactor(_ hash: String, userID: UUID, at: Date) async throws -> Bool
    /// Sets the hash only while the account has none, in one statement; false (nothing written) when it has
    /// one: a first password added from the account page never replaces one (changing takes the current one).
    func addPasswordHash(_ hash: String, userID: UUID, at: Date) async throws -> Bool
}

/// The steps of a sign-in that creates or changes an account, inside one transaction.
public protocol AccountTransaction: Sendable {
    func linkedIdentity(_ key: IdentityKey) async throws -> LinkedIdentity?
    /// The accounts holding an identity whose verified email is `email`, by that identity's age (oldest
    /// first, ties by issuer and subject), so the answer never depends on row order.
    func accounts(withVerifiedEmail email: String) async throws -> [UUID]
    /// The issuers of the account's identities.
    func issuers(of userID: UUID) async throws -> Set<String>
    func insertUser(id: UUID, displayName: String, at: Date) async throws
    func insertIdentity(_ identity: Identity, userID: UUID, at: Date) async throws
    func setDisplayName(_ name: String, userID: UUID) async throws
    /// Stores every non-empty part of `name`; an absent or empty part keeps the stored one.
    func fillName(_ name: NameParts, userID: UUID) async throws
    func setEmail(_ email: String, verified: Bool, of key: IdentityKey) async throws
}

public protocol SessionRepository: Sendable {
    /// Inserts the session only while its account exists and is not disabled, decided in the insert
    /// itself, so a sign-in racing an operator's "disable" never leaves a session behind. Throws
    /// `StoreError.accountDisabled` or `StoreError.userGone` when it did not insert.
    func createSession(_ session: NewSession) async throws
    /// The session whose access token hashes to `accessHash`. An expired session that cannot be refreshed
    /// is deleted when presented.
    func session(accessHash: [UInt8], at: Date) async throws -> SessionLookup
    /// The same for an access token that names its session `id`: a store may find it by that id.
    func session(accessHash: [UInt8], naming id: UUID, at: Date) async throws -> SessionLookup
    /// The session whose current refresh token hashes to `unnamedRefreshHash`, for tokens issued before
    /// refresh tokens named their session (their first rotation gives them a token that does).
    func sessionID(unnamedRefreshHash: [UInt8]) async throws -> UUID?
    /// The hash of the session's current refresh token, if it has one.
    func refreshHash(sessionID: UUID) async throws -> [UInt8]?
    /// A live refresh token's rotation, in one statement: when `rotation.presentedHash` is the current
    /// refresh token of the session `rotation.sessionID` and the session is within its idle and absolute
    /// lifetimes, the session takes the new hashes and retry box and the presented hash is retired. nil
    /// (nothing changed) otherwise.
    func rotateLive(_ rotation: Rotation) async throws -> RotatedSession?
    /// Runs `body` as one transaction in which the sessions it reads stay locked until it ends, so that
    /// of concurrent presentations of one refresh token each sees what the one before it did.
    func refreshTransaction<T: Sendable>(_ body: @Sendable (any RefreshTransaction) async throws -> T) async throws -> T
    func sessions(of userID: UUID) async throws -> [SessionRecord]
    /// Deletes one session of `userID`; false when it is not theirs or does not exist.
    func revokeSession(id: UUID, userID: UUID) async throws -> Bool
    /// Deletes every session of `userID` except `keeping`; returns how many.
    @discardableResult
    func revokeSessions(of userID: UUID, except keeping: UUID?) async throws -> Int
    @discardableResult
    func revokeSessions(of userID: UUID, method: String) async throws -> Int
    /// Deletes every session past its absolute lifetime, unused for the idle lifetime, or (when it cannot
    /// be refreshed) past its access token's lifetime, and what is kept of their retired refresh tokens;
    /// returns how many sessions.
    @discardableResult
    func purgeExpiredSessions(at: Date, lifetimes: SessionLifetimes) async throws -> Int
    func sessionCount() async throws -> Int
}

/// The steps of settling a refresh token `SessionRepository.rotateLive` did not rotate, inside one transaction.
public protocol RefreshTransaction: Sendable {
    /// The session whose current refresh token is the one presented, locked, with the key it is bound to.
    func currentSession(_ presented: Rotation) async throws -> (id: UUID, userID: UUID, boundKey: String?)?
    /// The presented token if a rotation retired it, with its session's state; the session locked. A token
    /// naming a session (`presented.sessionID`) that is not its current one was retired: only chatterd names
    /// a session in a token, and a session's tokens stop being current only by rotating.
    func retiredToken(_ presented: Rotation) async throws -> RetiredRefreshToken?
    func user(id: UUID) async throws -> User?
    func deleteSession(id: UUID) async throws
    func emptyRetryBox(sessionID: UUID) async throws
}

/// The DPoP proofs (RFC 9449) accepted lately, each by a hash of its key's thumbprint and its `jti`, kept
/// until its `iat` is too old for it to be accepted again; `purgeStaleRecords` forgets the rest.
public protocol DPoPProofRepository: Sendable {
    /// Records `proof` as used until `until`, in one statement: false when it is recorded already and not
    /// past (a replay), on this instance or any other on the database.
    func useProof(_ proof: [UInt8], until: Date, at now: Date) async throws -> Bool
}

/// App Attest keys (DCAppAttestService) whose attestation chatterd verified.
public protocol AppAttestRepository: Sendable {
    /// Keeps a verified key; false when its key ID is kept already (a key is attested once).
    func storeAppAttestKey(_ key: AppAttestKeyRecord) async throws -> Bool
    func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord?
    /// Raises the key's counter to `counter` only while it is below, in one statement: of assertions showing one
    /// counter at once, one advances it and the others are refused as replays.
    func advanceAppAttestCounter(keyID: [UInt8], to counter: UInt32, at: Date) async throws -> Bool
}

public protocol EmailCodeRepository: Sendable {
    /// The live and expired codes for `email`, oldest first.
    func emailCodes(for email: String) async throws -> [EmailCodeRecord]
    /// Adds a code for `email` beside any already sent (a new request never cancels an earlier code),
    /// unless a code of the same `scope` was sent less than `cooldown` seconds before, or `email` already
    /// has `maximumLive` unexpired codes of any scope: then nothing is added and the answer is the seconds
    /// to wait. One conditional insert decides.
    func storeEmailCode(_ record: EmailCodeRecord, for email: String, scope: String, cooldown: Double, maximumLive: Int) async throws -> Double?
    /// One guess at `email`'s codes, counted before anything is compared: every unexpired code with fewer
    /// than `maximumGuesses` counted gets one more, in one statement, and the hashes of those codes are
    /// returned. However many guesses arrive at once, no code is compared more than `maximumGuesses` times.
    func takeGuess(for email: String, maximumGuesses: Int, at: Date) async throws -> [[UInt8]]
    /// Removes the code of `email` whose hash is `codeHash`, and with it every other code for `email`.
    /// True only for the one request that removed it.
    func consumeEmailCode(for email: String, codeHash: [UInt8]) async throws -> Bool
}

public protocol DeviceTokenRepository: Sendable {
    /// Keeps a new token for `email`, and of the address's other tokens only the newest `keeping − 1`: an
    /// address has at most `keeping` devices, however often it signs in.
    func storeDeviceToken(hash: [UInt8], email: String, at: Date, keeping: Int) async throws
    /// The address the device token hashing to `hash` was issued for, if it was issued after `issuedAfter`.
    func deviceTokenEmail(hash: [UInt8], issuedAfter: Date) async throws -> String?
    /// Remembers that the device token hashing to `hash` (issued for `email`) passed the second step: until
    /// `until` its sign-ins to `email` need no code. False when there is no such token.
    func rememberSecondFactor(hash: [UInt8], email: String, until: Date) async throws -> Bool
    /// Until when the device token hashing to `hash`, issued for `email` after `issuedAfter`, is remembered
    /// for the second step; nil when it is not (or is no such token).
    func deviceSecondFactorUntil(hash: [UInt8], email: String, issuedAfter: Date) async throws -> Date?
    /// Ends every device token of the addresses `userID` verified (a password change or reset, signing out
    /// everywhere, disabling), and with them the account's sign-ins waiting for a second step, which no
    /// credential change may leave behind; returns how many tokens.
    @discardableResult
    func deleteDeviceTokens(userID: UUID) async throws -> Int
}

/// Single-use challenges of ceremonies (passkeys, App Attest attestations), by hash, each with its purpose.
public protocol CeremonyChallengeRepository: Sendable {
    /// Keeps a ceremony's challenge, by its hash, until it is taken or expires.
    func storePasskeyChallenge(_ challenge: PasskeyChallenge) async throws
    /// Removes the challenge hashing to `hash` and returns it when it had not expired, in one statement:
    /// of any number of requests presenting one challenge at once, one gets it.
    func takePasskeyChallenge(hash: [UInt8], at: Date) async throws -> PasskeyChallenge?
}

public protocol PasskeyRepository: CeremonyChallengeRepository {
    /// The account's WebAuthn user handle, `candidate` on first use; concurrent first uses agree.
    func passkeyUserHandle(userID: UUID, candidate: [UInt8]) async throws -> [UInt8]
    /// The account a user handle belongs to.
    func passkeyUser(handle: [UInt8]) async throws -> UUID?
    /// Adds the passkey unless its credential ID is registered to any account (then false), while the
    /// account exists (else `StoreError.userGone`).
    func insertPasskey(_ passkey: PasskeyRecord) async throws -> Bool
    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord?
    /// The passkey with its account, the account's summary and its user handle, in one read: what a
    /// sign-in checks and answers with.
    func passkeyOwner(credentialID: [UInt8]) async throws -> PasskeyOwner?
    /// A sign-in's two lookups at once: takes the challenge as `takePasskeyChallenge` does and reads the
    /// owner of `credentialID` as `passkeyOwner` does. The owner is read whatever became of the challenge;
    /// the caller checks the challenge first.
    func takePasskeyChallenge(hash: [UInt8], readingOwnerOf credentialID: [UInt8], at: Date) async throws -> PasskeySignInLookup
    /// Oldest first.
    func passkeys(of userID: UUID) async throws -> [PasskeyRecord]
    /// Stores a sign-in's counter, backup state and time, in one statement that moves the counter only
    /// forward: false (nothing stored) when the stored counter is not below `signCount`, unless both are
    /// 0 (an authenticator without a counter). Of two assertions racing with one counter, one wins.
    func recordPasskeyUse(credentialID: [UInt8], signCount: UInt32, backedUp: Bool, at: Date) async throws -> Bool
    /// Marks the passkey as possibly cloned: an assertion's counter went backwards.
    func flagPasskey(credentialID: [UInt8]) async throws
    /// False when the user has no such passkey.
    func renamePasskey(credentialID: [UInt8], userID: UUID, name: String) async throws -> Bool
    /// Deletes the user's passkey unless it is their last way to sign in (no other passkey, no identity, no
    /// password), decided in the delete itself so two deletions at once cannot remove the last two.
    func deletePasskey(credentialID: [UInt8], userID: UUID) async throws -> PasskeyDeletion
}

extension SecondFactorRepository {
    /// A guess at the confirmed authenticator: what every code but an enrolment's first is.
    public func takeGuess(userID: UUID, window: Double, at now: Date) async throws -> TOTPGuess? {
        try await takeGuess(userID: userID, confirmed: true, window: window, at: now)
    }
}

extension PasskeyRepository {
    /// Both lookups side by side (SQLite: the take on the writer, the read on a reader). A store that can
    /// make them one statement does (PostgreSQL: one round trip instead of two).
    public func takePasskeyChallenge(hash: [UInt8], readingOwnerOf credentialID: [UInt8], at now: Date) async throws -> PasskeySignInLookup {
        async let challenge = takePasskeyChallenge(hash: hash, at: now)
        async let owner = passkeyOwner(credentialID: credentialID)
        return PasskeySignInLookup(challenge: try await challenge, owner: try await owner)
    }
}

/// Authenticator apps, recovery codes and sign-ins waiting for their second step (`SecondFactorService`
/// owns the rules). Every use of a code is one statement, so a code sent by many requests at once is
/// accepted once.
/// Which key sealed what the store holds sealed (authenticator secrets, recovery codes' keyed hashes, Apple's
/// refresh tokens): its fingerprint, kept beside the data, so a start with the key lost or swapped is refused
/// rather than lock every authenticator out (`SealingKeyCheck`).
public protocol SealingKeyRepository: Sendable {
    /// The fingerprint recorded for the sealing key, or nil before the first start that recorded one.
    func sealingKeyFingerprint() async throws -> String?
    /// Records `fingerprint` unless one is recorded already, in one step; answers the recorded one (this, or
    /// the one another instance recorded first).
    func recordSealingKey(fingerprint: String, at now: Date) async throws -> String
    /// Whether anything sealed under the key is stored: an authenticator (confirmed or waiting), a recovery
    /// code, an Apple token.
    func holdsSealedData() async throws -> Bool
}

public protocol SecondFactorRepository: Sendable {
    /// The account's authenticator, confirmed or waiting for its first code, with its recovery codes left.
    func totp(userID: UUID) async throws -> TOTPRecord?
    /// Whether the account has a confirmed authenticator: one indexed read, what every one-factor sign-in asks.
    func hasSecondFactor(userID: UUID) async throws -> Bool
    /// Starts an enrolment, replacing one not yet confirmed; false (nothing stored) when the account has a
    /// confirmed authenticator. `StoreError.userGone` when the account is gone.
    func storePendingTOTP(userID: UUID, sealedSecret: [UInt8], at: Date) async throws -> Bool
    /// Confirms the enrolment whose secret is `sealedSecret`, keeps it as `resealed` from now on (a waiting
    /// secret is sealed for the session that began it, a confirmed one for the account), records `step` as
    /// used (taking back the guess that found it) and stores the recovery codes' hashes, in one transaction;
    /// false when that enrolment is no longer waiting (confirmed by a parallel request, or replaced by a newer one).
    func confirmTOTP(userID: UUID, sealedSecret: [UInt8], resealed: [UInt8], step: Int64, recoveryCodes: [[UInt8]], at: Date) async throws -> Bool
    /// One guess at the account's authenticator (`confirmed`, or the enrolment waiting for its first code),
    /// counted before anything is compared, in the same statement that reads what it is compared with: the
    /// guess counts in the window of `window` seconds and in the day (a window past its end starts again at
    /// 1). However many guesses arrive at once, each sees its own count. nil (nothing counted) when the
    /// account has no such authenticator.
    func takeGuess(userID: UUID, confirmed: Bool, window: Double, at: Date) async throws -> TOTPGuess?
    /// Records `step` as used and takes back the guess that found it (a right code is no failure), in one
    /// statement, only when the account's authenticator is confirmed and its last used step is earlier: of any
    /// number of requests presenting codes of one step, one gets true.
    func useTOTPStep(userID: UUID, step: Int64) async throws -> Bool
    /// `useTOTPStep` and, when the step was used, `takeSecondStep(hash:at:)` for the waiting sign-in of
    /// `userID` the code completes: the second step's writes, which a store may make one statement
    /// (PostgreSQL: one round trip). `taken` is nil when the waiting sign-in had gone (the step is used all the same).
    func useTOTPStep(userID: UUID, step: Int64, completing hash: [UInt8], at: Date) async throws -> (used: Bool, taken: PendingSecondStep?)
    /// Removes the recovery code hashing to `hash` and takes back the guess that found it, in one step; the
    /// codes left, or nil when it was not one of the account's (never issued, or used already).
    func useRecoveryCode(userID: UUID, hash: [UInt8]) async throws -> Int?
    /// Replaces every recovery code of a confirmed authenticator; false when the account has none.
    func replaceRecoveryCodes(userID: UUID, hashes: [[UInt8]]) async throws -> Bool
    /// Removes the authenticator, its recovery codes, the sign-ins waiting for a code and what remembered
    /// devices of the account's verified addresses skip (so that none skips the next one); false when there
    /// was nothing to remove.
    func deleteSecondFactor(userID: UUID) async throws -> Bool
    /// Keeps a sign-in waiting for its second step until it is taken or expires; `StoreError.accountDisabled`
    /// (nothing kept) when the account is disabled or gone, decided in the same statement, so a disabled
    /// account is refused before its owner is asked for a code that could not help.
    func storeSecondStep(_ step: PendingSecondStep) async throws
    /// The waiting sign-in hashing to `hash`, left in place (a wrong code does not end it); nil when
    /// unknown or expired.
    func secondStep(hash: [UInt8], at: Date) async throws -> PendingSecondStep?
    /// Removes the waiting sign-in and returns it when it had not expired, in one statement: of any number
    /// of requests completing it at once, one gets it.
    func takeSecondStep(hash: [UInt8], at: Date) async throws -> PendingSecondStep?
    /// When the session began and when it last passed a second factor (at sign-in or a step-up; nil when
    /// never), read from the database itself (never a cache), so a step-up on another instance counts at
    /// once; nil when there is no such session.
    func sessionTimes(sessionID: UUID) async throws -> SessionTimes?
    /// Records a step-up on the session of `userID`; false when the user has no such session.
    func recordStepUp(sessionID: UUID, userID: UUID, factor: String, at: Date) async throws -> Bool
}

public protocol NotificationRepository: Sendable {
    /// Remembers a processed notification until `expiresAt`; false when `jti` was already remembered.
    func markNotificationSeen(jti: String, expiresAt: Date) async throws -> Bool
}

/// Apple's refresh tokens (`AppleTokens` owns the rules). A row's account going (`deleteUser`, or
/// `deleteIdentity` of its last identity) leaves the row with no account in the same transaction: it then
/// waits to be revoked, so a deletion is never without its revocation, even if Apple is unreachable then.
public protocol AppleTokenRepository: Sendable {
    /// Keeps `record` for its account, replacing the token kept for the same Apple ID and client ID (revoking one
    /// token ends the Apple ID's authorization as a whole, so the one kept is enough). When the account is gone
    /// (deleted while Apple answered), the token is kept without one, waiting to be revoked. Returns whether the
    /// account was there.
    func keepAppleToken(_ record: AppleTokenRecord) async throws -> Bool
    /// When the token kept for the Apple ID and client ID on a live account was kept; nil when there is none.
    func appleTokenKeptAt(subject: String, clientID: String) async throws -> Date?
    /// Tokens whose account is gone, oldest first (by `keptAt`), at most `limit`.
    func appleTokensToRevoke(limit: Int) async throws -> [AppleTokenRecord]
    /// Leaves the Apple ID's tokens without their account, to be revoked: Apple said the Apple ID stopped using
    /// the app or was deleted. Returns how many.
    @discardableResult
    func releaseAppleTokens(subject: String) async throws -> Int
    /// Moves a token waiting to be revoked to the back of the queue (`keptAt` = `date`): one Apple refuses for now
    /// never holds up the others.
    func postponeAppleToken(_ record: AppleTokenRecord, to date: Date) async throws
    /// Forgets a token waiting to be revoked (it was, or Apple no longer knows it).
    func forgetAppleToken(_ record: AppleTokenRecord) async throws
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
    /// Forgets what `cutoffs` says is stale: counters and long-expired codes, hand-offs and passkey
    /// challenges past their expiry,
    /// device tokens issued too long ago, audit events older than the retention period.
    func purgeStaleRecords(_ cutoffs: StaleCutoffs) async throws
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
    /// Newest first.
    func auditEvents(_ filter: AuditFilter) async throws -> [AuditEvent]
}

extension AuditRepository {
    /// Every event, or every event of `userID`, oldest first.
    public func auditEvents(userID: UUID?) async throws -> [AuditEvent] {
        try await auditEvents(AuditFilter(userID: userID, limit: .max)).reversed()
    }
}

extension ChatterStore {
    /// Why `createSession` inserted nothing: the account is disabled, or gone.
    package func sessionRefusal(userID: UUID) async throws -> StoreError {
        try await account(id: userID) == nil ? .userGone : .accountDisabled
    }
}

/// What operators do to accounts (`AdminService` owns the rules and the audit).
public protocol AdminRepository: Sendable {
    /// Accounts whose name, id or an identity's email contains `text` (every account when nil), newest
    /// first, at most `limit`.
    func findAccounts(matching text: String?, limit: Int) async throws -> [AccountRecord]
    func account(id: UUID) async throws -> AccountRecord?
    /// Whether the account exists and an operator has marked it: the one column the account page and every
    /// admin request need, read without the account's other columns and its emails.
    func isAdmin(userID: UUID) async throws -> Bool
    /// The accounts with an identity that verified `email` (ignoring case), oldest first: administration acts
    /// on an address only for the account that proved it, never for one that merely claimed it.
    func accounts(withEmail email: String) async throws -> [AccountRecord]
    /// Disabling marks the account and ends its sessions and web handoffs in one transaction (a sign-in
    /// after it cannot insert a session: see `createSession`); enabling clears the mark. Returns the
    /// sessions ended, or nil when there is no such account.
    func setDisabled(_ disabled: Bool, userID: UUID, at: Date) async throws -> Int?
    /// False when there is no such account.
    func setAdmin(_ isAdmin: Bool, userID: UUID) async throws -> Bool
}

extension AdminRepository {
    /// For a store of one's own written before `isAdmin(userID:)`: the whole account, read for one column.
    public func isAdmin(userID: UUID) async throws -> Bool {
        try await account(id: userID)?.isAdmin == true
    }
}

public protocol ChattRepository: Sendable {
    /// Throws `StoreError.userGone` when the author was deleted meanwhile. A chatt whose id is already
    /// stored is a repeat of the same post (`Timeline.post(_:by:key:)`) and is left out, in one statement.
    func addChatt(_ chatt: Chatt) async throws
    /// Every chatt, oldest first, handed to `body` one at a time as the database reads them, so a long
    /// timeline is never held whole (`allChatts()` collects them). A row that does not read as a chatt
    /// throws `StoreError.corruptRow`: PostgreSQL's at once; SQLite's once the statement is done, after the
    /// rows that do read (sqlite-nio cannot stop a statement from its callback). Either way the caller gets
    /// the error, never a shorter list.
    func forEachChatt(_ body: @escaping @Sendable (Chatt) -> Void) async throws
    /// Newest first, strictly older than the chatt `before` (by id) when given.
    func chatts(before: UUID?, limit: Int) async throws -> [Chatt]
    func chattCount() async throws -> Int
    /// A value that changes whenever another instance or process changes the timeline (it may change more
    /// often), cheap to read: caches compare it before answering; this process's own writes they watch
    /// themselves.
    func timelineStamp() async throws -> TimelineStamp
    /// `timelineStamp()` costs no database read, so callers need not share reads of it.
    var timelineStampIsInMemory: Bool { get }
}

extension ChattRepository {
    public var timelineStampIsInMemory: Bool { false }

    /// Every chatt, oldest first.
    public func allChatts() async throws -> [Chatt] {
        let collected = Collected<Chatt>()
        try await forEachChatt { collected.append($0) }
        return collected.values
    }
}

/// Values handed over one at a time by a callback that may run on another thread (a database's).
package final class Collected<Value: Sendable>: Sendable {
    private let state = Mutex<[Value]>([])

    package init() {}

    package func append(_ value: Value) { state.withLock { $0.append(value) } }

    package var values: [Value] { state.withLock { $0 } }
}

/// See `ChattRepository.timelineStamp()`.
public struct TimelineStamp: Sendable, Equatable {
    public var values: [Int]
    public init(_ values: [Int]) { self.values = values }
}

/// Everything chatterd stores, and the lifecycle of the store itself.
public protocol ChatterStore: UserRepository, PasswordRepository, SessionRepository, EmailCodeRepository,
    DeviceTokenRepository, PasskeyRepository, SecondFactorRepository, SealingKeyRepository, AppleTokenRepository, NotificationRepository,
    RateLimitRepository, WebHandoffRepository, DPoPProofRepository, AppAttestRepository,
    AuditRepository,
    ChattRepository,
    AdminRepository
{
    /// What the store needs running beside the server (a connection pool), started before and stopped
    /// after the services that use the store.
    var services: [any Service] { get }
    /// A human-readable name of the database, without any password, for the banner and the log.
    var location: String { get }
    /// The key session tokens are tagged with, read when the store opened (it never changes).
    var tokenKey: SessionTokenKey { get }
    /// The schema version the database holds and the newest this chatterd knows, read from the database
    /// now: an answer also proves the database is reachable (`/ready`).
    func schemaVersion() async throws -> (applied: Int, known: Int)
    func close() async throws
}

/// What `RateLimitRepository.purgeStaleRecords` forgets, by time.
public struct StaleCutoffs: Sendable, Equatable {
    /// Hand-offs expired before this are gone: they can never be redeemed.
    public var now: Date
    /// Rate-limit windows that started before this, codes and notifications that expired before it.
    public var counters: Date
    /// Device tokens issued before this (`DeviceTokens.lifetime` ago).
    public var deviceTokens: Date
    /// Audit events before this; nil keeps them all.
    public var audit: Date?
    /// App Attest keys attested before this and never used by an assertion since (an install that attested and
    /// never signed in).
    public var unusedAppAttestKeys: Date
    /// App Attest keys whose last assertion came before this (an install long gone). A purged key costs an install
    /// still in use one new attestation at its next sign-in.
    public var idleAppAttestKeys: Date

    public init(
        now: Date, counters: Date, deviceTokens: Date, audit: Date?, unusedAppAttestKeys: Date = .distantPast,
        idleAppAttestKeys: Date = .distantPast
    ) {
        self.now = now
        self.counters = counters
        self.deviceTokens = deviceTokens
        self.audit = audit
        self.unusedAppAttestKeys = unusedAppAttestKeys
        self.idleAppAttestKeys = idleAppAttestKeys
    }

    /// Counters, codes and hand-offs before `cutoff`; no device token or audit event.
    public static func before(_ cutoff: Date) -> StaleCutoffs {
        StaleCutoffs(now: cutoff, counters: cutoff, deviceTokens: .distantPast, audit: nil)
    }
}

extension EmailCodeRepository {
    /// With no cap on live codes across scopes.
    public func storeEmailCode(_ record: EmailCodeRecord, for email: String, scope: String, cooldown: Double) async throws -> Double? {
        try await storeEmailCode(record, for: email, scope: scope, cooldown: cooldown, maximumLive: .max)
    }
}

/// Every rate-limit counter's key, spelled in this one place: the services count under these names and the
/// stores delete an account's own when it goes (`naming`), so renaming one cannot silently leave a deleted
/// account's counters behind.
package enum RateLimitKeys {
    /// Counters whose key names an account (not an address or a network): deleting the account removes them.
    package static func naming(_ userID: UUID) -> [String] {
        let account = passwordAccount(userID)
        return [handoff(userID), notices(userID), passwordAttempts(account), passwordDay(account), passwordDevicesDay(account)]
    }

    package static func handoff(_ userID: UUID) -> String { "handoff:\(userID.uuidString)" }
    package static func notices(_ userID: UUID) -> String { "notice:\(userID.uuidString)" }

    /// What password attempts at an address's account count under (a sign-in names an address, not an account).
    package static func passwordAccount(email: String) -> String { "email:\(email)" }
    /// What a signed-in password change counts under.
    package static func passwordAccount(_ userID: UUID) -> String { "user:\(userID.uuidString)" }
    package static func passwordAttempts(_ account: String) -> String { "pw:acct:\(account)" }
    package static func passwordDay(_ account: String) -> String { "pw:day:\(account)" }
    package static func passwordDevicesDay(_ account: String) -> String { "pw:devday:\(account)" }
    package static func passwordDevice(_ device: String) -> String { "pw:dev:\(device)" }
    package static func passwordNetwork(_ network: String) -> String { "pw:ip:\(network)" }

    package static func emailCodes(scope: String, email: String) -> String { "code:\(scope):\(email)" }
    package static func emailCodeNetwork(_ network: String) -> String { "code:ip:\(network)" }
    package static func passkeyCeremonies(_ network: String) -> String { "passkey:\(network)" }
    package static func appAttestChallenges(_ network: String) -> String { "app-attest:\(network)" }
    package static func appleExchanges(_ subject: String) -> String { "apple-exchange:\(subject)" }
    package static func auditRefusals(_ network: String) -> String { "audit:refused:\(network)" }
}
