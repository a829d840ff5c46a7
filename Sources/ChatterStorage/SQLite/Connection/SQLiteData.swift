/// One value bound to or read from a statement: SQLite's five storage classes.
package enum SQLiteData: Sendable, Hashable {
    case integer(Int)
    case float(Double)
    case text(String)
    case blob([UInt8])
    case null

    /// The value as an integer: a float is truncated and text parsed, as SQLite's own conversions do.
    package var integer: Int? {
        switch self {
        case .integer(let value): value
        case .float(let value): Int(exactly: value.rounded(.towardZero))
        case .text(let value): Int(value)
        case .blob, .null: nil
        }
    }

    /// Times are stored as REAL, but an expression over them (`coalesce(max(…), 0)`) can answer an integer.
    package var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .float(let value): value
        case .text(let value): Double(value)
        case .blob, .null: nil
        }
    }

    package var string: String? {
        switch self {
        case .integer(let value): String(value)
        case .float(let value): String(value)
        case .text(let value): value
        case .blob, .null: nil
        }
    }

    /// Booleans are stored as 0 and 1; anything else is not one.
    package var bool: Bool? {
        switch integer {
        case 1: true
        case 0: false
        default: nil
        }
    }

    package var blob: [UInt8]? {
        if case .blob(let bytes) = self { bytes } else { nil }
    }
}

/// The names of a statement's result columns, read once when it is prepared and shared by its rows.
package final class SQLiteColumns: Sendable {
    package let names: [String]

    init(_ names: [String]) { self.names = names }

    /// A linear search: a result has a handful of columns, and comparing a few short strings costs less
    /// than hashing one.
    func index(of name: String) -> Int? { names.firstIndex(of: name) }
}

/// One result row.
package struct SQLiteRow: Sendable {
    package let columns: SQLiteColumns
    package let values: [SQLiteData]

    /// The value of the column named `name`, or nil when the result has no such column.
    package func column(_ name: String) -> SQLiteData? {
        columns.index(of: name).map { values[$0] }
    }
}
