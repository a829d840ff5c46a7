import ChatterCore
import ChatterWire
import Crypto
import Foundation
import Logging

/// Issues, checks, rotates and revokes sessions. Only hashes of tokens reach the store.
public struct SessionService: Sendable {
    /// How long tokens and sessions live (`SessionLifetimes`, in the core: the stores purge by it).
    public typealias Lifetimes = SessionLifetimes

    public enum RefreshResult: Sendable {
        case refreshed(SessionResponse)
        case reused(userID: UUID)
        case invalid
        /// The session is bound to a DPoP key the request did not prove it holds.
        case wrongKey
    }

    let store: any SessionRepository
    /// The key session tokens are tagged with (`ChatterStore.tokenKey`).
    package let tokenKey: SessionTokenKey
    public let lifetimes: Lifetimes
    /// A rotation answers with the user's profile, and a reused token is audited.
    package let profiles: Profiles
    package let audit: AuditLog
    package let now: @Sendable () -> Date
    /// `--require-dpop`: native sessions start and refresh only with a DPoP proof, and a bearer token of an
    /// unbound session is refused until a refresh with a proof binds it.
    package var requireBoundKey = false

    package init(
        store: any SessionRepository, tokenKey: SessionTokenKey, lifetimes: Lifetimes, profiles: Profiles, audit: AuditLog,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.tokenKey = tokenKey
        self.lifetimes = lifetimes
        self.profiles = profiles
        self.audit = audit
        self.now = now
    }

    /// Over the whole store, with its token key.
    public init(store: any ChatterStore, lifetimes: Lifetimes, now: @escaping @Sendable () -> Date, logger: Logger = Logger(label: "chatterd")) {
        self.init(
            store: store, tokenKey: store.tokenKey, lifetimes: lifetimes, profiles: Profiles(store: store),
            audit: AuditLog(store: store, now: now, logger: logger), now: now)
    }

    /// A native session: an access token and a refresh token.
    public func start(
        user: User, method: SignInMethod, client: ClientInfo, profile: UserProfile, secondFactor: SecondFactorKind? = nil
    ) async throws -> SessionResponse {
        if requireBoundKey, client.boundKey == nil { throw DPoPError.required }
        let id = UUID()
        let access = SessionToken.generate(naming: id, as: .access, signedWith: tokenKey)
        let refresh = SessionToken.generate(naming: id, as: .refresh, signedWith: tokenKey)
        let created = now()
        let session = NewSession(
            id: id, userID: user.id, method: method.rawValue, accessHash: access.hash, accessExpiresAt: created.addingTimeInterval(lifetimes.access),
            refreshHash: refresh.hash, createdAt: created, absoluteExpiresAt: created.addingTimeInterval(lifetimes.absolute), client: client,
            accessTokenNamed: true, secondFactor: secondFactor?.rawValue)
        try await ChatterMetrics.database("create_session") { try await store.createSession(session) }
        return SessionResponse(
            accessToken: access.secret, refreshToken: refresh.secret, tokenType: Self.tokenType(boundKey: client.boundKey), expiresIn: Int(lifetimes.access),
            refreshExpiresIn: Int(lifetimes.absolute), sessionID: session.id.text, user: profile)
    }

    /// How a session's tokens are presented (`SessionResponse.tokenType`): RFC 9449's `DPoP` when bound.
    static func tokenType(boundKey: String?) -> String {
        boundKey == nil ? "Bearer" : "DPoP"
    }

    /// A session that cannot be refreshed (course chatterIDs, web-view cookies): returns its one token. It is
    /// never bound to a key (a browser's cookie carries no proof), nor labelled as an attested install's, whatever
    /// `client` proved.
    public func startUnrefreshable(
        user: User, method: SignInMethod, lifetime: Double, client: ClientInfo, secondFactor: SecondFactorKind? = nil
    ) async throws -> SessionToken {
        var client = client
        client.boundKey = nil
        client.attested = nil
        let access = SessionToken.generate(signedWith: tokenKey)
        let created = now()
        try await store.createSession(
            NewSession(
                userID: user.id, method: method.rawValue, accessHash: access.hash, accessExpiresAt: created.addingTimeInterval(lifetime),
                refreshHash: nil, createdAt: created, absoluteExpiresAt: created.addingTimeInterval(lifetime), client: client,
                secondFactor: secondFactor?.rawValue))
        return access
    }

