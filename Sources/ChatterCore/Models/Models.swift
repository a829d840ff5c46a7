import ChatterWire
import Foundation

/// An account. Identities from providers point at it; it is never found by email alone.
public struct User: Sendable, Equatable {
    public var id: UUID
    public var displayName: String
    public var name: NameParts?

    public init(id: UUID, displayName: String, name: NameParts? = nil) {
        self.id = id
        self.displayName = displayName
        self.name = name
    }
}

/// A provider's account, keyed by (issuer, subject) as OpenID Connect requires.
public struct IdentityKey: Sendable, Hashable {
    public var issuer: String
    public var subject: String

    public init(issuer: String, subject: String) {
        self.issuer = issuer
        self.subject = subject
    }

    /// Email addresses proven by a code are identities of this pseudo-issuer, subject the normalized address.
    public static let emailIssuer = "email"
    public static func email(_ address: String) -> IdentityKey { IdentityKey(issuer: emailIssuer, subject: address) }
}

/// What a sign-in learned about the person from the provider.
public struct IdentityClaims: Sendable, Equatable {
    public var key: IdentityKey
    public var displayName: String?
    public var name: NameParts?
    public var email: String?
    public var emailVerified: Bool

    public init(key: IdentityKey, displayName: String? = nil, name: NameParts? = nil, email: String? = nil, emailVerified: Bool = false) {
        self.key = key
        self.displayName = displayName
        self.name = name
        self.email = email
        self.emailVerified = emailVerified
    }
}

public struct Identity: Sendable, Equatable {
    public var key: IdentityKey
    public var email: String?
    public var emailVerified: Bool

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(key: IdentityKey, email: String? = nil, emailVerified: Bool) {
        self.key = key
        self.email = email
        self.emailVerified = emailVerified
    }
}

/// See `UserRepository.accountSummary(userID:)`.
public struct AccountSummary: Sendable, Equatable {
    public var identities: [Identity]
    public var hasPassword: Bool
    public var hasPasskey: Bool

    public init(identities: [Identity], hasPassword: Bool, hasPasskey: Bool = false) {
        self.identities = identities
        self.hasPassword = hasPassword
        self.hasPasskey = hasPasskey
    }
}

/// An identity and the account it belongs to.
public struct LinkedIdentity: Sendable, Equatable {
    public var user: User
    public var identity: Identity

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(user: User, identity: Identity) {
        self.user = user
        self.identity = identity
    }
}

/// Who is asking: kept with sessions and audit events.
public struct ClientInfo: Sendable, Hashable {
    public var ip: String?
    public var userAgent: String?
    /// What per-client limits count by (`ClientNetwork`): the IPv4 address, or the IPv6 address's network
    /// (a /64 by default), since one IPv6 client holds a whole /64. Not stored; nil counts by `ip`.
    public var network: String?
    /// The wider IPv6 network (/48) one holder gets from a tunnel broker or a host: counted too, against
    /// limits `ClientNetwork.widening` times larger, so rotating through its 65,536 /64s gains little.
    public var wideNetwork: String?
    /// The JWK thumbprint of the key the request proved it holds with a DPoP proof (RFC 9449), checked at
    /// the edge: a session it starts is bound to that key. nil without a proof.
    public var boundKey: String?
    /// The attested install whose App Attest key vouched for the request (`AttestedInstall`), checked at the edge;
    /// nil without an assertion.
    public var attested: AttestedInstall?

    public init(
        ip: String? = nil, userAgent: String? = nil, network: String? = nil, wideNetwork: String? = nil, boundKey: String? = nil,
        attested: AttestedInstall? = nil
    ) {
        self.ip = ip
        self.userAgent = userAgent
        self.network = network
        self.wideNetwork = wideNetwork
        self.boundKey = boundKey
        self.attested = attested
    }

    /// The keys per-client limits count under, narrowest first: the n-th has `widening`^n times the limit.
    public var limitKeys: [String] { [network ?? ip, wideNetwork].compactMap { $0 } }
}

