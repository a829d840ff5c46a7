import Foundation

/// Apple's App Attest (`DCAppAttestService`) as ChatterKit uses it: `SystemAppAttest` on Apple's platforms, a
/// simulated device in tests. Failures are thrown as `AppAttestProblem`.
public protocol AppAttestProvider: Sendable {
    /// Whether this device can attest keys at all (not in the Simulator, nor on devices without a Secure Enclave).
    var isSupported: Bool { get }
    /// A new key in the Secure Enclave, by its identifier.
    func generateKey() async throws -> String
    /// Apple's attestation of the key over `clientDataHash`.
    func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data
    /// An assertion by the key over `clientDataHash`.
    func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data
}

/// What an App Attest call's failure means, as Apple's `DCError` documents it.
public enum AppAttestProblem: Error, Sendable, Equatable {
    /// The device cannot attest (the Simulator, an older device): go on without.
    case featureUnsupported
    /// Apple's servers could not be reached: try again later, with the same key.
    case serverUnavailable
    /// The key cannot be used (it was lost with a restore, or is not this app's): make another.
    case invalidKey
    /// Anything else, with what the system said.
    case failed(String)
}

/// Where this install's attestation stands after `AppAttestation.attest()`.
public enum AppAttestState: Sendable, Equatable {
    /// The install's key is attested and kept by chatterd.
    case attested(keyID: String)
    /// This device, or this server, does not do App Attest: go on without it.
    case unsupported
    /// Not now (Apple's servers, the network, locked storage): the same key is tried again at the next call.
    case retryLater
    /// chatterd refused the attestation, with its message; trying again will not help.
    case refused(String)
}

/// Attests this install's App Attest key once: a challenge from chatterd, Apple's attestation over it, and chatterd
/// keeping the key. The key's identifier and whether it is attested are kept in the store (`StoreKey.appAttestKey`),
/// so later launches ask nothing; a key whose attestation could not finish is tried again with the same key, as
/// Apple asks.
public struct AppAttestation: Sendable {
    let api: ChatterAPI
    let store: any SecretStore
    let provider: any AppAttestProvider

    /// Attestation of `provider`'s key for the chatterd `api` talks to, remembered in `store`.
    public init(api: ChatterAPI, store: any SecretStore, provider: any AppAttestProvider) {
        self.api = api
        self.store = store
        self.provider = provider
    }

    struct Stored: Codable, Equatable {
        var keyID: String
        /// chatterd kept the key.
        var attested: Bool
        /// Apple attested the key: it cannot be attested again (`attestKey` answers `invalidKey`), so if chatterd did
        /// not keep it, the next try makes a new key.
        var spent: Bool?
    }

    /// Attests the install's key unless it was before. Never throws: every outcome is a state the app can go on from.
    public func attest() async -> AppAttestState {
        guard provider.isSupported else { return .unsupported }
        let stored: Stored?
        do {
            stored = try await store.read(StoreKey.appAttestKey).flatMap { try? JSONDecoder().decode(Stored.self, from: $0) }
        } catch {
            return .retryLater
        }
        if let stored, stored.attested { return .attested(keyID: stored.keyID) }
        do {
            let keyID: String
            if let stored, stored.spent != true {
                // Apple could not attest it last time (`serverUnavailable`): the same key, as Apple asks.
                keyID = stored.keyID
            } else {
                keyID = try await provider.generateKey()
                // Kept before it is attested: an attestation Apple could not finish is tried again with this key.
                try await keep(Stored(keyID: keyID, attested: false))
            }
            let challenge: AppAttestChallengeResponse = try await api.send("POST", NativePath.appAttestChallenge)
            let attestation = try await provider.attestKey(keyID, clientDataHash: Data(SHA256Digest.hash(Array(challenge.challenge.utf8))))
            try await keep(Stored(keyID: keyID, attested: false, spent: true))
            let _: AppAttestKeyResponse = try await api.send(
                "POST", NativePath.appAttestKeys,
                body: AppAttestKeyRequest(keyId: keyID, attestation: attestation.base64EncodedString(), challenge: challenge.challenge))
            try await keep(Stored(keyID: keyID, attested: true))
            return .attested(keyID: keyID)
        } catch let problem as AppAttestProblem {
            switch problem {
            case .featureUnsupported: return .unsupported
            case .invalidKey:
                try? await store.delete(StoreKey.appAttestKey)
                return .retryLater
            case .serverUnavailable, .failed: return .retryLater
            }
        } catch ChatterError.server(404, _) {
            return .unsupported
        } catch ChatterError.server(let status, let body) where body?.code == .invalidAppAttest && body?.check != "challenge" {
            return .refused(body?.message ?? "chatterd refused the attestation (\(status))")
        } catch {
            // The network, storage, an expired challenge (the app was suspended), a limit: later, with a new key if
            // Apple attested this one.
            return .retryLater
        }
    }

    /// The `App-Attest-Assertion` header vouching for a sign-in whose DPoP key has `thumbprint`: an assertion by the
    /// attested key `keyID` over a new challenge and the thumbprint. nil when any step fails (the sign-in goes on
    /// without), except a challenge refused for the network's limit, thrown as `ChatterError.rateLimited`.
    func assertion(keyID: String, thumbprint: String?) async throws -> String? {
        do {
            let challenge: AppAttestChallengeResponse = try await api.send("POST", NativePath.appAttestChallenge)
            let covered = AppAttestAssertion.clientData(challenge: challenge.challenge, thumbprint: thumbprint)
            let assertion = try await provider.generateAssertion(keyID, clientDataHash: Data(SHA256Digest.hash(Array(covered.utf8))))
            guard let id = Data(base64Encoded: keyID) else { return nil }
            return "\(id.base64URL).\(challenge.challenge).\(assertion.base64URL)"
        } catch AppAttestProblem.invalidKey {
            // The key is gone (a restore to another device): the next sign-in attests a new one.
            await forget()
            return nil
        } catch let limited as ChatterError {
            if case .rateLimited = limited { throw limited }
            return nil
        } catch {
            return nil
        }
    }

    /// Forgets the install's key, so the next `attest()` makes and attests a new one.
    func forget() async {
        try? await store.delete(StoreKey.appAttestKey)
    }

    private func keep(_ stored: Stored) async throws {
        try await store.write(try JSONEncoder().encode(stored), for: StoreKey.appAttestKey)
    }
}