    public func authenticate(_ accessToken: String) async throws -> SessionLookup {
        let instant = now()
        if let id = tokenKey.session(namedBy: accessToken, as: .access) {
            return try await store.session(accessHash: SessionToken.hash(accessToken), naming: id, at: instant)
        }
        guard tokenKey.mayHaveIssued(accessToken, at: instant) else { return .unknown }
        return try await store.session(accessHash: SessionToken.hash(accessToken), at: instant)
    }

    /// The session a bearer token or cookie names, or why there is none.
    package func session(accessToken: String) async throws -> AuthenticatedSession {
        switch try await authenticate(accessToken) {
        case .valid(let session): return session
        case .expired: throw SessionError.accessTokenExpired
        case .unknown: throw SessionError.invalidAccessToken
        }
    }

    /// The session a token names where no DPoP proof can come with it (a course chatterID, the pages'
    /// cookie): a session bound to a key is none of these, since its token alone proves nothing. Without
    /// this, a bound app's stolen access token would work as a chatterID or a browser's cookie.
    package func unboundSession(_ token: String) async throws -> SessionLookup {
        let lookup = try await authenticate(token)
        if case .valid(let session) = lookup, session.boundKey != nil { return .unknown }
        return lookup
    }

    /// The session a course chatterID names, or why there is none (the course API's own codes).
    package func session(chatterID: String) async throws -> AuthenticatedSession {
        switch try await unboundSession(chatterID) {
        case .valid(let session): return session
        case .expired: throw SessionError.expiredChatterID
        case .unknown: throw SessionError.unknownChatterID
        }
    }

    /// Rotates `refreshToken` (`refresh(_:profile:)`); a reused one ends its session and is audited.
    /// `client` is asked for only then, so a refresh parses no address. `boundKey`: the thumbprint of the
    /// key the request's DPoP proof was made with.
    package func refresh(_ token: String, boundKey: String? = nil, client: @autoclosure () -> ClientInfo) async throws -> SessionResponse {
        if requireBoundKey, boundKey == nil { throw DPoPError.required }
        switch try await refresh(token, boundKey: boundKey, profile: { try await profiles.profile($0, account: $1) }) {
        case .refreshed(let response):
            return response
        case .reused(let userID):
            await audit.record(.refreshReused, user: userID, client: client(), detail: "session revoked")
            throw SessionError.refreshTokenReused
        case .invalid:
            throw SessionError.invalidRefreshToken
        case .wrongKey:
            throw DPoPError.boundToAnotherKey
        }
    }

