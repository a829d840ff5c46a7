import ChatterCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The embedded default store: one SQLite file in WAL mode.
///
/// Writes go through one connection behind a FIFO lock (SQLite has one writer); reads take turns on a
/// few more connections, which WAL lets run beside the writer and which always see committed data.
public final class SQLiteStore: ChatterStore {
    package let writer: SQLiteConnection
    package let readers: ReaderConnections
    package var reader: SQLiteConnection { readers.next }
    package let writeLock: AsyncMutex
    /// Posts and sign-ins arrive in bursts: their rows are written many to a statement (see `BatchedInsert`).
    package let chattInserts: BatchedInsert<Chatt>
    /// Sign-ins too, but each learns whether its row went in (see `insertSessions`).
    package let sessionInserts: BatchingLookup<NewSession, Bool>
    package let auditInserts: BatchedInsert<AuditEvent>
    /// Every authenticated request looks its session up: recent ones are in the cache (emptied by this
    /// process's own writes and, through `externalWrites`, by other processes'), and concurrent lookups
    /// share one query.
    package let sessionCache: SessionCache
    package let sessionsByAccessKey: BatchingLookup<AccessKey, SQLiteRow>
    /// Refreshes arrive in bursts too: their rotations are applied many to a statement.
    package let rotations: BatchingLookup<Rotation, RotatedSession>
    /// Passkey sign-ins arriving together take their challenges and store their counters in one
    /// statement and one transaction each (SQLiteStore+Passkeys.swift).
    package let passkeyChallengeTakes: BatchingLookup<PasskeyChallengeTake, SQLiteRow>
    package let passkeyOwners: BatchingLookup<[UInt8], PasskeyOwner>
    package let passkeyUses: BatchingLookup<PasskeyUse, Bool>
    /// Every request of a DPoP-bound session records its proof: many to a statement.
    package let proofUses: BatchingLookup<ProofUse, Bool>
    package let checkpointer: SQLiteCheckpointer
    /// See `durable(_:)`.
    package let walSync: WALSync
    /// Other processes' commits (`chatterd admin`), which empty the session cache and move `timelineStamp()`.
    package let externalWrites = ExternalWrites()
    /// Bumped after each commit that may have deleted chatts (an account's deletion, here): with
    /// `externalWrites`, what moves `timelineStamp()`, so the timeline's cached answers drop the posts at once.
    package let chattDeletions = Atomic(0)
    public let path: String
    public let tokenKey: SessionTokenKey
    public var services: [any Service] { [] }
    public var location: String { "sqlite:" + path }

