import ChatterCore
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// The store for several chatterd instances: one PostgreSQL database they all write to.
///
/// Every rule that must hold across instances is one statement or one transaction in the database (row
/// locks and `ON CONFLICT` decide races, never this process). The connection pool is a service that runs
/// beside the server (`services`). Nothing here may assume it saw every write: its session cache forgets
/// entries after `sessionCacheAge`, so another instance's revocation is seen within that time.
public final class PostgresStore: ChatterStore {
    /// How long a looked-up session may be answered from memory: the bound on how late a revocation made
    /// by another instance is noticed here.
    public static let sessionCacheAge = Duration.milliseconds(500)

    package let client: PostgresClient
    package let logger: Logger
    package let sessionCache: SessionCache
    package let chattInserts: BatchingQueue<Chatt>
    package let sessionsByAccessHash: BatchingLookup<[UInt8], SessionCache.Entry>
    /// Refreshes arriving together rotate in one statement and one commit.
    package let rotations: BatchingLookup<Rotation, RotatedSession>
    /// Passkey sign-ins arriving together store their counters in one statement.
    package let passkeyUses: BatchingLookup<PasskeyUse, Bool>
    /// Every request of a DPoP-bound session records its proof: many to a statement and a commit.
    package let proofUses: BatchingLookup<ProofUse, Bool>
    public let location: String
    public let tokenKey: SessionTokenKey

    public var services: [any Service] { [client] }
    /// For what runs before the pool does (the sealing key's check at start): a connection of its own.
    package let ownConnection: PostgresConnection.Configuration

