import Logging
import PostgresNIO

/// A statement on a request's path, which PostgreSQL parses and plans once per connection (postgres-nio
/// prepares it on a connection's first use and names it by its type) instead of on every execution, as it
/// does the unnamed statements every other query is sent as. Its rows are read by column name, as every
/// other query's are.
///
/// Each declares its parameters' types: a statement is prepared with the types of its first execution,
/// and a NULL there carries none.
package protocol PreparedStatement: PostgresPreparedStatement where Row == PostgresRandomAccessRow {}

extension PreparedStatement {
    package func decodeRow(_ row: PostgresRow) -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

extension PostgresStore {
    /// One prepared statement, its rows read at once; it empties the session cache afterwards unless the
    /// caller vouches that it cannot end or change a session or its user (`keepsSessionCache`).
    @discardableResult
    package func rows(_ statement: some PreparedStatement, keepsSessionCache: Bool = false) async throws -> [PostgresRandomAccessRow] {
        defer { if !keepsSessionCache { sessionCache.invalidateAll() } }
        return try await Self.rows(statement, on: client, logger: logger)
    }

    @discardableResult
    package static func rows(_ statement: some PreparedStatement, on client: PostgresClient, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in try await client.execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}

extension PostgresConnection {
    /// One prepared statement inside a transaction, its rows read at once.
    @discardableResult
    package func rows(_ statement: some PreparedStatement, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}
