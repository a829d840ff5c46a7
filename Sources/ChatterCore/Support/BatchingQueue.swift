/// Coalesces concurrent writes: callers wait while one flush writes everything queued so far in a single
/// statement, so N simultaneous inserts cost one database round trip instead of N. Each caller returns
/// only after its item is committed.
///
/// When a batch fails, each of its items is written again on its own, so one bad item (a row whose user
/// was deleted meanwhile) fails only its own caller.
package actor BatchingQueue<Item: Sendable> {
    private var pending: [(Item, CheckedContinuation<Void, any Error>)] = []
    private var flushing = false
    private let maximumBatch: Int
    private let write: @Sendable ([Item]) async throws -> Void

    package init(maximumBatch: Int, write: @escaping @Sendable ([Item]) async throws -> Void) {
        self.maximumBatch = maximumBatch
        self.write = write
    }

    package func submit(_ item: Item) async throws {
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
            } catch  where batch.count > 1 {
                for (item, continuation) in batch {
                    do {
                        try await write([item])
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            } catch {
                batch[0].1.resume(throwing: error)
            }
        }
        flushing = false
    }
}
