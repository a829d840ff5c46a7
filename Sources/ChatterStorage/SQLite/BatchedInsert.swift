import ChatterCore

/// An INSERT that concurrent callers share: rows submitted while a write is running go into the next
/// multi-row statement, in the order they were submitted.
package struct BatchedInsert<Row: Sendable>: Sendable {
    private let queue: BatchingQueue<Row>

    package init(
        into table: String, columns: [String], writer: SQLiteConnection, lock: AsyncMutex, skippingConflictsOn unique: String? = nil,
        binds: @escaping @Sendable (Row) -> [SQLiteData]
    ) {
        // A row whose `unique` column is already taken is left out, in the statement itself.
        let suffix = unique.map { " ON CONFLICT (\($0)) DO NOTHING" } ?? ""
        let prefix = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        // SQLite binds at most 32,766 parameters to a statement.
        queue = BatchingQueue(maximumBatch: min(200, 32_766 / columns.count)) { rows in
            let sql = prefix + Array(repeating: tuple, count: rows.count).joined(separator: ", ") + suffix
            try await lock.withLock { _ = try await writer.query(sql, rows.flatMap(binds)) }
        }
    }

    package func insert(_ row: Row) async throws {
        try await queue.submit(row)
    }
}
