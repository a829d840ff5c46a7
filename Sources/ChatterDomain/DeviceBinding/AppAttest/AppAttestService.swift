import ChatterCore
import ChatterWire
import Crypto
import Foundation

/// App Attest for the apps an operator names (`--app-attest-app-id TEAMID.bundle.id`): a one-time challenge per
/// attempt, and an install's key kept once Apple's attestation of it over that challenge verifies; then the key's
/// assertions, each over a fresh challenge and the request's DPoP key, vouch for sign-ins (`vouch`).
public struct AppAttestService: Sendable {
    let challenges: any CeremonyChallengeRepository
    let keys: any AppAttestRepository
    let limits: any RateLimitRepository
    let verifier: AppAttestVerifier
    /// The apps whose attestations are accepted; none turns App Attest off.
    public let appIDs: [String]
    /// Whether keys of the development environment (Xcode builds) are accepted as well as production ones.
    public let allowsDevelopment: Bool
    let now: @Sendable () -> Date

    /// A challenge is good for 5 minutes: an attestation asks Apple's servers, which may be slow.
    public static let challengeLifetime: Double = 300
    /// Challenges one client network may ask for per `window`, a wider network ten times that.
    public static let challengesPerNetwork = 60
    static let window: Double = 600

    public init(
        challenges: any CeremonyChallengeRepository, keys: any AppAttestRepository, limits: any RateLimitRepository, verifier: AppAttestVerifier,
        appIDs: [String], allowsDevelopment: Bool, now: @escaping @Sendable () -> Date
    ) {
        self.challenges = challenges
        self.keys = keys
        self.limits = limits
        self.verifier = verifier
        self.appIDs = appIDs
        self.allowsDevelopment = allowsDevelopment
        self.now = now
    }

    /// A new challenge, base64url, kept by its hash until one attestation uses it or it expires; counted per
    /// client network before anything is stored.
    package func challenge(client: ClientInfo) async throws -> String {
        guard !appIDs.isEmpty else { throw AppAttestError.disabled }
        for (index, network) in client.limitKeys.enumerated() {
            let limit = ClientNetwork.limit(Self.challengesPerNetwork, widenedFor: index)
            guard try await limits.hit(RateLimitKeys.appAttestChallenges(network), window: Self.window, at: now()) <= limit else {
                throw LimitReached.counted(.appAttest, retryAfter: Int(Self.window))
            }
        }
        let challenge = Base64URL.encode(SecureRandom.bytes(32))
        try await challenges.storePasskeyChallenge(
            PasskeyChallenge(
                hash: Self.hash(challenge), purpose: .appAttest, userVerification: .discouraged, expiresAt: now().addingTimeInterval(Self.challengeLifetime)))
        return challenge
    }

    /// Verifies Apple's attestation of `keyID` over `challenge` (its client data: the challenge's UTF-8 text) and
    /// keeps the key at counter 0. The challenge is spent first, whatever the attestation: one attempt per challenge.
    package func register(keyID text: String, attestation: String, challenge: String) async throws -> AppAttestKeyRecord {
        guard !appIDs.isEmpty else { throw AppAttestError.disabled }
        try await take(challenge)
        guard let keyID = Base64URL.decodeAnySpelling(text), keyID.count == 32 else {
            throw AppAttestError.rejected(.keyID, "the key ID is not base64 of 32 bytes")
        }
        guard attestation.utf8.count <= AppAttestVerifier.maximumBytes * 4 / 3 + 4, let object = Base64URL.decodeAnySpelling(attestation) else {
            throw AppAttestError.rejected(.format, "the attestation is not base64 of at most \(AppAttestVerifier.maximumBytes) bytes")
        }
        // The app and environment the object names, so the report's checks are against one of the operator's apps.
        // fail-closed: an object that does not parse names nothing; the report below refuses it as its format
        let named = try? AppAttestVerifier.attestation(object).authData
        let appID = appIDs.first { AppAttestVerifier.rpIDHash($0) == named?.rpIDHash } ?? appIDs[0]
        let environment: AppAttestEnvironment = named?.aaguid == AppAttestEnvironment.development.aaguid ? .development : .production
        let report = await verifier.inspectAttestation(
            object, keyID: keyID, clientDataHash: AppAttestVerifier.clientDataHash(Array(challenge.utf8)), appID: appID, environment: environment)
        if let failure = report.firstFailure { throw AppAttestError.rejected(failure.check, failure.detail) }
        guard let attested = report.verified else { throw AppAttestError.rejected(.format, "nothing was verified") }
        guard environment == .production || allowsDevelopment else {
            throw AppAttestError.rejected(.environment, "development keys are not accepted here (--app-attest-development)")
        }
        let record = AppAttestKeyRecord(
            keyID: keyID, appID: appID, publicKey: attested.publicKey, environment: environment.rawValue, createdAt: now())
        guard try await keys.storeAppAttestKey(record) else { throw AppAttestError.attested }
        return record
    }

