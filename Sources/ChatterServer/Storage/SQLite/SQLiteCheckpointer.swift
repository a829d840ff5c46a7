import Logging
import NIOCore
import NIOPosix
import SQLiteNIO

/// Copies the WAL back into the database file from a connection and thread of its own.
///
/// SQLite's automatic checkpoint runs inside whichever commit pushes the WAL past its threshold, and
/// includes an fsync: that one unlucky request waits for the disk while every other write waits for it.
/// The writer's automatic checkpoint is off; this task does the work in the background instead.
///
/// A passive checkpoint never waits, but under steady reads and writes it never finds a moment when
/// the WAL can start over, and the WAL grows without end (1.8 GB in 90 s of the soak). So once the WAL
/// holds `restartFrames`, the checkpoint waits for readers to finish their current statement and
/// truncates it.
final class SQLiteCheckpointer: Sendable {
    struct Progress: Sendable, Equatable {
        /// Frames in the WAL, and how many of them are now in the database file.
        var walFrames: Int
        var checkpointed: Int
    }

    private let connection: SQLiteConnection
    private let pool: NIOThreadPool
    private let task: Task<Void, Never>
    /// 4,096 frames: 16 MiB of WAL with 4 KiB pages.
    static let restartFrames = 4096

    static func start(path: String, every interval: Duration, logger: Logger) async throws -> SQLiteCheckpointer {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        do {
            let connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: pool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
            // Waiting for readers sleeps rather than spins; they finish within milliseconds.
            _ = try await connection.query("PRAGMA busy_timeout = 1000")
            return SQLiteCheckpointer(connection: connection, pool: pool, interval: interval, logger: logger)
        } catch {
            try? await pool.shutdownGracefully()
            throw error
        }
    }

    private init(connection: SQLiteConnection, pool: NIOThreadPool, interval: Duration, logger: Logger) {
        self.connection = connection
        self.pool = pool
        self.task = Task { [connection] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                do {
                    _ = try await Self.checkpoint(connection)
                } catch {
                    logger.warning("WAL checkpoint failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// A passive checkpoint, which blocks no one and copies what it can; then, when the WAL has grown
    /// past `restartFrames`, one that waits for readers and truncates it. Returns the last one's progress.
    func checkpoint() async throws -> Progress {
        try await Self.checkpoint(connection)
    }

    private static func checkpoint(_ connection: SQLiteConnection) async throws -> Progress {
        let progress = try await checkpoint(connection, mode: "PASSIVE")
        guard progress.walFrames >= restartFrames else { return progress }
        return try await checkpoint(connection, mode: "TRUNCATE")
    }

    private static func checkpoint(_ connection: SQLiteConnection, mode: String) async throws -> Progress {
        let row = try await connection.query("PRAGMA wal_checkpoint(\(mode))").first
        return Progress(walFrames: row?.column("log")?.integer ?? 0, checkpointed: row?.column("checkpointed")?.integer ?? 0)
    }

    func stop() async {
        task.cancel()
        await task.value
        try? await connection.close()
        try? await pool.shutdownGracefully()
    }
}
