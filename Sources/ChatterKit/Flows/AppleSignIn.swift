import Foundation
import Observation

/// Apple's name and email from a first sign-in. Apple sends them once; this record keeps them in secure
/// storage until chatterd confirms the registration, so a failed request does not lose them.
public struct PendingAppleRegistration: Codable, Sendable, Equatable {
    /// Apple's identity token, a JWT, as text.
    public var identityToken: String
    /// The raw nonce whose hash the token carries.
    public var rawNonce: String
    /// The name Apple gave on the first sign-in; `nil` when it gave none.
    public var name: NameParts?
    /// The email Apple gave on the first sign-in (possibly a private relay address); `nil` when it gave none.
    public var email: String?
    /// When the record was kept; nil in records kept before it existed, which count as old.
    public var keptAt: Date?
    /// The credential's authorization code (single use, five minutes), sent again with the token while it is good.
    public var authorizationCode: String?
    /// The credential's user identifier.
    public var user: String?

    /// How long Apple's name and email are kept for a sign-in that has not reached chatterd: long enough for a
    /// phone to be back online, not forever.
    public static let keptFor: TimeInterval = 7 * 24 * 3600

    /// When the identity token ends (its `exp` claim, read without checking the signature: chatterd checks
    /// it); nil when the token has none or cannot be read. A token past it is never sent: the answer would be 401.
    public var tokenExpiresAt: Date? {
        (claims["exp"] as? Double).map { Date(timeIntervalSince1970: $0) }
    }

    /// The Apple ID the token is for (its `sub` claim, unverified): a kept name goes only with tokens of the same.
    public var subject: String? { claims["sub"] as? String }

    private var claims: [String: Any] {
        let parts = identityToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Data(base64URL: String(parts[1])),
            let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { return [:] }
        return claims
    }
}

/// Sign in with Apple (F4) around the system sheet, which the app presents.
@MainActor @Observable
public final class AppleSignInFlow {
    /// The token is on its way to chatterd; the button is disabled.
    public private(set) var isLoading = false
    /// The last failure, for a banner; `nil` after a cancel, and again when a request starts.
    public private(set) var errorMessage: String?
    /// The session chatterd issued; `nil` until the sign-in succeeds.
    public private(set) var signedIn: AuthSession?
    /// Apple's details are waiting for the server to confirm them.
    public private(set) var hasPendingRegistration = false
    /// Apple vouched for an account with a second factor: show this step for its code; nil again when it ends.
    public private(set) var secondStep: SecondStepForm?

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored private var nonce: Nonce?
    /// Identity tokens this flow has sent: a kept registration is retried once per token, not on every appearance.
    @ObservationIgnored private var tried: Set<String> = []

    /// A flow signing in to `client`, whose secure storage keeps Apple's details until chatterd has them.
    public init(client: ChatterClient) {
        self.client = client
    }

    var store: any SecretStore { client.sessions.store }

    /// A new nonce for the next request: set `request.nonce = nonce.hashed`.
    public func startRequest() -> Nonce {
        let fresh = Nonce.generate()
        nonce = fresh
        return fresh
    }

    /// Apple's sheet finished: sends the token (with the details Apple gave, or kept from earlier).
    /// `authorizationCode` and `user` are the credential's: chatterd exchanges the code for the token it revokes
    /// when the account is deleted, and the user is what the launch check asks Apple about.
    @discardableResult
    public func complete(
        identityToken: String, name: NameParts?, email: String?, authorizationCode: String? = nil, user: String? = nil
    ) async -> Bool {
        guard let nonce else {
            errorMessage = "Start the request first."
            return false
        }
        self.nonce = nil
        var record = PendingAppleRegistration(
            identityToken: identityToken, rawNonce: nonce.raw, name: name, email: email, keptAt: now(), authorizationCode: authorizationCode,
            user: user)
        // Apple gives the name only once: if an earlier attempt of the same Apple ID kept it, this attempt carries
        // it (and keeps its date: retrying does not make it last longer). Another Apple ID's is not its own.
        if let kept = await pending(), kept.subject != nil, kept.subject == record.subject {
            record.name = record.name ?? kept.name
            record.email = record.email ?? kept.email
            record.keptAt = kept.keptAt ?? record.keptAt
        }
        if record.name != nil || record.email != nil { await keep(record) }
        return await send(record)
    }