/// A live session as the request handlers see it.
public struct AuthenticatedSession: Sendable, Equatable {
    public var sessionID: UUID
    public var user: User
    public var method: String
    public var accessExpiresAt: Date
    /// The JWK thumbprint of the DPoP key the session is bound to: its tokens are refused without a proof
    /// by that key. nil for a bearer session.
    public var boundKey: String?

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(sessionID: UUID, user: User, method: String, accessExpiresAt: Date, boundKey: String? = nil) {
        self.sessionID = sessionID
        self.user = user
        self.method = method
        self.accessExpiresAt = accessExpiresAt
        self.boundKey = boundKey
    }
}

public enum SessionLookup: Sendable, Equatable {
    case valid(AuthenticatedSession)
    /// Known but its access token is past its lifetime (refresh it, if the session has a refresh token).
    case expired
    case unknown
}

/// The hashes and deadlines of a session's tokens, as the session service computes them.
public struct NewSession: Sendable {
    public var id = UUID()
    public var userID: UUID
    public var method: String
    public var accessHash: [UInt8]
    public var accessExpiresAt: Date
    /// nil for sessions that cannot be refreshed (the course API's chatterIDs, web-view cookies).
    public var refreshHash: [UInt8]?
    public var createdAt: Date
    public var absoluteExpiresAt: Date
    public var client: ClientInfo
    /// Whether the access token names the session (native sessions): it is then found by the session's id;
    /// otherwise (chatterIDs, browser cookies) by its hash.
    public var accessTokenNamed = false
    /// The second factor this sign-in passed (`SecondFactorKind`), nil for one factor.
    public var secondFactor: String? = nil
    /// When it was proven, for step-up: at sign-in, unless the device was remembered (`SecondFactorKind.isFresh`).
    public var secondFactorAt: Date? {
        secondFactor.flatMap(SecondFactorKind.init(rawValue:))?.isFresh == true ? createdAt : nil
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        id: UUID = UUID(), userID: UUID, method: String, accessHash: [UInt8], accessExpiresAt: Date, refreshHash: [UInt8]? = nil, createdAt: Date,
        absoluteExpiresAt: Date, client: ClientInfo, accessTokenNamed: Bool = false, secondFactor: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.method = method
        self.accessHash = accessHash
        self.accessExpiresAt = accessExpiresAt
        self.refreshHash = refreshHash
        self.createdAt = createdAt
        self.absoluteExpiresAt = absoluteExpiresAt
        self.client = client
        self.accessTokenNamed = accessTokenNamed
        self.secondFactor = secondFactor
    }
}

/// Hashed by id alone, so that concurrent sign-ins can be inserted together (see `BatchingLookup`).
extension NewSession: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// A refresh token's rotation, computed by the session service and applied atomically by the store.
/// Hashable so that concurrent rotations can be applied together (see `BatchingLookup`).
public struct Rotation: Sendable, Hashable {
    public var presentedHash: [UInt8]
    /// The session the presented token names, or for a token from before refresh tokens named their session,
    /// the session it is the current token of (`SessionRepository.sessionID(unnamedRefreshHash:)`). nil when
    /// neither: such a token is only settled, never rotated.
    public var sessionID: UUID?
    public var newAccessHash: [UInt8]
    public var newRefreshHash: [UInt8]
    public var accessLifetime: Double
    /// A refresh must come within this long of the session's last use.
    public var idleLifetime: Double
    /// An already-rotated token presented within this long returns the same new pair (a lost response).
    public var graceWindow: Double
    /// The new pair, sealed with a key only the presented token can derive, for that retry.
    public var retryBox: [UInt8]
    public var now: Date
    /// Whether the new access token names the session (see `NewSession.accessTokenNamed`).
    public var accessTokenNamed = false
    /// The thumbprint of the key the refresh request's DPoP proof was made with, nil without one. A bound
    /// session rotates only with its own key's proof; an unbound one is bound by the first proof it sees.
    public var boundKey: String? = nil