    private init(
        path: String, writer: SQLiteConnection, writeLock: AsyncMutex, readers: ReaderConnections, checkpointer: SQLiteCheckpointer,
        tokenKey: SessionTokenKey
    ) {
        self.path = path
        self.tokenKey = tokenKey
        self.writer = writer
        self.readers = readers
        self.checkpointer = checkpointer
        self.walSync = WALSync(databasePath: path)
        self.writeLock = writeLock
        self.chattInserts = BatchedInsert(
            into: "chatts", columns: Self.chattColumns, writer: writer, lock: writeLock, skippingConflictsOn: "id", binds: Self.binds)
        self.auditInserts = BatchedInsert(into: "audit_events", columns: Self.auditColumns, writer: writer, lock: writeLock, binds: Self.binds)
        let sessionCache = SessionCache()
        self.sessionCache = sessionCache
        // The session statements batch requests that arrive together (SQLiteStore+Sessions.swift).
        self.sessionInserts = Self.sessionInsertBatches(writer: writer, lock: writeLock)
        self.sessionsByAccessKey = Self.sessionLookupBatches(readers: readers)
        self.rotations = Self.rotationBatches(writer: writer, lock: writeLock, readers: readers, cache: sessionCache)
        self.passkeyChallengeTakes = BatchingLookup(maximumBatch: 200, maximumFetchers: 1) { batch in
            try await Self.takeChallenges(batch, on: writer, lock: writeLock)
        }
        self.passkeyOwners = BatchingLookup(maximumBatch: 200, maximumFetchers: readers.all.count) { ids in
            try await Self.owners(readers.next, credentialIDs: ids)
        }
        self.proofUses = BatchingLookup(maximumBatch: 200, maximumFetchers: 1) { batch in
            try await Self.recordProofs(batch, on: writer, lock: writeLock)
        }
        self.passkeyUses = BatchingLookup(maximumBatch: 200, maximumFetchers: 1) { batch in
            try await Self.recordUses(batch, on: writer, lock: writeLock)
        }
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// `checkpointInterval`: how often the WAL is copied back into the database file; `walRestartFrames`:
    /// how long it may grow before it is made to start over (see `SQLiteCheckpointer`).
    public static func open(
        path: String, checkpointInterval: Duration = .seconds(1), walRestartFrames: Int = 16_384,
        logger: Logger = Logger(label: "chatterd.sqlite")
    ) async throws -> SQLiteStore {
        // Opening creates files and migrating rewrites tables: on the thread pool, not a thread that serves.
        let (writer, readers, tokenKey) = try await NIOThreadPool.singleton.runIfActive {
            try openConnections(path: path, logger: logger)
        }
        do {
            let writeLock = AsyncMutex()
            let checkpointer = try await SQLiteCheckpointer.start(
                path: path, every: checkpointInterval, restartFrames: walRestartFrames, writeLock: writeLock, logger: logger)
            let store = SQLiteStore(
                path: path, writer: writer, writeLock: writeLock, readers: ReaderConnections(readers), checkpointer: checkpointer,
                tokenKey: tokenKey)
            do {
                try await store.externalWrites.start(writer: writer, lock: writeLock, logger: logger) { [sessionCache = store.sessionCache] in
                    sessionCache.invalidateAll()
                }
            } catch {
                await checkpointer.stop()
                throw error
            }
            return store
        } catch {
            for reader in readers { try? await reader.close() }
            try? await writer.close()
            throw error
        }
    }

    private static func openConnections(path: String, logger: Logger) throws -> (SQLiteConnection, [SQLiteConnection], SessionTokenKey) {
        let writer = try SQLiteConnection.open(path: path)
        var readers: [SQLiteConnection] = []
        do {
            // WAL with synchronous=NORMAL: a commit survives a crash of chatterd (the WAL is written
            // before COMMIT returns); a power loss can drop the last transactions, except those that
            // end sessions or change credentials, which `durable` fsyncs.
            try writer.queryBlocking("PRAGMA journal_mode = WAL")
            // The WAL is checkpointed in the background, never inside a commit (see `SQLiteCheckpointer`).
            // The writer is the only connection whose page cache survives other connections' commits, and
            // every write searches the session indexes: it gets 8 MiB of cache rather than 2.
            for pragma in [
                "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 5000", "PRAGMA wal_autocheckpoint = 0",
                "PRAGMA cache_size = -8192",
            ] {
                try writer.queryBlocking(pragma)
            }
            try migrate(writer, logger: logger)
            let tokenKey = try tokenKey(writer)
            for _ in 0..<max(2, System.coreCount) {
                let reader = try SQLiteConnection.open(path: path)
                readers.append(reader)
                try reader.queryBlocking("PRAGMA busy_timeout = 5000")
                // A reader's page cache is dropped whenever another connection commits, so under writes
                // every read starts cold: mapped, the database's pages are read in place instead of copied
                // by a system call each. Only the readers map it (the purge's scans on the writer would map
                // the whole file), and only what they touch is resident.
                try reader.queryBlocking("PRAGMA mmap_size = 268435456")
            }
            // Opening and migrating may wait on the thread pool for another process's lock; from here on
            // statements run on the threads that serve requests, which must not sleep: `SQLiteConnection.query`
            // waits by suspending instead.
            for connection in [writer] + readers { try connection.queryBlocking("PRAGMA busy_timeout = 0") }
            return (writer, readers, tokenKey)
        } catch {
            for reader in readers { try? reader.closeBlocking() }
            try? writer.closeBlocking()
            throw error
        }
    }

    package static func migrate(_ db: SQLiteConnection, logger: Logger) throws {
        let version = try db.queryBlocking("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
        let supported = SQLiteMigrations.all.count
        guard version <= supported else { throw StoreError.newerSchema(found: version, supported: supported) }
        for (index, statements) in SQLiteMigrations.all.enumerated() where index >= version {
            try db.queryBlocking("BEGIN IMMEDIATE")
            do {
                for sql in statements { try db.queryBlocking(sql) }
                try db.queryBlocking("PRAGMA user_version = \(index + 1)")
                try db.queryBlocking("COMMIT")
                logger.info("applied schema migration", metadata: ["version": "\(index + 1)"])
            } catch {
                _ = try? db.queryBlocking("ROLLBACK")
                throw error
            }
        }
    }

    /// Made on the first start after migration 4: a new key, and for sessions already stored (issued
    /// untagged by an older chatterd) the time the last of them expires.
    package static func tokenKey(_ db: SQLiteConnection) throws -> SessionTokenKey {
        try db.queryBlocking(
            """
            INSERT INTO session_token_key (id, key, untagged_until)
            SELECT 1, ?, coalesce((SELECT max(absolute_expires_at) FROM sessions), 0) WHERE NOT EXISTS (SELECT 1 FROM session_token_key)
            """, [.bytes(SessionTokenKey.newKey())])
        guard let row = try db.queryBlocking("SELECT key, untagged_until FROM session_token_key").first,
            let key = row.column("key")?.blob
        else { throw StoreError.corruptRow("no session token key") }
        return SessionTokenKey(key: key, untaggedUntil: try row.date("untagged_until"))
    }

    public func close() async throws {
        await externalWrites.stop()
        await checkpointer.stop()
        try await writeLock.withLock { [writer, readers] in
            for reader in readers.all { try await reader.close() }
            try await writer.close()
        }
    }

    /// Runs `body` as one transaction on the writer connection. Empties the session cache afterwards
    /// (committed or not: being conservative costs only a re-read), unless the caller vouches that no
    /// statement in it can end or change a session or its user (`keepsSessionCache`).
    package func transaction<T: Sendable>(keepsSessionCache: Bool = false, _ body: @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        defer { if !keepsSessionCache { sessionCache.invalidateAll() } }
        return try await writeLock.withLock { [writer] in
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

    /// One statement on the writer. It empties the session cache afterwards unless the caller vouches
    /// that it cannot end or change a session or its user (`keepsSessionCache`).
    package func write(_ sql: String, _ binds: [SQLiteData] = [], keepsSessionCache: Bool = false) async throws -> [SQLiteRow] {
        defer { if !keepsSessionCache { sessionCache.invalidateAll() } }
        return try await writeLock.withLock { [writer] in try await writer.query(sql, binds) }
    }

    /// Runs a write that must survive a power loss, not only a crash (ending sessions, changing a password,
    /// deleting an account): it returns after its commit is fsynced.
    package func durable<T: Sendable>(_ write: () async throws -> T) async throws -> T {
        let value = try await write()
        try await walSync.sync()
        return value
    }

    package func count(_ table: String) async throws -> Int {
        try await Self.count(table, on: reader)
    }

    public func schemaVersion() async throws -> (applied: Int, known: Int) {
        let applied = try await reader.query("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
        return (applied, SQLiteMigrations.all.count)
    }

    package static func count(_ table: String, on db: SQLiteConnection) async throws -> Int {
        try await db.query("SELECT count(*) AS n FROM \(table)").first?.column("n")?.integer ?? 0
    }
}

extension SQLiteData {
    package static func uuid(_ id: UUID) -> SQLiteData { .text(id.text) }
    package static func time(_ date: Date) -> SQLiteData { .float(date.timeIntervalSince1970) }
    package static func bytes(_ bytes: [UInt8]) -> SQLiteData { .blob(bytes) }
    package static func bool(_ value: Bool) -> SQLiteData { .integer(value ? 1 : 0) }
}

extension SQLiteRow {
    package func uuid(_ column: String) throws -> UUID {
        guard let text = self.column(column)?.string, let id = UUID(text: text) else {
            throw StoreError.corruptRow("\(column) is not a UUID")
        }
        return id
    }

    package func string(_ column: String) throws -> String {
        guard let text = self.column(column)?.string else { throw StoreError.corruptRow("\(column) is not text") }
        return text
    }

    package func date(_ column: String) throws -> Date {
        guard let seconds = self.column(column)?.double else { throw StoreError.corruptRow("\(column) is not a time") }
        return Date(timeIntervalSince1970: seconds)
    }
}
