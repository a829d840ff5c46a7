import ChatterCore
import Foundation

extension SQLiteStore {
    /// Batched with concurrent posts; rows keep the order they were submitted in, and so their `seq` order.
    public func addChatt(_ chatt: Chatt) async throws {
        do {
            try await chattInserts.insert(chatt)
        } catch let error as SQLiteError where error.isConstraint && chatt.userID != nil {
            // The author's account was deleted while they posted: its foreign key is all that failed.
            throw StoreError.userGone
        }
    }

    package static let chattColumns = ["id", "user_id", "name", "message", "created_at"]

    package static func binds(_ chatt: Chatt) -> [SQLiteData] {
        [.uuid(chatt.id), chatt.userID.map(SQLiteData.uuid) ?? .null, .text(chatt.name), .text(chatt.message), .time(chatt.time)]
    }

    public func forEachChatt(_ body: @escaping @Sendable (Chatt) -> Void) async throws {
        // Rows are handed over as the statement steps, which cannot be told to stop: a row that does not
        // read as a chatt is remembered and thrown once the statement is done.
        let corrupt = Collected<any Error>()
        try await reader.query("SELECT id, user_id, name, message, created_at FROM chatts ORDER BY seq", []) { row in
            do { body(try Chatt(row: row)) } catch { corrupt.append(error) }
        }
        if let error = corrupt.values.first { throw error }
    }

    public func chatts(before: UUID?, limit: Int) async throws -> [Chatt] {
        try await reader.query(
            """
            SELECT id, user_id, name, message, created_at FROM chatts
            WHERE ?1 IS NULL OR seq < (SELECT seq FROM chatts WHERE id = ?1) ORDER BY seq DESC LIMIT ?2
            """, [before.map(SQLiteData.uuid) ?? .null, .integer(limit)]
        ).map(Chatt.init(row:))
    }

    public func chattCount() async throws -> Int { try await count("chatts") }

    /// The count of other processes' commits `ExternalWrites` has noticed: only those move it (this process's own posts drop the timeline caches at once),
    /// and it is read from memory.
    public func timelineStamp() async throws -> TimelineStamp {
        TimelineStamp([externalWrites.count, chattDeletions.load(ordering: .acquiring)])
    }

    public var timelineStampIsInMemory: Bool { true }
}

extension Chatt {
    package init(row: SQLiteRow) throws {
        self.init(
            id: try row.uuid("id"), name: try row.string("name"), message: try row.string("message"),
            time: try row.date("created_at"), userID: try? row.uuid("user_id"))
    }
}
