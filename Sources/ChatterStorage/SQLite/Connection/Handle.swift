import GRDBSQLite

/// SQLite's `SQLITE_TRANSIENT`: the library copies a bound value before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The open database and its prepared statements; used only under `SQLiteConnection`'s lock.
final class Handle {
    private var db: OpaquePointer?
    private var statements: [String: Statement] = [:]

    /// A prepared statement and its result's column names.
    private struct Statement {
        let pointer: OpaquePointer
        var columns: SQLiteColumns
    }

    /// Statements kept per connection: chatterd has about 150 different ones, of which a request uses a
    /// few. When full the cache starts over, so a store of generated SQL cannot grow it without end.
    static let capacity = 128
    /// A batched statement with this many parameters or more is prepared for each use: its SQL differs with
    /// the batch's size, and its preparation is a small part of the rows it writes.
    static let uncachedParameters = 64

    init(_ db: OpaquePointer) { self.db = db }

    deinit { try? close() }

    var cached: Int { statements.count }

    func close() throws {
        guard let db else { return }
        for statement in statements.values { sqlite3_finalize(statement.pointer) }
        statements = [:]
        let status = sqlite3_close_v2(db)
        self.db = nil
        guard status == SQLITE_OK else { throw SQLiteError(code: status, message: "closing the connection") }
    }

    func run(_ sql: String, _ binds: [SQLiteData], _ onRow: (SQLiteRow) throws -> Void) throws {
        guard let db else { throw SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed") }
        var (statement, keep) = try prepared(sql, db)
        let pointer = statement.pointer
        defer {
            sqlite3_reset(pointer)
            sqlite3_clear_bindings(pointer)
            if !keep { sqlite3_finalize(pointer) }
        }
        let parameters = Int(sqlite3_bind_parameter_count(pointer))
        guard parameters == binds.count else {
            throw SQLiteError(code: SQLITE_RANGE, message: "the statement has \(parameters) parameters and \(binds.count) values were bound")
        }
        for (index, value) in binds.enumerated() {
            let status = Self.bind(value, at: Int32(index + 1), pointer)
            guard status == SQLITE_OK else { throw error(status, db) }
        }
        var count = -1
        while true {
            let status = sqlite3_step(pointer)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw error(status, db) }
            if count < 0 {
                // A kept statement whose table changed is prepared again by its first step: its names are
                // read anew when their count has changed.
                count = Int(sqlite3_column_count(pointer))
                if count != statement.columns.names.count {
                    statement.columns = Self.columns(pointer)
                    if keep { statements[sql] = statement }
                }
            }
            var values: [SQLiteData] = []
            values.reserveCapacity(count)
            for column in 0..<Int32(count) { values.append(Self.value(pointer, column)) }
            try onRow(SQLiteRow(columns: statement.columns, values: values))
        }
    }

    private func prepared(_ sql: String, _ db: OpaquePointer) throws -> (Statement, keep: Bool) {
        if let statement = statements[sql] { return (statement, true) }
        var pointer: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let status = sql.withCString { text in
            let status = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, &tail)
            // Only one statement to a call: a second one would be silently left out.
            if status == SQLITE_OK, let tail, !Self.isBlank(tail) { return SQLITE_MISUSE }
            return status
        }
        guard status == SQLITE_OK, let pointer else {
            sqlite3_finalize(pointer)
            if status == SQLITE_MISUSE { throw SQLiteError(code: status, message: "more than one statement in: \(sql)") }
            throw error(status, db)
        }
        let statement = Statement(pointer: pointer, columns: Self.columns(pointer))
        guard sqlite3_bind_parameter_count(pointer) < Self.uncachedParameters else { return (statement, false) }
        if statements.count >= Self.capacity {
            for kept in statements.values { sqlite3_finalize(kept.pointer) }
            statements = [:]
        }
        statements[sql] = statement
        return (statement, true)
    }

    private static func isBlank(_ text: UnsafePointer<CChar>) -> Bool {
        var cursor = text
        while cursor.pointee != 0 {
            guard [0x20, 0x09, 0x0A, 0x0D, 0x3B].contains(cursor.pointee) else { return false }
            cursor += 1
        }
        return true
    }

    private static func columns(_ pointer: OpaquePointer) -> SQLiteColumns {
        SQLiteColumns((0..<sqlite3_column_count(pointer)).map { String(cString: sqlite3_column_name(pointer, $0)) })
    }

    private static func bind(_ value: SQLiteData, at index: Int32, _ pointer: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let value): sqlite3_bind_int64(pointer, index, Int64(value))
        case .float(let value): sqlite3_bind_double(pointer, index, value)
        // The bridged C string is never nil, so an empty string binds '' rather than NULL.
        case .text(let value): sqlite3_bind_text64(pointer, index, value, UInt64(value.utf8.count), transient, UInt8(SQLITE_UTF8))
        // An empty blob's buffer may have no address, which SQLite would bind as NULL.
        case .blob(let bytes) where bytes.isEmpty: sqlite3_bind_zeroblob(pointer, index, 0)
        case .blob(let bytes): bytes.withUnsafeBytes { sqlite3_bind_blob64(pointer, index, $0.baseAddress, UInt64($0.count), transient) }
        case .null: sqlite3_bind_null(pointer, index)
        }
    }

    private static func value(_ pointer: OpaquePointer, _ column: Int32) -> SQLiteData {
        switch sqlite3_column_type(pointer, column) {
        case SQLITE_INTEGER: return .integer(Int(sqlite3_column_int64(pointer, column)))
        case SQLITE_FLOAT: return .float(sqlite3_column_double(pointer, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(pointer, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(pointer, column))), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_column_blob(pointer, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(pointer, column)))))
        default: return .null
        }
    }

    private func error(_ status: Int32, _ db: OpaquePointer) -> SQLiteError {
        SQLiteError(code: status, message: String(cString: sqlite3_errmsg(db)))
    }
}
