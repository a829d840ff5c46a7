import GRDBSQLite
import NIOPosix
import Synchronization

/// One connection to a SQLite database, over SQLite's C API (the system's library, through GRDB.swift's
/// module map), with its statements prepared once and kept.
///
/// Why not GRDB's `DatabasePool` or sqlite-nio (issue 46, measured in docs/databases.md): a cached point
/// read costs about 3 µs here, against 30 µs through a `DatabasePool` read (its reader checkout and the
/// transaction around every read) and 36 µs through sqlite-nio (a new statement each time, and a hop to
/// a thread pool). chatterd already does what a pool does — one writer behind its own lock, WAL readers
/// beside it — and its transactions run `async` bodies, which GRDB's synchronous closures cannot hold.
///
/// A statement runs on the calling thread, under this connection's lock: an indexed statement takes
/// microseconds, less than a hop to another thread. What can take long (a checkpoint, a backup) runs
/// through `queryOnThreadPool`.
package final class SQLiteConnection: Sendable {
    /// RETURNING (3.35) is on every write path; the test suites run on Debian 12's 3.40.
    package static let minimumVersion: Int32 = 3_035_000
    /// The library chatterd is linked against at run time, e.g. "3.40.1".
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    private let handle: Mutex<Handle>
    private let running = Atomic(false)
    /// How long this connection's statements have run since one last gave its thread back (see `query`),
    /// and how many times one has.
    private let workSinceYield = Mutex((work: Duration.zero, yields: 0))
    package let path: String

    private init(path: String, handle: sending Handle) {
        self.path = path
        self.handle = Mutex(handle)
    }

    /// Opens (creating if needed) the database file at `path`.
    package static func open(path: String) throws -> SQLiteConnection {
        guard sqlite3_libversion_number() >= minimumVersion else {
            throw SQLiteError(
                code: SQLITE_ERROR, message: "chatterd needs SQLite 3.35 or later, and this system's library is \(libraryVersion)")
        }
        var db: OpaquePointer?
        // NOMUTEX: this connection's own lock is the only one it needs.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: status, message: "opening \(path): \(message)")
        }
        sqlite3_extended_result_codes(db, 1)
        return SQLiteConnection(path: path, handle: Handle(db))
    }

    /// How long a statement waits for a lock another process holds (`chatterd admin`, a backup) before it
    /// fails: SQLite's `busy_timeout`, but waited for by suspending, not by sleeping on the thread.
    package static let busyTimeout = Duration.seconds(5)

    /// Runs one statement and answers its rows. It suspends only while another process holds the lock it
    /// needs: statements run on their callers' threads, the few the cooperative pool has, and SQLite's own
    /// busy handler would sleep on one for up to `busyTimeout` (every server in the process stalled with it).
    ///
    /// A statement that never suspends never lets its thread go either: a task running statement after
    /// statement (a purge, a seed, a burst of batches) would keep one of the cooperative pool's few threads
    /// and starve every other task of it. So once this connection's statements have run for
    /// `yieldInterval` in all, the next one yields before it answers: nothing on a request's path notices,
    /// and a long loop shares. The time counted is the statements' own, not the time between them: under
    /// load every statement waits longer than that for its turn, and yielding after each one sent every
    /// writer, lock held, to the back of a long queue again (issue 46's CI run).
    @discardableResult
    package func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        let rows = try await retryingWhileBusy { try queryBlocking(sql, binds) }
        if isTimeToYield() { await Task.yield() }
        return rows
    }

    /// How much of a connection's work may run before a statement yields its thread.
    package static let yieldInterval = Duration.milliseconds(2)

    private func isTimeToYield() -> Bool {
        workSinceYield.withLock { state in
            guard state.work >= Self.yieldInterval else { return false }
            state.work = .zero
            state.yields += 1
            return true
        }
    }

    /// Runs one statement, handing each row to `onRow` as it is read (a large result is never held whole).
    /// A lock is waited for only before the first row, so no row is handed over twice.
    package func query(_ sql: String, _ binds: [SQLiteData], onRow: (SQLiteRow) -> Void) async throws {
        var handed = false
        try await retryingWhileBusy {
            guard !handed else { throw SQLiteError(code: SQLITE_BUSY, message: "locked by another process after rows were read") }
            try run {
                try $0.run(sql, binds) { row in
                    handed = true
                    onRow(row)
                }
            }
        }
        if isTimeToYield() { await Task.yield() }
    }

    /// `body` again, after a pause that grows to 50 ms, while it fails because another process holds a lock
    /// (SQLITE_BUSY: the statement did not run), for up to `busyTimeout` in all. Connections have no busy
    /// handler of their own once open (`SQLiteStore.openConnections`).
    private func retryingWhileBusy<T>(_ body: () throws -> T) async throws -> T {
        var waited = Duration.zero
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy && waited < Self.busyTimeout {
                try await Task.sleep(for: pause)
                waited += pause
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    /// Runs one statement on `pool`'s thread: for work that may wait on the disk (a checkpoint's fsync,
    /// a backup), which must not hold up the threads that serve requests.
    package func queryOnThreadPool(_ sql: String, _ binds: [SQLiteData] = [], pool: NIOThreadPool = .singleton) async throws -> [SQLiteRow] {
        try await pool.runIfActive { try self.queryBlocking(sql, binds) }
    }

    /// Runs one statement on this thread, for code that already runs on a thread of its own (opening the
    /// store and migrating it, on the thread pool).
    @discardableResult
    package func queryBlocking(_ sql: String, _ binds: [SQLiteData] = []) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try run { try $0.run(sql, binds) { rows.append($0) } }
        return rows
    }

    private func run(_ body: (borrowing Handle) throws -> Void) throws {
        running.store(true, ordering: .relaxed)
        let clock = ContinuousClock()
        let started = clock.now
        defer {
            let elapsed = clock.now - started
            workSinceYield.withLock { $0.work += elapsed }
            running.store(false, ordering: .relaxed)
        }
        try handle.withLock { try body($0) }
    }

    /// How many times this connection's statements have yielded their thread, for tests.
    package var yields: Int { workSinceYield.withLock { $0.yields } }

    /// Whether a statement is running on this connection now (a hint for choosing an idle reader).
    package var isRunning: Bool { running.load(ordering: .relaxed) }

    /// Statements kept prepared, for tests.
    package var cachedStatements: Int { handle.withLock { $0.cached } }

    /// Finalizes every statement and closes the connection; later queries throw.
    package func close() async throws {
        try closeBlocking()
    }

    package func closeBlocking() throws {
        try handle.withLock { try $0.close() }
    }
}