    /// The new refresh hash alone: random, so it tells rotations apart (batches hash every rotation).
    public func hash(into hasher: inout Hasher) {
        newRefreshHash.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        presentedHash: [UInt8], sessionID: UUID? = nil, newAccessHash: [UInt8], newRefreshHash: [UInt8], accessLifetime: Double, idleLifetime: Double,
        graceWindow: Double, retryBox: [UInt8], now: Date, accessTokenNamed: Bool = false, boundKey: String? = nil
    ) {
        self.presentedHash = presentedHash
        self.sessionID = sessionID
        self.newAccessHash = newAccessHash
        self.newRefreshHash = newRefreshHash
        self.accessLifetime = accessLifetime
        self.idleLifetime = idleLifetime
        self.graceWindow = graceWindow
        self.retryBox = retryBox
        self.now = now
        self.accessTokenNamed = accessTokenNamed
        self.boundKey = boundKey
    }
}

/// A session as a rotation left it, with what the refresh answer shows of its account (read by the
/// same database step, so a refresh costs one).
public struct RotatedSession: Sendable, Equatable {
    public var sessionID: UUID
    public var user: User
    public var account: AccountSummary
    public var accessExpiresAt: Date
    public var absoluteExpiresAt: Date
    /// The key the session is bound to after the rotation (`AuthenticatedSession.boundKey`).
    public var boundKey: String?

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(sessionID: UUID, user: User, account: AccountSummary, accessExpiresAt: Date, absoluteExpiresAt: Date, boundKey: String? = nil) {
        self.sessionID = sessionID
        self.user = user
        self.account = account
        self.accessExpiresAt = accessExpiresAt
        self.absoluteExpiresAt = absoluteExpiresAt
        self.boundKey = boundKey
    }
}

/// A refresh token a rotation replaced, and the state of its session now.
public struct RetiredRefreshToken: Sendable, Equatable {
    /// `distantPast` when only known to be older than the latest rotation.
    public var retiredAt: Date
    public var sessionID: UUID
    public var userID: UUID
    /// When the session was last rotated: equal to `retiredAt` only for the token that rotation retired.
    public var rotatedAt: Date?
    public var retryBox: [UInt8]?
    public var accessExpiresAt: Date
    public var absoluteExpiresAt: Date
    /// The key the session is bound to (`AuthenticatedSession.boundKey`).
    public var boundKey: String?

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        retiredAt: Date, sessionID: UUID, userID: UUID, rotatedAt: Date? = nil, retryBox: [UInt8]? = nil, accessExpiresAt: Date, absoluteExpiresAt: Date,
        boundKey: String? = nil
    ) {
        self.retiredAt = retiredAt
        self.sessionID = sessionID
        self.userID = userID
        self.rotatedAt = rotatedAt
        self.retryBox = retryBox
        self.accessExpiresAt = accessExpiresAt
        self.absoluteExpiresAt = absoluteExpiresAt
        self.boundKey = boundKey
    }
}

public enum RotationOutcome: Sendable, Equatable {
    case rotated(RotatedSession)
    /// The presented token was rotated moments ago: answer with the pair sealed in `retryBox`.
    case retry(sessionID: UUID, user: User, retryBox: [UInt8], accessExpiresAt: Date, absoluteExpiresAt: Date, boundKey: String?)
    /// The session is bound to a DPoP key and the refresh did not prove it holds that key: nothing changed.
    case wrongKey
    /// A retired token came back outside the grace window: the whole session has been revoked.
    case reused(sessionID: UUID, userID: UUID)
    /// Idle or absolute lifetime is over; the session has been deleted.
    case expired(userID: UUID)
    case unknown
}

public struct SessionRecord: Sendable, Equatable {
    public var id: UUID
    public var method: String
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var lastUsedAt: Date
    /// The second factor the session's sign-in passed (`SecondFactorKind`); nil for one factor.
    public var secondFactor: String? = nil
    /// The app whose attested install vouched for the sign-in (`AttestedInstall.appID`); nil without.
    public var attestedApp: String? = nil

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        id: UUID, method: String, userAgent: String? = nil, ip: String? = nil, createdAt: Date, lastUsedAt: Date, secondFactor: String? = nil,
        attestedApp: String? = nil
    ) {
        self.id = id
        self.method = method
        self.userAgent = userAgent
        self.ip = ip
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.secondFactor = secondFactor
        self.attestedApp = attestedApp
    }
}

