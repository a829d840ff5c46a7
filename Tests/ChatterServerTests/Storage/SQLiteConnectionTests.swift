import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterStorage

/// chatterd's own connection over SQLite's C API: values go in and come out as they were, statements
/// are prepared once and kept within bounds, and misuse is an error rather than a silent surprise.
@Suite struct SQLiteConnectionTests {
    private func withConnection(_ body: (SQLiteConnection) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            let db = try SQLiteConnection.open(path: dir + "/test.sqlite")
            do {
                try await body(db)
                try await db.close()
            } catch {
                try? await db.close()
                throw error
            }
        }
    }

    @Test func everyKindOfValueComesBackAsItWasBound() async throws {
        try await withConnection { db in
            try await db.query("CREATE TABLE t (v)")
            let values: [SQLiteData] = [
                .integer(0), .integer(.max), .integer(.min), .float(1.5), .float(-0.0), .text(""), .text("a\u{0}b"), .text("é👩‍💻\u{202E}"),
                .blob([]), .blob([0, 255, 0]), .null,
            ]
            for value in values { try await db.query("INSERT INTO t (v) VALUES (?)", [value]) }
            let read = try await db.query("SELECT v FROM t ORDER BY rowid").map { $0.column("v") }
            #expect(read == values)
            #expect(try await db.query("SELECT typeof(v) AS type FROM t WHERE rowid = 6").first?.column("type") == .text("text"), "'' is text, not NULL")
            #expect(try await db.query("SELECT typeof(v) AS type FROM t WHERE rowid = 9").first?.column("type") == .text("blob"), "an empty blob is a blob")
        }
    }

    @Test func valuesConvertAsSQLiteDoes() {
        #expect(SQLiteData.integer(3).double == 3)
        #expect(SQLiteData.float(2.9).integer == 2)
        #expect(SQLiteData.text("12").integer == 12)
        #expect(SQLiteData.integer(1).bool == true)
        #expect(SQLiteData.integer(0).bool == false)
        #expect(SQLiteData.integer(2).bool == nil)
        #expect(SQLiteData.blob([1]).string == nil)
        #expect(SQLiteData.null.integer == nil)
        #expect(SQLiteData.float(.infinity).integer == nil, "no crash on a value no Int holds")
    }

    @Test func aStatementIsPreparedOnceAndKept() async throws {
        try await withConnection { db in
            try await db.query("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
            let before = db.cachedStatements
            for id in 0..<50 { try await db.query("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(id), .text("n\(id)")]) }
            #expect(db.cachedStatements == before + 1)
            let row = try await db.query("SELECT name, id FROM t WHERE id = ?", [.integer(7)]).first
            #expect(row?.column("name") == .text("n7"))
            #expect(row?.column("id") == .integer(7))
            #expect(row?.column("missing") == nil)
            #expect(db.cachedStatements == before + 2)
        }
    }

    @Test func theCacheStaysWithinItsBounds() async throws {
        try await withConnection { db in
            for n in 0..<(Handle.capacity * 2) { try await db.query("SELECT \(n) AS n") }
            #expect(db.cachedStatements <= Handle.capacity)
            let many = Array(repeating: "?", count: Handle.uncachedParameters).joined(separator: ", ")
            let before = db.cachedStatements
            let rows = try await db.query("SELECT \(many)", Array(repeating: .integer(1), count: Handle.uncachedParameters))
            #expect(rows.first?.values.count == Handle.uncachedParameters)
            #expect(db.cachedStatements == before, "a statement of generated size is not kept")
        }
    }

    @Test func aKeptStatementSeesASchemaChange() async throws {
        try await withConnection { db in
            try await db.query("CREATE TABLE t (a)")
            try await db.query("INSERT INTO t (a) VALUES (1)")
            #expect(try await db.query("SELECT * FROM t").first?.columns.names == ["a"])
            try await db.query("ALTER TABLE t ADD COLUMN b DEFAULT 2")
            let row = try await db.query("SELECT * FROM t").first
            #expect(row?.columns.names == ["a", "b"])
            #expect(row?.column("b") == .integer(2))
        }
    }

    @Test func misuseIsAnErrorAndLeavesTheConnectionUsable() async throws {
        try await withConnection { db in
            try await db.query("CREATE TABLE t (id INTEGER PRIMARY KEY)")
            await #expect(throws: SQLiteError.self, "too few values") { try await db.query("INSERT INTO t (id) VALUES (?)") }
            await #expect(throws: SQLiteError.self, "too many values") { try await db.query("SELECT 1", [.integer(1)]) }
            await #expect(throws: SQLiteError.self, "a second statement would be left out") {
                try await db.query("INSERT INTO t (id) VALUES (1); DROP TABLE t")
            }
            await #expect(throws: SQLiteError.self) { try await db.query("SELEC 1") }
            #expect(try await db.query("SELECT count(*) AS n FROM t").first?.column("n") == .integer(0), "nothing ran")
            try await db.query("INSERT INTO t (id) VALUES (?)", [.integer(1)])
            do {
                try await db.query("INSERT INTO t (id) VALUES (?)", [.integer(1)])
                Issue.record("a duplicate key went in")
            } catch let error as SQLiteError {
                #expect(error.isConstraint)
            }
            #expect(
                try await db.query("INSERT INTO t (id) VALUES (?) RETURNING id", [.integer(2)]).first?.column("id") == .integer(2),
                "the statement that failed runs again")
        }
    }

    @Test func aClosedConnectionRefusesQueries() async throws {
        try await withTemporaryDirectory { dir in
            let db = try SQLiteConnection.open(path: dir + "/test.sqlite")
            try await db.query("SELECT 1")
            try await db.close()
            await #expect(throws: SQLiteError.self) { try await db.query("SELECT 1") }
            try await db.close()
        }
    }

    @Test func rowsAreHandedOverOneByOne() async throws {
        try await withConnection { db in
            try await db.query("CREATE TABLE t (n INTEGER)")
            for n in 0..<100 { try await db.query("INSERT INTO t (n) VALUES (?)", [.integer(n)]) }
            let seen = Collected<Int>()
            try await db.query("SELECT n FROM t ORDER BY n", []) { row in seen.append(row.column("n")?.integer ?? -1) }
            #expect(seen.values == Array(0..<100))
        }
    }

    /// Statements run on their callers' threads under the connection's lock: many at once each run whole.
    @Test func manyCallersAtOnceEachRunWhole() async throws {
        try await withConnection { db in
            try await db.query("CREATE TABLE counter (n INTEGER NOT NULL)")
            try await db.query("INSERT INTO counter (n) VALUES (0)")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        try await db.query("UPDATE counter SET n = n + 1")
                        _ = try await db.query("SELECT n FROM counter")
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await db.query("SELECT n FROM counter").first?.column("n") == .integer(200))
        }
    }

    /// Another process's lock is waited for by suspending, so the thread is free meanwhile, and the statement
    /// runs once the lock is released.
    @Test func aStatementWaitsForAnotherConnectionsLockWithoutHoldingItsThread() async throws {
        try await withTemporaryDirectory { dir in
            let holder = try SQLiteConnection.open(path: dir + "/test.sqlite")
            let waiter = try SQLiteConnection.open(path: dir + "/test.sqlite")
            try await holder.query("PRAGMA journal_mode = WAL")
            try await holder.query("CREATE TABLE t (n INTEGER)")
            try await holder.query("BEGIN IMMEDIATE")
            try await holder.query("INSERT INTO t (n) VALUES (1)")
            let waiting = Task { try await waiter.query("INSERT INTO t (n) VALUES (2) RETURNING n") }
            try await Task.sleep(for: .milliseconds(200))
            // The waiting insert holds no thread: the holder's statements still run on this one.
            #expect(try await holder.query("SELECT count(*) AS n FROM t").first?.column("n") == .integer(1))
            try await holder.query("COMMIT")
            #expect(try await waiting.value.first?.column("n") == .integer(2))
            #expect(try await waiter.query("SELECT count(*) AS n FROM t").first?.column("n") == .integer(2))
            try await holder.close()
            try await waiter.close()
        }
    }

    /// A connection yields its thread after `yieldInterval` of its statements' own work. The time a task
    /// waits between statements is not work: counted, every statement after a wait for the thread (each
    /// one, when the process is saturated) yielded again, and writers held the write lock through it.
    @Test func onlyTheStatementsOwnTimeCountsTowardYielding() async throws {
        try await withConnection { db in
            let long = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000) SELECT count(*) FROM c"
            try await db.query("CREATE TABLE t (n INTEGER)")
            // A statement that works longer than the interval yields once it has answered, and the count of
            // work starts again from nothing (what the CREATE left, under a loaded suite, once tipped the
            // short statements below past the interval).
            try await db.query(long)
            let before = db.yields
            #expect(before >= 1)
            // Counted, each 3 ms pause would make the statement after it yield: 40 times. The time is the
            // clock's, and in the whole suite on two cores the kernel preempts a statement often enough that
            // two of five once counted 2 ms each (newcomer-check): so at most half, not none.
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(3))
                try await db.query("SELECT count(*) FROM t")
            }
            let afterPauses = db.yields
            #expect(afterPauses - before <= 20, "120 ms of pauses between 40 short statements are not work")
            try await db.query(long)
            #expect(db.yields == afterPauses + 1)
        }
    }

    @Test func aMissingDirectoryIsAClearError() async throws {
        do {
            _ = try SQLiteConnection.open(path: "/nonexistent-\(UUID())/db.sqlite")
            Issue.record("opened a database in a missing directory")
        } catch let error as SQLiteError {
            #expect(error.description.contains("/nonexistent-"))
        }
    }
}
