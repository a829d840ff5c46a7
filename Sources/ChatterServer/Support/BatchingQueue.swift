/// Coalesces concurrent writes: callers wait while one flush writes everything queued so far in a single
/// statement, so N simultaneous posts cost one database round trip instead of N. Each caller returns only
/// after its item is committed.
actor BatchingQueue<Item: Sendable> {
    private var pending: [(Item, CheckedContinuation<Void, any Error>)] = []
    private var flushing = false
    private let maximumBatch: Int
    private let write: @Sendable ([Item]) async throws -> Void

    init(maximumBatch: Int, write: @escaping @Sendable ([Item]) async throws -> Void) {
        self.maximumBatch = maximumBatch
        self.write = write
    }

    func submit(_ item: Item) async throws {
        try await withCheckedThrowingContinuation { continuation in
            pending.append((item, continuation))
            if !flushing {
                flushing = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = Array(pending.prefix(maximumBatch))
            pending.removeFirst(batch.count)
            do {
                try await write(batch.map(\.0))
                for (_, continuation) in batch { continuation.resume() }
            } catch {
                for (_, continuation) in batch { continuation.resume(throwing: error) }
            }
        }
        flushing = false
    }
}
