import ChatterCore
import Logging
import Synchronization

/// Notices commits made to the database file by another process — `chatterd admin` ending a user's
/// sessions or deleting an account while chatterd serves — so that this process's caches, which see only
/// its own writes, are emptied within `interval`.
///
/// Every write of this process goes through the writer connection, and `PRAGMA data_version` read on a
/// connection changes only when some other connection committed (checkpoints, which change no data,
/// leave it alone), so a change read on the writer is another process's write.
package final class ExternalWrites: Sendable {
    /// How often the writer is asked: the bound on how late another process's revocation is noticed.
    package static let interval = Duration.milliseconds(250)

    /// Bumped on each change noticed: the SQLite store's `timelineStamp()`.
    private let changes = Atomic(0)
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    package var count: Int { changes.load(ordering: .acquiring) }

    /// Starts watching; `changed` runs (before `count` moves) each time another process has committed.
    package func start(writer: SQLiteConnection, lock: AsyncMutex, logger: Logger, changed: @escaping @Sendable () -> Void) async throws {
        let initial = try await Self.dataVersion(writer, lock: lock)
        let watcher = Task { [self] in
            var last = initial
            while true {
                do { try await Task.sleep(for: Self.interval) } catch { return }  // cancelled: the store is closing
                do {
                    let version = try await Self.dataVersion(writer, lock: lock)
                    guard version != last else { continue }
                    last = version
                    changed()
                    self.changes.add(1, ordering: .releasing)
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("reading the database's data_version failed", metadata: ["error": "\(error)"])
                }
            }
        }
        task.withLock { $0 = watcher }
    }

    package func stop() async {
        guard let watcher = task.withLock({ $0 }) else { return }
        watcher.cancel()
        await watcher.value
    }

    private static func dataVersion(_ writer: SQLiteConnection, lock: AsyncMutex) async throws -> Int {
        try await lock.withLock { try await writer.query("PRAGMA data_version").first?.column("data_version")?.integer ?? 0 }
    }
}