    /// Rotates `refreshToken`. The new pair is also sealed under a key derived from the presented token, so
    /// that the same token retried within the grace window gets the same pair back — and only its holder can.
    /// `profile` builds the answer's profile; it is given the account when the rotation read it already.
    /// A session bound to a DPoP key rotates only when `boundKey` is that key's thumbprint; an unbound one
    /// presented with a proof is bound from then on to the proof's key.
    public func refresh(
        _ refreshToken: String, boundKey: String? = nil, profile: @Sendable (User, AccountSummary?) async throws -> UserProfile
    ) async throws -> RefreshResult {
        let instant = now()
        let key = tokenKey
        let presentedHash = SessionToken.hash(refreshToken)
        let sessionID: UUID?
        if let named = key.session(namedBy: refreshToken, as: .refresh) {
            sessionID = named
        } else if let legacy = key.session(namedWithoutKindBy: refreshToken) {
            // Named before tags covered the kind, so possibly one of the session's access tokens: only its
            // current refresh token rotates; anything else is refused and ends nothing (no reuse is inferred).
            guard let current = try await store.refreshHash(sessionID: legacy), constantTimeEqual(current, presentedHash) else { return .invalid }
            sessionID = legacy
        } else {
            guard key.mayHaveIssued(refreshToken, at: instant) else { return .invalid }
            sessionID = try await store.sessionID(unnamedRefreshHash: presentedHash)
        }
        // Without a session the token is only settled (retried, reused, unknown): this pair is never handed out.
        let token = { (kind: SessionTokenKind) in
            sessionID.map { SessionToken.generate(naming: $0, as: kind, signedWith: key) } ?? SessionToken.generate(signedWith: key)
        }
        let access = token(.access)
        let next = token(.refresh)
        let pair = RetryPair(accessToken: access.secret, refreshToken: next.secret)
        let rotation = Rotation(
            presentedHash: presentedHash, sessionID: sessionID, newAccessHash: access.hash, newRefreshHash: next.hash,
            accessLifetime: lifetimes.access, idleLifetime: lifetimes.idle, graceWindow: lifetimes.grace,
            retryBox: try RetryPair.seal(pair, with: refreshToken), now: instant, accessTokenNamed: sessionID != nil, boundKey: boundKey)
        let outcome = try await ChatterMetrics.database("refresh") { try await store.rotate(rotation) }
        ChatterMetrics.refresh(outcome.metricName)
        switch outcome {
        case .rotated(let s):
            return .refreshed(
                response(pair, s.sessionID, try await profile(s.user, s.account), s.accessExpiresAt, s.absoluteExpiresAt, instant, s.boundKey))
        case .retry(let id, let user, let box, let accessExpiresAt, let absolute, let bound):
            guard let replay = RetryPair.open(box, with: refreshToken) else { return .invalid }
            return .refreshed(response(replay, id, try await profile(user, nil), accessExpiresAt, absolute, instant, bound))
        case .reused(_, let userID):
            return .reused(userID: userID)
        case .expired, .unknown:
            return .invalid
        case .wrongKey:
            return .wrongKey
        }
    }

    private func response(
        _ pair: RetryPair, _ id: UUID, _ profile: UserProfile, _ accessExpiresAt: Date, _ absolute: Date, _ instant: Date, _ boundKey: String?
    ) -> SessionResponse {
        SessionResponse(
            accessToken: pair.accessToken, refreshToken: pair.refreshToken, tokenType: Self.tokenType(boundKey: boundKey),
            expiresIn: max(0, Int(accessExpiresAt.timeIntervalSince(instant))),
            refreshExpiresIn: max(0, Int(absolute.timeIntervalSince(instant))), sessionID: id.text, user: profile)
    }
}

/// A rotation's answer, sealed with AES-GCM under a key derived from the presented refresh token.
package struct RetryPair: Equatable {
    package var accessToken: String
    package var refreshToken: String

    /// The token holds 192 random bits (it is a `SessionToken`), so one hash with a label derives a key as
    /// well as HKDF would, for a fifth of the work on every refresh.
    package static func key(for token: String) -> SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: Array("chatterd refresh retry\n".utf8) + Array(token.utf8)))
    }

    /// The two tokens, newline-separated: neither can contain one (base64url).
    package static func seal(_ pair: RetryPair, with token: String) throws -> [UInt8] {
        let plain = Array(pair.accessToken.utf8) + [0x0A] + Array(pair.refreshToken.utf8)
        return Array(try AES.GCM.seal(plain, using: key(for: token)).combined!)
    }

    package static func open(_ box: [UInt8], with token: String) -> RetryPair? {
        // fail-closed: a retry box that does not open under this token is nil: the refresh answers invalid
        guard let sealed = try? AES.GCM.SealedBox(combined: box),
            let plain = try? AES.GCM.open(sealed, using: key(for: token))
        else { return nil }
        let parts = plain.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard parts.count == 2, let access = String(bytes: parts[0], encoding: .utf8), let refresh = String(bytes: parts[1], encoding: .utf8)
        else { return nil }
        return RetryPair(accessToken: access, refreshToken: refresh)
    }
}
