/// Coalesces concurrent calls by key: lookups (or rotations) that arrive while a fetch is running are
/// answered together by the next one, so N simultaneous requests cost one database round trip (one
/// thread hop, one statement to prepare, one commit) instead of N. A failed fetch fails its whole batch. A lookup arriving when a fetcher is free starts one at once, so a
/// quiet server adds no delay.
package actor BatchingLookup<Key: Hashable & Sendable, Value: Sendable> {
    private var pending: [(Key, CheckedContinuation<Value?, any Error>)] = []
    private var fetchers = 0
    private let maximumBatch: Int
    private let maximumFetchers: Int
    private let fetch: @Sendable ([Key]) async throws -> [Key: Value]

    /// `maximumFetchers`: fetches that may run at once (one per database connection that can serve them).
    package init(maximumBatch: Int, maximumFetchers: Int, fetch: @escaping @Sendable ([Key]) async throws -> [Key: Value]) {
        self.maximumBatch = maximumBatch
        self.maximumFetchers = maximumFetchers
        self.fetch = fetch
    }

    package func value(for key: Key) async throws -> Value? {
        try await withCheckedThrowingContinuation { continuation in
            pending.append((key, continuation))
            if fetchers < maximumFetchers {
                fetchers += 1
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = Array(pending.prefix(maximumBatch))
            pending.removeFirst(batch.count)
            do {
                let found = try await fetch(Array(Set(batch.map(\.0))))
                for (key, continuation) in batch { continuation.resume(returning: found[key]) }
            } catch {
                for (_, continuation) in batch { continuation.resume(throwing: error) }
            }
        }
        fetchers -= 1
    }
}
