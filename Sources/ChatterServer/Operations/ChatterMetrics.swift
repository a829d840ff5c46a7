import Foundation
import Metrics

/// chatterd's own measurements, each named here once. They go through swift-metrics' global system, which
/// `chatterd serve` bootstraps with a Prometheus registry (`/metrics`); where nothing is bootstrapped (a
/// test, a library user) they cost a no-op. Each is looked up when used rather than kept: one made before
/// the system was bootstrapped would stay a no-op. Every label value comes from a closed set, never from a
/// client's input, so a client cannot make the registry grow.
enum ChatterMetrics {
    /// A sign-in finished: `method` (google, apple, email, password) and `outcome` (`ok`, or the failed
    /// check of a refused token such as `signature` or `audience`, `invalid code`, `refused`).
    static func signIn(method: String, outcome: String) {
        Counter(label: "chatterd_sign_ins_total", dimensions: [("method", method), ("outcome", outcome)]).increment()
    }

    /// A refresh token was presented: `rotated`, `grace_retry` (the latest rotation replayed once),
    /// `reused` (a retired token: the family ended), `expired` or `unknown`.
    static func refresh(_ outcome: String) {
        Counter(label: "chatterd_refreshes_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// A request was refused by a rate limit: `kind` names the limit.
    static func rateLimited(_ kind: String) {
        Counter(label: "chatterd_rate_limited_total", dimensions: [("kind", kind)]).increment()
    }

    /// Password hashes waiting for or using a hashing thread, and how long each waited for one.
    static func hashingQueue(depth: Int) {
        Gauge(label: "chatterd_password_hash_queue_depth").record(depth)
    }

    static func hashingWaited(since started: ContinuousClock.Instant) {
        Timer(label: "chatterd_password_hash_wait_seconds", preferredDisplayUnit: .seconds).recordInterval(since: started)
    }

    /// A password hash refused because the queue was full (the sign-in is told to retry).
    static func hashingRefused() {
        Counter(label: "chatterd_password_hash_refused_total").increment()
    }

    /// An access-token lookup answered from the session cache (`hit`) or the database (`miss`).
    static func sessionCache(hit: Bool) {
        Counter(label: "chatterd_session_cache_lookups_total", dimensions: [("result", hit ? "hit" : "miss")]).increment()
    }

    /// A provider's keys were fetched (`ok`) or the fetch failed (`failed`).
    static func keysFetched(provider: String, ok: Bool) {
        Counter(label: "chatterd_jwks_fetches_total", dimensions: [("source", provider), ("result", ok ? "ok" : "failed")]).increment()
    }

    /// Time in the database for one kind of operation.
    static func database<T>(_ operation: String, _ work: () async throws -> T) async rethrows -> T {
        let started = ContinuousClock.now
        defer {
            Timer(label: "chatterd_database_seconds", dimensions: [("operation", operation)], preferredDisplayUnit: .seconds)
                .recordInterval(since: started)
        }
        return try await work()
    }
}

extension Timer {
    func recordInterval(since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}

extension RotationOutcome {
    /// The outcome as `chatterd_refreshes_total` labels it.
    var metricName: String {
        switch self {
        case .rotated: "rotated"
        case .retry: "grace_retry"
        case .reused: "reused"
        case .expired: "expired"
        case .unknown: "unknown"
        }
    }
}
