import Logging
import NIOCore
import NIOPosix
import SQLiteNIO

/// Copies the WAL back into the database file from a connection and thread of its own.
///
/// SQLite's automatic checkpoint runs inside whichever commit pushes the WAL past its threshold, and
/// includes an fsync: that one unlucky request waits for the disk while every other write waits for it.
/// The writer's automatic checkpoint is off; this task does the work in the background instead.
final class SQLiteCheckpointer: Sendable {
    struct Progress: Sendable, Equatable {
        /// Frames in the WAL, and how many of them are now in the database file.
        var walFrames: Int
        var checkpointed: Int
    }

    private let connection: SQLiteConnection
    private let pool: NIOThreadPool
    private let task: Task<Void, Never>

    static func start(path: String, every interval: Duration, logger: Logger) async throws -> SQLiteCheckpointer {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        do {
            let connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: pool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
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

    /// A passive checkpoint: it never blocks readers or the writer, and copies what it can.
    func checkpoint() async throws -> Progress {
        try await Self.checkpoint(connection)
    }

    private static func checkpoint(_ connection: SQLiteConnection) async throws -> Progress {
        let row = try await connection.query("PRAGMA wal_checkpoint(PASSIVE)").first
        return Progress(walFrames: row?.column("log")?.integer ?? 0, checkpointed: row?.column("checkpointed")?.integer ?? 0)
    }

    func stop() async {
        task.cancel()
        await task.value
        try? await connection.close()
        try? await pool.shutdownGracefully()
    }
}
