import Foundation
import Metrics
import Synchronization

/// chatterd's own measurements, each named here once. They go through swift-metrics' global system, which
/// `chatterd serve` bootstraps with a Prometheus registry (`/metrics`). Every label value comes from a
/// closed set, never from a client's input, so a client cannot make the registry grow.
///
/// Making a metric asks the registry (validating its name, under its lock), so each is made once and kept
/// — but only once the system is bootstrapped: one kept from before would stay a no-op (a test process
/// bootstraps when its first metrics test starts).
package enum ChatterMetrics {
    /// A sign-in finished: `method` (google, apple, email, password) and `outcome` (`ok`, or the failed
    /// check of a refused token such as `signature` or `audience`, `invalid code`, `refused`).
    package static func signIn(method: String, outcome: String) {
        counter("chatterd_sign_ins_total", [("method", method), ("outcome", outcome)]).increment()
    }

    /// A refresh token was presented: `rotated`, `grace_retry` (the latest rotation replayed once),
    /// `reused` (a retired token: the family ended), `expired` or `unknown`.
    package static func refresh(_ outcome: String) {
        counter("chatterd_refreshes_total", [("outcome", outcome)]).increment()
    }

    /// A request was refused by a rate limit: `kind` names the limit.
    package static func rateLimited(_ kind: String) {
        counter("chatterd_rate_limited_total", [("kind", kind)]).increment()
    }

    /// Password hashes waiting for or using a hashing thread, and how long each waited for one.
    package static func hashingQueue(depth: Int) {
        gauge("chatterd_password_hash_queue_depth", []).record(depth)
    }

    package static func hashingWaited(since started: ContinuousClock.Instant) {
        timer("chatterd_password_hash_wait_seconds", []).recordInterval(since: started)
    }

    /// A password hash refused because the queue was full (the sign-in is told to retry).
    package static func hashingRefused() {
        counter("chatterd_password_hash_refused_total", []).increment()
    }

    /// An access-token lookup answered from the session cache (`hit`) or the database (`miss`). Every
    /// authenticated request counts one, so its keys are built once.
    package static func sessionCache(hit: Bool) {
        counter(hit ? cacheHit : cacheMiss).increment()
    }

    private static let cacheHit = Key("chatterd_session_cache_lookups_total", [("result", "hit")])
    private static let cacheMiss = Key("chatterd_session_cache_lookups_total", [("result", "miss")])

    /// A refused sign-in past its network's audit budget: counted here, not written to the audit log.
    package static func auditRefusalDropped() {
        counter("chatterd_audit_refusals_dropped_total", []).increment()
    }

    /// A connection closed because it missed a deadline: `tls_handshake`, `head`, `body` or `idle`.
    package static func connectionClosed(_ deadline: String) {
        counter("chatterd_connections_closed_total", [("deadline", deadline)]).increment()
    }

    /// Connections reached the cap; new ones wait in the kernel's queue.
    package static func connectionCapReached() {
        counter("chatterd_connection_cap_reached_total", []).increment()
    }

    /// A provider's keys were fetched (`ok`) or the fetch failed (`failed`).
    package static func keysFetched(provider: String, ok: Bool) {
        counter("chatterd_jwks_fetches_total", [("source", provider), ("result", ok ? "ok" : "failed")]).increment()
    }

    /// Time in the database for one kind of operation.
    package static func database<T>(_ operation: String, _ work: () async throws -> T) async rethrows -> T {
        let started = ContinuousClock.now
        defer { timer("chatterd_database_seconds", [("operation", operation)]).recordInterval(since: started) }
        return try await work()
    }

    // MARK: kept metrics

    package struct Key: Hashable {
        package let label: String
        package let dimensions: [(String, String)]

        package init(_ label: String, _ dimensions: [(String, String)]) {
            self.label = label
            self.dimensions = dimensions
        }

        package static func == (a: Key, b: Key) -> Bool {
            a.label == b.label && a.dimensions.elementsEqual(b.dimensions) { $0 == $1 }
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(label)
            for (name, value) in dimensions {
                hasher.combine(name)
                hasher.combine(value)
            }
        }
    }

    private static let counters = Mutex<[Key: Counter]>([:])
    private static let timers = Mutex<[Key: Metrics.Timer]>([:])
    private static let gauges = Mutex<[Key: Gauge]>([:])

    package static var bootstrapped: Bool { !(MetricsSystem.factory is NOOPMetricsHandler) }

    private static func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        counter(Key(label, dimensions))
    }

    private static func counter(_ key: Key) -> Counter {
        counters.kept(key) { Counter(label: key.label, dimensions: key.dimensions) }
    }

    private static func timer(_ label: String, _ dimensions: [(String, String)]) -> Metrics.Timer {
        timers.kept(Key(label, dimensions)) { Metrics.Timer(label: label, dimensions: dimensions, preferredDisplayUnit: .seconds) }
    }

    private static func gauge(_ label: String, _ dimensions: [(String, String)]) -> Gauge {
        gauges.kept(Key(label, dimensions)) { Gauge(label: label, dimensions: dimensions) }
    }
}

extension Mutex {
    /// The metric kept for `key`, made by `make` the first time. Made before the metrics system is
    /// bootstrapped, it is a no-op and is not kept, so the next use asks again.
    package func kept<Key: Hashable & Sendable, Metric: Sendable>(_ key: Key, make: () -> Metric) -> Metric where Value == [Key: Metric] {
        if let kept = withLock({ $0[key] }) { return kept }
        let made = make()
        if ChatterMetrics.bootstrapped { withLock { $0[key] = made } }
        return made
    }
}

extension Metrics.Timer {
    package func recordInterval(since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}

extension RotationOutcome {
    /// The outcome as `chatterd_refreshes_total` labels it.
    package var metricName: String {
        switch self {
        case .rotated: "rotated"
        case .retry: "grace_retry"
        case .reused: "reused"
        case .expired: "expired"
        case .unknown: "unknown"
        case .wrongKey: "wrong_key"
        }
    }
}
