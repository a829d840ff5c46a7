import ChatterCore
import Foundation
import JWTKit
import Logging

/// A provider's signing keys, cached per `Cache-Control: max-age`.
///
/// Rules: a fetch happens when the cache is empty or expired, or when a token names a `kid`
/// the cache does not know (key rotation) — but never more than once per `minimumRefetchInterval`, so a
/// flood of tokens with made-up `kid`s cannot turn chatterd into a traffic amplifier. When a fetch
/// fails, the last good keys stay in use. Concurrent callers share one in-flight fetch.
public actor JWKSCache {
    /// An immutable snapshot of one fetched key set.
    package struct KeySet: Sendable {
        package var kids: Set<String>
        package var keys: JWTKeyCollection
    }

    package enum Lookup: Sendable {
        case found(KeySet)
        case unknownKid(known: Set<String>)
        case unavailable(String)
    }

    package nonisolated let source: any JWKSSource
    package let algorithms: Set<String>
    package let now: @Sendable () -> Date
    package let minimumRefetchInterval: Double
    package let defaultMaxAge: Double
    package let logger: Logger

    private var current: KeySet?
    private var expiresAt = Date.distantPast
    private var lastAttempt: Date?
    private var lastError: String?
    private var inFlight: Task<Void, Never>?
    public private(set) var fetchCount = 0

    public init(
        source: any JWKSSource,
        algorithms: Set<String>,
        minimumRefetchInterval: Double = 60,
        defaultMaxAge: Double = 300,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger = Logger(label: "chatterd.jwks")
    ) {
        self.source = source
        self.algorithms = algorithms
        self.minimumRefetchInterval = minimumRefetchInterval
        self.defaultMaxAge = defaultMaxAge
        self.now = now
        self.logger = logger
    }

    package func keys(for kid: String) async -> Lookup {
        if current == nil || now() >= expiresAt {
            await refreshIfAllowed()
        }
        if let current, current.kids.contains(kid) {
            return .found(current)
        }
        // An unknown kid may mean the provider rotated its keys since the last fetch.
        await refreshIfAllowed()
        if let current {
            return current.kids.contains(kid) ? .found(current) : .unknownKid(known: current.kids)
        }
        return .unavailable(lastError ?? "no keys fetched yet")
    }

    /// Whether tokens can be verified now: keys are held (the last good ones count while a fetch fails), fetching
    /// them first if none are and the refetch interval allows. For `/ready`.
    public func hasKeys() async -> Bool {
        if current == nil || now() >= expiresAt { await refreshIfAllowed() }
        return current != nil
    }

    private func refreshIfAllowed() async {
        if let inFlight {
            await inFlight.value
            return
        }
        if let lastAttempt, now().timeIntervalSince(lastAttempt) < minimumRefetchInterval {
            return
        }
        lastAttempt = now()
        let task = Task { await self.fetch() }
        inFlight = task
        await task.value
        inFlight = nil
    }

    private func fetch() async {
        fetchCount += 1
        do {
            let (json, maxAge) = try await source.fetch()
            let set = try await Self.keySet(from: json, algorithms: algorithms)
            let lifetime = max(maxAge ?? defaultMaxAge, minimumRefetchInterval)
            current = set
            expiresAt = now().addingTimeInterval(lifetime)
            lastError = nil
            ChatterMetrics.keysFetched(provider: source.description, ok: true)
            logger.debug("fetched JWKS", metadata: ["source": "\(source.description)", "keys": "\(set.kids.count)"])
        } catch {
            lastError = "fetching keys from \(source.description) failed: \(error)"
            ChatterMetrics.keysFetched(provider: source.description, ok: false)
            logger.warning(
                "JWKS fetch failed; keeping the last good keys",
                metadata: [
                    "source": "\(source.description)", "error": "\(error)",
                ])
        }
    }

    /// Keeps only public signature keys the provider's allow-list can use; a malformed key is skipped, not
    /// fatal. A key carrying private parts is never one a provider publishes, and building one from
    /// hostile numbers (an even modulus) traps inside swift-crypto, so it is skipped before it is read.
    package static func keySet(from json: [UInt8], algorithms: Set<String>) async throws -> KeySet {
        let jwks = try JSONDecoder().decode(JWKS.self, from: Data(json))
        let collection = JWTKeyCollection()
        var kids = Set<String>()
        for jwk in jwks.keys {
            guard let kid = jwk.keyIdentifier?.string, jwk.keyType == .rsa,
                jwk.privateExponent == nil, jwk.prime1 == nil, jwk.prime2 == nil
            else { continue }
            if let alg = jwk.algorithm?.rawValue, !algorithms.contains(alg) { continue }
            do {
                try await collection.add(jwk: jwk)
                kids.insert(kid)
            } catch {
                continue
            }
        }
        guard !kids.isEmpty else { throw JWKSFetchError(reason: "the key set has no usable RSA signing keys") }
        return KeySet(kids: kids, keys: collection)
    }
}
