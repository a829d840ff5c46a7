import Foundation

/// What the SDK keeps in secure storage: the tokens and when they end. Internal, so tokens never reach
/// an app's logs through a public description.
struct StoredSession: Codable, Sendable, Equatable {
    var kind: AuthSession.Kind
    /// The bearer token (native) or the chatterID (course API).
    var accessToken: String
    /// Native sessions only; single use, rotated by every refresh.
    var refreshToken: String?
    var accessExpiresAt: Date
    /// The session's absolute end (native); a course chatterID ends at `accessExpiresAt`.
    var refreshExpiresAt: Date?
    var sessionID: String?
    var username: String
    var user: UserProfile?
    /// Counts the writes of this device's session across every process sharing the store, one more than the
    /// stored one's at each write: for diagnostics (how often it was refreshed). Whose session is stored is decided
    /// by the tokens (`differs(from:)`), since a sign-out starts the count again. Nil in sessions stored before it
    /// existed, read as 0.
    var generation: Int?

    init(course response: AddUserResponse, at now: Date) {
        kind = .course
        accessToken = response.chatterID
        accessExpiresAt = now.addingTimeInterval(TimeInterval(response.lifetime))
        username = response.username
    }

    init(native response: SessionResponse, at now: Date) {
        kind = .native
        accessToken = response.accessToken
        refreshToken = response.refreshToken
        accessExpiresAt = now.addingTimeInterval(TimeInterval(response.expiresIn))
        refreshExpiresAt = now.addingTimeInterval(TimeInterval(response.refreshExpiresIn))
        sessionID = response.sessionID
        username = response.user.displayName
        user = response.user
    }

    /// The stored JSON read back; nil for none, and for data no version of the SDK could have written.
    static func decode(_ data: Data?) -> StoredSession? {
        data.flatMap { try? JSONDecoder().decode(StoredSession.self, from: $0) }
    }

    /// Whether this holds other tokens than `other`. Read from a shared store, a session that differs from the one
    /// a process holds was written after it (storage only moves forward: a process writes what it was issued or
    /// adopted), whatever the generations say: a sign-out and a new sign-in start counting again.
    func differs(from other: StoredSession) -> Bool {
        accessToken != other.accessToken || refreshToken != other.refreshToken
    }

    /// What `StoreKey.sessionStamp` holds for this session: SHA-256 of its tokens, which tells sessions apart as
    /// `differs(from:)` does and reveals neither token.
    var stamp: Data {
        Data(SHA256Digest.hex(Array((accessToken + "\n" + (refreshToken ?? "")).utf8)).utf8)
    }

    var publicView: AuthSession {
        AuthSession(
            kind: kind, username: username, user: user, sessionID: sessionID, accessExpiresAt: accessExpiresAt,
            refreshExpiresAt: refreshExpiresAt)
    }

    /// When the session as a whole ends.
    var endsAt: Date { refreshExpiresAt ?? accessExpiresAt }

    func status(at now: Date, leeway: TimeInterval) -> AuthSession.Status {
        if now >= endsAt { return .expired }
        if now >= accessExpiresAt.addingTimeInterval(-leeway) { return .expiring }
        return .valid
    }
}

/// A session as apps see it: who is signed in and until when, without the tokens.
public struct AuthSession: Sendable, Equatable {
    /// Which API issued a session; it decides how the session is used and renewed.
    public enum Kind: String, Codable, Sendable {
        /// A chatterID from the course API's `/adduser`: fixed lifetime, no refresh.
        case course
        /// An access/refresh token pair from the native API.
        case native
    }

    /// How far a session's tokens have run, judged with the refresh leeway.
    public enum Status: String, Sendable, Equatable {
        /// The access token has more than the refresh leeway left.
        case valid
        /// The access token ends soon or has ended; a native session refreshes on its next use.
        case expiring
        /// The session is over; sign in again.
        case expired
    }

    /// A course chatterID or a native token pair.
    public var kind: Kind
    /// The display name to show, as in "Signed in as …".
    public var username: String
    /// The profile chatterd sent at sign-in or at the last refresh; nil for a course session.
    public var user: UserProfile?
    /// This session's id, as `SessionInfo.id` lists it, to mark it in a session list; nil for a course session.
    public var sessionID: String?
    /// When the access token (or chatterID) ends; a native session refreshes itself shortly before.
    public var accessExpiresAt: Date
    /// The native session's absolute end, which no refresh goes past; nil for a course session, which ends at
    /// `accessExpiresAt`.
    public var refreshExpiresAt: Date?
}

/// What the session manager publishes, in order: the restored session first, then every change.
public enum AuthEvent: Sendable, Equatable {
    /// The state found at start (or at the moment a listener subscribed).
    case initialSession(LaunchState)
    /// A sign-in by any method succeeded.
    case signedIn(AuthSession)
    /// The tokens were rotated; the session carries the new expiry dates and the current profile.
    case refreshed(AuthSession)
    /// The session is gone from this device: the user signed out, or the server ended it. Show sign-in.
    case signedOut(SignOutReason)
}

/// What the stored session looks like at launch, for the "session available / expired" advisory.
public enum LaunchState: Sendable, Equatable {
    /// No session is stored: show sign-in.
    case signedOut
    /// A session whose access token has more than the refresh leeway left.
    case valid(AuthSession)
    /// Usable: a native session refreshes before its next request.
    case expiring(AuthSession)
    /// Stored but over: ask the user to sign in again.
    case expired(AuthSession)
    /// Storage could not be read now (locked device, keyring not running). The user is not signed
    /// out; the SDK reads again on the next request.
    case storageUnavailable(StorageError)
}
