import Foundation

/// Makes the `DPoP` proof each native request carries (RFC 9449 §4.2) with this install's key, and keeps the
/// server's latest nonce (§8). The key is made at its first use and kept in `store` under `StoreKey.dpopKey`; with a
/// `coordinator`, made in its turn, so an app and its extensions sharing the store never make two.
/// `ChatterClient(api:store:coordinator:deviceKeys:)` sets one up; `ChatterAPI` calls it.
public final class DPoPProofs: Sendable {
    let store: any SecretStore
    let coordinator: (any SessionCoordinator)?
    let keys: any DPoPKeyFactory
    /// The proofs' `iat`; chatterd accepts 2 minutes behind its clock and 1 ahead.
    let now: @Sendable () -> Date
    private let state = Locked(State())

    private struct State {
        var loading: Task<LoadedKey, any Error>?
        var nonce: String?
    }

    /// A key with its public half in the form proofs name it.
    struct LoadedKey: Sendable {
        let key: any DPoPKey
        /// The JWK's members, base64url (RFC 7518 §6.2.1).
        let x: String
        let y: String
    }

    /// `ErrorBody.check` when chatterd refused a token of a session bound to another key.
    static let sessionKeyCheck = "session_key"

    /// Proofs by the key `keys` makes (or restores from `store`), dated by `now`.
    public init(store: any SecretStore, coordinator: (any SessionCoordinator)? = nil, keys: any DPoPKeyFactory, now: @escaping @Sendable () -> Date = Date.init)
    {
        self.store = store
        self.coordinator = coordinator
        self.keys = keys
        self.now = now
    }

    /// The proof for `method` on `url` (query and fragment left out, as `htu` is compared without them), with
    /// `ath` when `accessToken` goes with it, and the server's nonce once it has given one.
    public func proof(_ method: String, _ url: URL, accessToken: String?) async throws -> String {
        let loaded = try await key()
        var target = URLComponents(url: url, resolvingAgainstBaseURL: false)
        target?.query = nil
        target?.fragment = nil
        let claims = Claims(
            jti: Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64URL, htm: method, htu: target?.string ?? url.absoluteString,
            iat: Int(now().timeIntervalSince1970), ath: accessToken.map { Data(SHA256Digest.hash(Array($0.utf8))).base64URL },
            nonce: state.withLock { $0.nonce })
        let header = Header(jwk: JWK(x: loaded.x, y: loaded.y))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = try encoder.encode(header).base64URL + "." + encoder.encode(claims).base64URL
        let signature: Data
        do {
            signature = try loaded.key.signature(for: Data(input.utf8))
        } catch {
            throw Self.unusable("the device key cannot sign: \(error)")
        }
        guard signature.count == 64 else { throw Self.unusable("the device key's signature is not r ‖ s (\(signature.count) bytes)") }
        return input + "." + signature.base64URL
    }

    /// Keeps the `DPoP-Nonce` an answer carried, for the next proofs.
    func remember(_ headers: [String: String]) {
        guard let nonce = headers.first(where: { $0.key.lowercased() == "dpop-nonce" })?.value, !nonce.isEmpty else { return }
        state.withLock { $0.nonce = nonce }
    }

    /// This install's key: loaded (or made) once per process, however many requests ask at once.
    func key() async throws -> LoadedKey {
        let task = state.withLock { state in
            if let loading = state.loading { return loading }
            let task = Task { try await self.loadInTurn() }
            state.loading = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // Storage may be locked now and readable later: the next request tries again.
            state.withLock { if $0.loading == task { $0.loading = nil } }
            throw error
        }
    }

    private func loadInTurn() async throws -> LoadedKey {
        guard let coordinator else { return try await loadOrMake() }
        do {
            return try await coordinator.exclusively { try await self.loadOrMake() }
        } catch let failure as SessionLockUnavailable {
            throw ChatterError.storage(.unavailable(failure.description))
        }
    }

    /// The stored key, or a new one stored before it is used: a key that signed a proof but was never stored would
    /// bind a session no later launch can use.
    private func loadOrMake() async throws -> LoadedKey {
        let stored: Data?
        do { stored = try await store.read(StoreKey.dpopKey) } catch { throw ChatterError.storage(error) }
        if let stored, let key = try? keys.restore(stored), let loaded = Self.loaded(key) { return loaded }
        let made: (key: any DPoPKey, stored: Data)
        do { made = try keys.make() } catch { throw Self.unusable("cannot make a device key: \(error)") }
        guard let loaded = Self.loaded(made.key) else { throw Self.unusable("the device key's public key is not an uncompressed P-256 point") }
        do { try await store.write(made.stored, for: StoreKey.dpopKey) } catch { throw ChatterError.storage(error) }
        return loaded
    }

    /// The key lives in secure storage (the Secure Enclave, the keychain): its failure is storage's, and never a
    /// reason to sign out.
    static func unusable(_ text: String) -> ChatterError { .storage(.failed(text)) }

    static func loaded(_ key: any DPoPKey) -> LoadedKey? {
        let point = key.publicKey
        guard point.count == 65, point.first == 0x04 else { return nil }
        return LoadedKey(key: key, x: point.dropFirst().prefix(32).base64URL, y: point.suffix(32).base64URL)
    }

    /// RFC 7638's thumbprint of this install's key, as chatterd binds sessions to it (and lists them).
    public func thumbprint() async throws -> String {
        let key = try await key()
        let members = #"{"crv":"P-256","kty":"EC","x":"\#(key.x)","y":"\#(key.y)"}"#
        return Data(SHA256Digest.hash(Array(members.utf8))).base64URL
    }

    private struct Header: Encodable {
        var typ = "dpop+jwt"
        var alg = "ES256"
        let jwk: JWK
    }

    private struct JWK: Encodable {
        var kty = "EC"
        var crv = "P-256"
        let x: String
        let y: String
    }

    private struct Claims: Encodable {
        let jti: String
        let htm: String
        let htu: String
        let iat: Int
        let ath: String?
        let nonce: String?
    }
}