    /// The attested install an `App-Attest-Assertion` header speaks for: `<key ID>.<challenge>.<assertion>`, each
    /// base64url, the assertion by the key over the client data `<challenge>.<thumbprint>` (the request's DPoP key's
    /// JWK thumbprint, empty without a proof), so it vouches for that key and no other. The challenge is spent
    /// first; the key's counter is raised in one statement, so of two requests with one assertion, one passes.
    package func vouch(_ header: String, thumbprint: String?) async throws -> AttestedInstall {
        guard !appIDs.isEmpty else { throw AppAttestError.disabled }
        let parts = header.split(separator: ".", omittingEmptySubsequences: false)
        guard header.utf8.count <= Self.maximumAssertionHeader, parts.count == 3 else {
            throw AppAttestError.rejected(
                .format, "the assertion header is not <key ID>.<challenge>.<assertion> in at most \(Self.maximumAssertionHeader) bytes")
        }
        let challenge = String(parts[1])
        // What can be refused without the database is, before a challenge is taken.
        guard let keyID = Base64URL.decodeAnySpelling(String(parts[0])), keyID.count == 32,
            let assertion = Base64URL.decodeAnySpelling(String(parts[2]))
        else { throw AppAttestError.rejected(.format, "the key ID or the assertion is not base64url") }
        try await take(challenge)
        guard let key = try await keys.appAttestKey(id: keyID), appIDs.contains(key.appID),
            key.environment == AppAttestEnvironment.production.rawValue || allowsDevelopment
        else { throw AppAttestError.rejected(.keyID, "no attested key of this server's apps has this key ID") }
        let clientData = Array(AppAttestAssertion.clientData(challenge: challenge, thumbprint: thumbprint).utf8)
        let report = verifier.inspectAssertion(
            assertion, clientDataHash: AppAttestVerifier.clientDataHash(clientData), publicKey: key.publicKey, appID: key.appID,
            previousCounter: key.counter)
        if let failure = report.firstFailure { throw AppAttestError.rejected(failure.check, failure.detail) }
        guard let counter = report.verified else { throw AppAttestError.rejected(.format, "nothing was verified") }
        guard try await keys.advanceAppAttestCounter(keyID: keyID, to: counter, at: now()) else {
            throw AppAttestError.rejected(.counter, "an assertion with this counter or a later one was used before")
        }
        return AttestedInstall(keyID: keyID, appID: key.appID)
    }

    /// Key ID (44 characters), challenge (43), an assertion of about 200 bytes (in base64url ~270): 1 KB is ample.
    static let maximumAssertionHeader = 1024

    /// Spends `challenge`, one of this service's: an attestation and an assertion each use one, once.
    private func take(_ challenge: String) async throws {
        guard challenge.utf8.count <= 64, let taken = try await challenges.takePasskeyChallenge(hash: Self.hash(challenge), at: now()),
            taken.purpose == .appAttest
        else { throw AppAttestError.challenge }
    }

    static func hash(_ challenge: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(challenge.utf8)))
    }
}