public struct EmailCodeRecord: Sendable, Equatable {
    public var codeHash: [UInt8]
    public var expiresAt: Date
    /// Guesses counted against it, right or wrong.
    public var guesses: Int
    public var sentAt: Date

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(codeHash: [UInt8], expiresAt: Date, guesses: Int, sentAt: Date) {
        self.codeHash = codeHash
        self.expiresAt = expiresAt
        self.guesses = guesses
        self.sentAt = sentAt
    }
}

public struct AuditEvent: Sendable, Equatable {
    public var at: Date
    public var event: String
    public var userID: UUID?
    public var method: String?
    public var client: ClientInfo
    public var detail: String?
    /// Who acted on `userID`'s account when it was not the user: an operator.
    public var actor: AuditActor?

    public init(
        at: Date, event: String, userID: UUID? = nil, method: String? = nil, client: ClientInfo = ClientInfo(), detail: String? = nil,
        actor: AuditActor? = nil
    ) {
        self.at = at
        self.event = event
        self.userID = userID
        self.method = method
        self.client = client
        self.detail = detail
        self.actor = actor
    }
}

/// An operator who acted on an account: an admin through the web app, or someone at the command line.
public enum AuditActor: Sendable, Hashable, CustomStringConvertible {
    /// An account marked as an operator (`chatterd admin grant`), through the admin pages.
    case admin(UUID)
    /// `chatterd admin …`, run by this system login.
    case commandLine(login: String)

    /// How the audit table stores it: `admin:<user id>` or `cli:<login>`.
    public var description: String {
        switch self {
        case .admin(let id): "admin:" + id.text
        case .commandLine(let login): "cli:" + login
        }
    }

    public init?(stored: String) {
        if stored.hasPrefix("admin:"), let id = UUID(text: String(stored.dropFirst(6))) {
            self = .admin(id)
        } else if stored.hasPrefix("cli:") {
            self = .commandLine(login: String(stored.dropFirst(4)))
        } else {
            return nil
        }
    }
}

/// Which audit events to read: every condition given must hold. Newest first, at most `limit`.
public struct AuditFilter: Sendable, Equatable {
    public var userID: UUID?
    /// Event names (`AuditLog.Event` raw values); empty for all.
    public var events: [String]
    public var since: Date?
    public var until: Date?
    public var limit: Int

    public init(userID: UUID? = nil, events: [String] = [], since: Date? = nil, until: Date? = nil, limit: Int = 100) {
        self.userID = userID
        self.events = events
        self.since = since
        self.until = until
        self.limit = limit
    }
}

/// An account as an operator sees it.
public struct AccountRecord: Sendable, Equatable {
    public var user: User
    public var createdAt: Date
    /// When an operator disabled it; nil while it may sign in.
    public var disabledAt: Date?
    /// Marked as an operator: may use the admin pages.
    public var isAdmin: Bool
    /// The addresses its identities carry, oldest identity first.
    public var emails: [String]

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(user: User, createdAt: Date, disabledAt: Date? = nil, isAdmin: Bool, emails: [String]) {
        self.user = user
        self.createdAt = createdAt
        self.disabledAt = disabledAt
        self.isAdmin = isAdmin
        self.emails = emails
    }
}

public struct Chatt: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var message: String
    public var time: Date
    public var userID: UUID?

    /// `id`: by default a time-ordered UUID (see `UUID.timeOrdered(at:)`).
    public init(id: UUID? = nil, name: String, message: String, time: Date, userID: UUID?) {
        self.id = id ?? .timeOrdered(at: time)
        self.name = name
        self.message = message
        self.time = time
        self.userID = userID
    }
}

/// A passkey ceremony's challenge, kept by its SHA-256 until one response redeems it.
public struct PasskeyChallenge: Sendable, Equatable {
    public enum Purpose: String, Sendable, CaseIterable {
        /// Adding a passkey to the signed-in account `userID`.
        case register
        /// Creating an account for the address `email` proved with a code, with a passkey.
        case signUp = "sign-up"
        /// Signing in; the passkey names its account.
        case signIn = "sign-in"
        /// Confirming it is the owner of the signed-in account `userID` (a step-up): one of its passkeys.
        case stepUp = "step-up"
        /// An App Attest attestation: App Attest's challenges share the ceremonies' single-use store and its purge.
        case appAttest = "app-attest"
    }

