import GRDBSQLite

/// A failed call into SQLite, with its extended result code and message.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (https://sqlite.org/rescode.html).
    package let code: Int32
    package let message: String

    package var description: String { "SQLite error \(code): \(message)" }

    /// A UNIQUE, NOT NULL, CHECK or FOREIGN KEY constraint refused the statement.
    package var isConstraint: Bool { code & 0xFF == SQLITE_CONSTRAINT }

    /// Another connection holds the lock this statement needed, past the busy timeout.
    package var isBusy: Bool { code & 0xFF == SQLITE_BUSY }
}