    /// `body` over a connection of its own, closed after: for the few reads and writes made at start, before
    /// `services` run the pool.
    package func withOwnConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await PostgresConnection.connect(configuration: ownConnection, id: 2, logger: logger)
        do {
            let value = try await body(connection)
            try await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private init(
        client: PostgresClient, location: String, tokenKey: SessionTokenKey, ownConnection: PostgresConnection.Configuration, logger: Logger
    ) {
        self.client = client
        self.ownConnection = ownConnection
        self.tokenKey = tokenKey
        self.location = location
        self.logger = logger
        chattInserts = BatchingQueue(maximumBatch: 200) { chatts in try await Self.insertChatts(chatts, into: client, logger: logger) }
        // A few fetches at once: the pool has more connections, and one slow round trip should not hold up the rest.
        sessionsByAccessHash = BatchingLookup(maximumBatch: 200, maximumFetchers: 4) { hashes in
            try await Self.sessionEntries(client, logger: logger, accessHashes: hashes)
        }
        let sessionCache = SessionCache(maximumAge: PostgresStore.sessionCacheAge)
        self.sessionCache = sessionCache
        // Two at once: one batch travels while the other commits.
        rotations = BatchingLookup(maximumBatch: 200, maximumFetchers: 2) { batch in
            try await sessionCache.evictingRotated(batch) { try await Self.rotate(batch, on: client, logger: logger) }
        }
        passkeyUses = BatchingLookup(maximumBatch: 200, maximumFetchers: 2) { batch in try await Self.recordUses(batch, on: client, logger: logger) }
        proofUses = BatchingLookup(maximumBatch: 200, maximumFetchers: 2) { batch in try await Self.recordProofs(batch, on: client, logger: logger) }
    }

    /// Brings the schema up to date over a connection of its own (several instances starting at once
    /// take turns on an advisory lock, so each version is applied once), then returns the store with its
    /// pool, which serves queries once `services` run.
    public static func open(_ location: PostgresLocation, logger: Logger = Logger(label: "chatterd.postgres")) async throws -> PostgresStore {
        let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 1, logger: logger)
        let tokenKey: SessionTokenKey
        do {
            try await migrate(connection, logger: logger)
            tokenKey = try await Self.tokenKey(connection, logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        var configuration = location.clientConfiguration
        // Enough for the busiest request mix on a few cores; PostgreSQL's default allows 100 in all.
        configuration.options.maximumConnections = 16
        configuration.options.minimumConnections = 2
        return PostgresStore(
            client: PostgresClient(configuration: configuration, backgroundLogger: logger), location: location.description, tokenKey: tokenKey,
            ownConnection: try location.connectionConfiguration(), logger: logger)
    }

    /// Made by the first instance to start after migration 2 (the others find it): a new key, and for
    /// sessions already stored the time the last of them expires.
    package static func tokenKey(_ db: PostgresConnection, logger: Logger) async throws -> SessionTokenKey {
        try await db.query(
            """
            INSERT INTO session_token_key (id, key, untagged_until)
            SELECT 1, \(SessionTokenKey.newKey().bytea), coalesce((SELECT max(absolute_expires_at) FROM sessions), 'epoch')
            ON CONFLICT (id) DO NOTHING
            """, logger: logger)
        guard let row = try await db.rows("SELECT key, untagged_until FROM session_token_key", logger: logger).first else {
            throw StoreError.corruptRow("no session token key")
        }
        return SessionTokenKey(key: try row.bytes("key"), untaggedUntil: try row.value("untagged_until"))
    }

    package static let migrationLock: Int64 = 0x6368_6174_7465_7264  // "chatterd"

    package static func migrate(_ db: PostgresConnection, logger: Logger) async throws {
        try await db.withTransaction(logger: logger) { db in
            try await db.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await db.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            let rows = try await db.query("SELECT coalesce(max(version), 0) FROM schema_migrations", logger: logger)
            var version = 0
            for try await found in rows.decode(Int.self) { version = found }
            let supported = PostgresMigrations.all.count
            guard version <= supported else { throw StoreError.newerSchema(found: version, supported: supported) }
            for (index, statements) in PostgresMigrations.all.enumerated() where index >= version {
                for sql in statements { try await db.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
                try await db.query("INSERT INTO schema_migrations (version) VALUES (\(index + 1))", logger: logger)
                logger.info("applied schema migration", metadata: ["version": "\(index + 1)"])
            }
        }
    }

    /// The pool stops with the service group; nothing else is held.
    public func close() async throws {}

    /// One statement, its rows read at once. It empties the session cache afterwards unless the caller
    /// vouches that it cannot end or change a session or its user (`keepsSessionCache`).
    @discardableResult
    package func rows(_ query: PostgresQuery, keepsSessionCache: Bool = false) async throws -> [PostgresRandomAccessRow] {
        defer { if !keepsSessionCache { sessionCache.invalidateAll() } }
        return try await client.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// Runs `body` as one transaction; empties the session cache afterwards unless `keepsSessionCache`.
    /// Throws what failed (the body's error, or the failed `BEGIN` or `COMMIT`), not postgres-nio's wrapper,
    /// so callers can tell a conflict or a domain error apart.
    package func transaction<T: Sendable>(keepsSessionCache: Bool = false, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        defer { if !keepsSessionCache { sessionCache.invalidateAll() } }
        do {
            return try await client.withTransaction(logger: logger) { db in try await body(db) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }

    public func schemaVersion() async throws -> (applied: Int, known: Int) {
        let applied = try await rows("SELECT coalesce(max(version), 0) AS version FROM schema_migrations", keepsSessionCache: true).first?.value(
            "version", as: Int.self)
        return (applied ?? 0, PostgresMigrations.all.count)
    }

    package func count(_ table: String) async throws -> Int {
        try await rows(PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \(table)"), keepsSessionCache: true).first?.value("n", as: Int.self) ?? 0
    }
}

extension PostgresConnection {
    @discardableResult
    package func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try await self.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }
}

extension PostgresRandomAccessRow {
    package func value<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try self[column].decode(T.self)
    }

    package func bytes(_ column: String) throws -> [UInt8] {
        Array(try value(column, as: ByteBuffer.self).readableBytesView)
    }

    package func optionalBytes(_ column: String) throws -> [UInt8]? {
        try value(column, as: ByteBuffer?.self).map { Array($0.readableBytesView) }
    }
}

extension [UInt8] {
    /// A bytea bind: `[UInt8]` alone would be sent as a char[] array.
    package var bytea: ByteBuffer { ByteBuffer(bytes: self) }
}

extension PSQLError {
    package var sqlState: String? { serverInfo?[.sqlState] }
    package static let uniqueViolation = "23505", foreignKeyViolation = "23503", deadlock = "40P01"
}

extension PostgresStore {
    /// Runs `work` again (up to three times in all) when PostgreSQL undid it to break a deadlock: the
    /// statement or transaction it ran was rolled back whole, so running it again is safe.
    @discardableResult
    package static func retryingDeadlocks<T>(_ work: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await work()
            } catch let error as PSQLError where error.sqlState == PSQLError.deadlock && attempt < 3 {
                attempt += 1
            }
        }
    }
}