    /// When the view appears: sends a registration that did not reach chatterd last time, while its identity
    /// token is still good (Apple's last minutes). After that the name and email stay kept, without a banner, for
    /// the next tap of the button to carry.
    @discardableResult
    public func retryPendingRegistration() async -> Bool {
        guard secondStep == nil, signedIn == nil, let record = await pending(), !tried.contains(record.identityToken) else { return false }
        guard let end = record.tokenExpiresAt, end.timeIntervalSince(now()) > 5 else { return false }
        return await send(record)
    }

    private func now() -> Date { client.sessions.now() }

    func fail(message: String?) {
        nonce = nil
        errorMessage = message
    }

    private func send(_ record: PendingAppleRegistration) async -> Bool {
        isLoading = true
        errorMessage = nil
        secondStep = nil
        tried.insert(record.identityToken)
        defer { isLoading = false }
        do {
            let session = try await client.signInWithApple(
                AppleSignInRequest(
                    identityToken: record.identityToken, rawNonce: record.rawNonce, name: record.name, email: record.email,
                    authorizationCode: record.authorizationCode, user: record.user))
            await signedIn(session, with: record)
            return true
        } catch let error as ChatterError where error.secondFactorChallenge != nil {
            // An account with a second factor existed before this sign-in, so Apple's once-only name has nothing to
            // name: the kept record goes, and the code comes next. The Apple record waits for the session.
            try? await store.delete(StoreKey.pendingAppleRegistration)
            hasPendingRegistration = false
            secondStep = error.secondFactorChallenge.map { challenge in
                let step = SecondStepForm(client: client, challenge: challenge)
                step.onFinish = { [weak self, weak step] session in
                    guard let self, let step, step === self.secondStep else { return }
                    self.secondStep = nil
                    guard let session else { return }
                    self.signedIn = session
                    Task { await self.signedIn(session, with: record) }
                }
                return step
            }
            return false
        } catch {
            // No answer: the next appearance tries again. An answer (a refusal) is not asked for twice.
            if case ChatterError.network = error { tried.remove(record.identityToken) }
            errorMessage = ChatterError.banner(for: error)
            return false
        }
    }

    /// A session from this Apple ID, however it completed (at once or through the second step): the launch check's
    /// record names it, and the kept registration is done.
    private func signedIn(_ session: AuthSession, with record: PendingAppleRegistration) async {
        signedIn = session
        // The credential's user is the token's `sub`; an app that passes no user is checked by the token's.
        if let user = record.user ?? record.subject, let sessionID = session.sessionID,
            let data = try? JSONEncoder().encode(AppleSignInRecord(user: user, sessionID: sessionID))
        {
            try? await store.write(data, for: StoreKey.appleSignIn)
        }
        try? await store.delete(StoreKey.pendingAppleRegistration)
        hasPendingRegistration = await pending() != nil
    }

    /// The kept record; one kept longer than `PendingAppleRegistration.keptFor` is deleted instead.
    func pending() async -> PendingAppleRegistration? {
        let data = try? await store.read(StoreKey.pendingAppleRegistration)
        var record = data.flatMap { try? JSONDecoder().decode(PendingAppleRegistration.self, from: $0) }
        // A record kept before `keptAt` existed counts from now: it holds a name Apple will not send again.
        if let kept = record, now().timeIntervalSince(kept.keptAt ?? now()) > PendingAppleRegistration.keptFor {
            try? await store.delete(StoreKey.pendingAppleRegistration)
            record = nil
        }
        hasPendingRegistration = record != nil
        return record
    }

    private func keep(_ record: PendingAppleRegistration) async {
        guard let data = try? JSONEncoder().encode(record) else { return }
        try? await store.write(data, for: StoreKey.pendingAppleRegistration)
        hasPendingRegistration = true
    }
}
