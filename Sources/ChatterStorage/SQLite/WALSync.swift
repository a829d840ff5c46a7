import ChatterCore
import Foundation
import NIOPosix
import Synchronization

/// Makes committed transactions survive a power loss, for the writes that must never come back undone
/// (a sign-out, a revocation, a password change, an account deletion).
///
/// The store commits with `synchronous = NORMAL`: a commit is in the WAL when it returns, safe from a
/// crash of chatterd but not from a power loss until the next checkpoint syncs it. `sync()` fsyncs the
/// WAL file, which holds every commit so far (or, after a checkpoint restarted it, the database file
/// holds them and the checkpoint synced it). Callers arriving while an fsync runs share the next one, so
/// a burst of sign-outs costs a few fsyncs, never one per request, and no fsync holds the write lock.
package final class WALSync: Sendable {
    private let walPath: String
    private let queue: BatchingQueue<Void>
    private final class Count: Sendable { let value = Atomic<Int>(0) }
    private let count = Count()

    package init(databasePath: String) {
        walPath = databasePath + "-wal"
        let path = walPath
        let count = self.count
        queue = BatchingQueue(maximumBatch: .max) { _ in
            try await NIOThreadPool.singleton.runIfActive { try fsyncFile(atPath: path) }
            count.value.add(1, ordering: .relaxed)
        }
    }

    /// Returns once every commit made before the call is on disk.
    package func sync() async throws {
        try await queue.submit(())
    }

    /// fsyncs done so far (for tests: batching shows as fewer fsyncs than callers).
    package var syncs: Int { count.value.load(ordering: .relaxed) }
}