    public var hash: [UInt8]
    public var purpose: Purpose
    public var userID: UUID?
    public var email: String?
    /// The user handle offered in the creation options (registration and sign-up).
    public var userHandle: [UInt8]?
    public var userVerification: UserVerification
    public var expiresAt: Date

    public init(
        hash: [UInt8], purpose: Purpose, userID: UUID? = nil, email: String? = nil, userHandle: [UInt8]? = nil, userVerification: UserVerification,
        expiresAt: Date
    ) {
        self.hash = hash
        self.purpose = purpose
        self.userID = userID
        self.email = email
        self.userHandle = userHandle
        self.userVerification = userVerification
        self.expiresAt = expiresAt
    }
}

/// A registered passkey.
public struct PasskeyRecord: Sendable, Equatable {
    public var credentialID: [UInt8]
    public var userID: UUID
    /// The COSE key as the authenticator sent it.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var aaguid: [UInt8]
    public var backupEligible: Bool
    public var backedUp: Bool
    public var transports: [String]
    public var attestationFormat: String
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// Its counter went backwards once: the credential may have been cloned.
    public var flagged: Bool

    public init(
        credentialID: [UInt8], userID: UUID, publicKey: [UInt8], signCount: UInt32, aaguid: [UInt8], backupEligible: Bool, backedUp: Bool,
        transports: [String], attestationFormat: String, name: String, createdAt: Date, lastUsedAt: Date? = nil, flagged: Bool = false
    ) {
        self.credentialID = credentialID
        self.userID = userID
        self.publicKey = publicKey
        self.signCount = signCount
        self.aaguid = aaguid
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.transports = transports
        self.attestationFormat = attestationFormat
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.flagged = flagged
    }
}

/// What `PasskeyRepository.deletePasskey` did.
public enum PasskeyDeletion: Sendable, Equatable {
    case deleted
    case notFound
    /// Refused: it is the account's last way to sign in.
    case lastWayToSignIn
}

/// See `PasskeyRepository.passkeyOwner(credentialID:)`.
public struct PasskeyOwner: Sendable, Equatable {
    public var passkey: PasskeyRecord
    public var userHandle: [UInt8]
    public var user: User
    /// The account as `UserRepository.accountSummary` reads it, for the profile a sign-in answers with.
    public var account: AccountSummary

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(passkey: PasskeyRecord, userHandle: [UInt8], user: User, account: AccountSummary) {
        self.passkey = passkey
        self.userHandle = userHandle
        self.user = user
        self.account = account
    }
}

/// One sign-in's counter to store, distinct per request (`ticket`), so a batch of them answers each once.
package struct PasskeyUse: Hashable, Sendable {
    package let credentialID: [UInt8]
    package let signCount: UInt32
    package let backedUp: Bool
    package let at: Date
    package let ticket = UUID()

    /// A batch in rounds that each name a passkey once, in arrival order: applied one after another, two
    /// uses of one passkey are decided as if they had come apart (both stores' batched counters).
    package static func rounds(_ batch: [PasskeyUse]) -> [[PasskeyUse]] {
        var rounds: [[PasskeyUse]] = []
        var uses: [[UInt8]: Int] = [:]
        for use in batch {
            let round = uses[use.credentialID, default: 0]
            uses[use.credentialID] = round + 1
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(use)
        }
        return rounds
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(credentialID: [UInt8], signCount: UInt32, backedUp: Bool, at: Date) {
        self.credentialID = credentialID
        self.signCount = signCount
        self.backedUp = backedUp
        self.at = at
    }
}

/// See `PasskeyRepository.takePasskeyChallenge(hash:readingOwnerOf:at:)`.
public struct PasskeySignInLookup: Sendable, Equatable {
    /// The challenge taken, nil when there was none to take or it had expired.
    public var challenge: PasskeyChallenge?
    public var owner: PasskeyOwner?

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(challenge: PasskeyChallenge? = nil, owner: PasskeyOwner? = nil) {
        self.challenge = challenge
        self.owner = owner
    }
}
