import ChatterCore
import Logging
import NIOCore
import NIOPosix

/// Copies the WAL back into the database file from a connection and thread of its own.
///
/// SQLite's automatic checkpoint runs inside whichever commit pushes the WAL past its threshold, and
/// includes an fsync: that one unlucky request waits for the disk while every other write waits for it.
/// The writer's automatic checkpoint is off; this task does the work in the background instead.
///
/// A passive checkpoint never waits, but while writes keep coming it never catches up with the end of
/// the WAL, so the WAL never starts over and grows without end (1.8 GB in 90 s of the soak). So once
/// the WAL holds `restartFrames`, the checkpointer takes chatterd's own write lock — no commit can then
/// run, and SQLite's busy-wait, whose sleeps stalled writes by up to 100 ms, is never reached — and
/// finishes with a RESTART checkpoint, after which the next commit writes the WAL from its start. Before
/// taking the lock, passive checkpoints run again until fewer than `lockedFrames` are left to copy, so
/// what the lock covers is a few frames and two short fsyncs, not the frames written while a 64 MiB
/// checkpoint ran (copying those under the lock held every write for 12–40 ms once a second under
/// bench/run's postauth load).
package final class SQLiteCheckpointer: Sendable {
    package struct Progress: Sendable, Equatable {
        /// Frames in the WAL, and how many of them are now in the database file.
        package var walFrames: Int
        package var checkpointed: Int
    }

    private let connection: SQLiteConnection
    private let pool: NIOThreadPool
    private let writeLock: AsyncMutex
    private let task: Task<Void, Never>
    /// WAL frames (4 KiB pages) past which the WAL is made to start over.
    package let restartFrames: Int

    package static func start(
        path: String, every interval: Duration, restartFrames: Int, writeLock: AsyncMutex, logger: Logger
    ) async throws -> SQLiteCheckpointer {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        do {
            let connection = try SQLiteConnection.open(path: path)
            // A RESTART checkpoint waits for readers to finish the statements they are in (microseconds,
            // as a rule); without a busy timeout it would give up at once and leave the WAL to grow.
            _ = try await connection.query("PRAGMA busy_timeout = 1000")
            return SQLiteCheckpointer(
                connection: connection, pool: pool, writeLock: writeLock, restartFrames: restartFrames, interval: interval, logger: logger)
        } catch {
            try? await pool.shutdownGracefully()
            throw error
        }
    }

    private init(
        connection: SQLiteConnection, pool: NIOThreadPool, writeLock: AsyncMutex, restartFrames: Int, interval: Duration, logger: Logger
    ) {
        self.connection = connection
        self.pool = pool
        self.writeLock = writeLock
        self.restartFrames = restartFrames
        self.task = Task { [connection] in
            while true {
                do { try await Task.sleep(for: interval) } catch { return }  // cancelled: the store is closing
                do {
                    _ = try await Self.checkpoint(connection, pool: pool, writeLock: writeLock, restartFrames: restartFrames)
                } catch is CancellationError {
                    return  // the store closed during a checkpoint: nothing failed
                } catch {
                    logger.warning("WAL checkpoint failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// A passive checkpoint, which blocks no one and copies what it can; then, when the WAL has grown
    /// past `restartFrames`, one that lets the next commit start the WAL over. Returns the last one's progress.
    package func checkpoint() async throws -> Progress {
        try await Self.checkpoint(connection, pool: pool, writeLock: writeLock, restartFrames: restartFrames)
    }

    /// Frames (4 KiB each) a RESTART checkpoint may still have to copy while it holds the write lock.
    package static let lockedFrames = 256

    private static func checkpoint(
        _ connection: SQLiteConnection, pool: NIOThreadPool, writeLock: AsyncMutex, restartFrames: Int
    ) async throws -> Progress {
        var progress = try await checkpoint(connection, pool: pool, mode: "PASSIVE")
        guard progress.walFrames >= restartFrames else { return progress }
        // Each pass copies the frames committed while the one before ran, which took less time than that
        // one, so under steady writes a few passes leave little; the bound keeps writes faster than the
        // disk from looping here forever.
        for _ in 0..<8 {
            let next = try await checkpoint(connection, pool: pool, mode: "PASSIVE")
            defer { progress = next }
            if next.checkpointed - progress.checkpointed <= lockedFrames { break }
        }
        return try await writeLock.withLock { try await checkpoint(connection, pool: pool, mode: "RESTART") }
    }

    /// On the checkpointer's own thread: a checkpoint copies pages and fsyncs.
    private static func checkpoint(_ connection: SQLiteConnection, pool: NIOThreadPool, mode: String) async throws -> Progress {
        let row = try await connection.queryOnThreadPool("PRAGMA wal_checkpoint(\(mode))", pool: pool).first
        return Progress(walFrames: row?.column("log")?.integer ?? 0, checkpointed: row?.column("checkpointed")?.integer ?? 0)
    }

    package func stop() async {
        task.cancel()
        await task.value
        try? await connection.close()
        try? await pool.shutdownGracefully()
    }
}
