import Foundation
import Logging
import NIOCore
import SQLiteNIO
import Synchronization

/// The embedded default store: one SQLite file in WAL mode.
///
/// Writes go through one connection behind a FIFO lock (SQLite has one writer); reads take turns on a
/// few more connections, which WAL lets run beside the writer and which always see committed data.
public final class SQLiteStore: ChatterStore {
    let writer: SQLiteConnection
    let readers: [SQLiteConnection]
    private let nextReader = Atomic<Int>(0)
    /// One connection answers one query at a time; several let reads use every thread of the pool.
    var reader: SQLiteConnection { readers[nextReader.add(1, ordering: .relaxed).oldValue % readers.count] }
    let writeLock: AsyncMutex
    /// Posts arrive in bursts; they are written many rows to a statement (see `BatchingQueue`).
    let chattInserts: BatchingQueue<Chatt>
    public let path: String

    private init(path: String, writer: SQLiteConnection, readers: [SQLiteConnection]) {
        self.path = path
        self.writer = writer
        self.readers = readers
        let lock = AsyncMutex()
        self.writeLock = lock
        self.chattInserts = BatchingQueue(maximumBatch: 200) { chatts in
            try await lock.withLock { _ = try await writer.query(Self.insertChatts(count: chatts.count), chatts.flatMap(Self.binds)) }
        }
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public static func open(path: String, logger: Logger = Logger(label: "chatterd.sqlite")) async throws -> SQLiteStore {
        let writer = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        var readers: [SQLiteConnection] = []
        do {
            // WAL with synchronous=NORMAL: a commit survives a crash of chatterd (the WAL is written
            // before COMMIT returns); only a power loss can drop the last transactions.
            _ = try await writer.query("PRAGMA journal_mode = WAL")
            for pragma in ["PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 5000"] {
                _ = try await writer.query(pragma)
            }
            try await migrate(writer, logger: logger)
            for _ in 0..<max(2, System.coreCount) {
                let reader = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
                _ = try await reader.query("PRAGMA busy_timeout = 5000")
                readers.append(reader)
            }
            return SQLiteStore(path: path, writer: writer, readers: readers)
        } catch {
            for reader in readers { try? await reader.close() }
            try? await writer.close()
            throw error
        }
    }

    static func migrate(_ db: SQLiteConnection, logger: Logger) async throws {
        let version = try await db.query("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
        let supported = SQLiteMigrations.all.count
        guard version <= supported else { throw StoreError.newerSchema(found: version, supported: supported) }
        for (index, statements) in SQLiteMigrations.all.enumerated() where index >= version {
            _ = try await db.query("BEGIN IMMEDIATE")
            do {
                for sql in statements { _ = try await db.query(sql) }
                _ = try await db.query("PRAGMA user_version = \(index + 1)")
                _ = try await db.query("COMMIT")
                logger.info("applied schema migration", metadata: ["version": "\(index + 1)"])
            } catch {
                _ = try? await db.query("ROLLBACK")
                throw error
            }
        }
    }

    public func close() async throws {
        try await writeLock.withLock { [writer, readers] in
            for reader in readers { try await reader.close() }
            try await writer.close()
        }
    }

    /// Runs `body` as one transaction on the writer connection.
    func transaction<T: Sendable>(_ body: @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        try await writeLock.withLock { [writer] in
            _ = try await writer.query("BEGIN IMMEDIATE")
            do {
                let value = try await body(writer)
                _ = try await writer.query("COMMIT")
                return value
            } catch {
                _ = try? await writer.query("ROLLBACK")
                throw error
            }
        }
    }

    func write(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await writeLock.withLock { [writer] in try await writer.query(sql, binds) }
    }

    func count(_ table: String) async throws -> Int {
        try await reader.query("SELECT count(*) AS n FROM \(table)").first?.column("n")?.integer ?? 0
    }
}

extension SQLiteData {
    static func uuid(_ id: UUID) -> SQLiteData { .text(id.uuidString) }
    static func time(_ date: Date) -> SQLiteData { .float(date.timeIntervalSince1970) }
    static func bytes(_ bytes: [UInt8]) -> SQLiteData { .blob(ByteBuffer(bytes: bytes)) }
    static func bool(_ value: Bool) -> SQLiteData { .integer(value ? 1 : 0) }
}

extension SQLiteRow {
    func uuid(_ column: String) throws -> UUID {
        guard let text = self.column(column)?.string, let id = UUID(uuidString: text) else {
            throw StoreError.corruptRow("\(column) is not a UUID")
        }
        return id
    }

    func string(_ column: String) throws -> String {
        guard let text = self.column(column)?.string else { throw StoreError.corruptRow("\(column) is not text") }
        return text
    }

    func date(_ column: String) throws -> Date {
        guard let seconds = self.column(column)?.double else { throw StoreError.corruptRow("\(column) is not a time") }
        return Date(timeIntervalSince1970: seconds)
    }
}
