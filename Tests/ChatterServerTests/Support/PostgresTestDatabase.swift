import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The PostgreSQL server `.ci/postgres` starts, named by `CHATTER_TEST_DATABASE_URL`. Each test gets a
/// schema of its own (created empty, dropped afterwards), so tests run in parallel on one database.
/// Without the variable the PostgreSQL runs are skipped, with this reason in the output.
enum PostgresTestDatabase {
    static let url = ProcessInfo.processInfo.environment["CHATTER_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let unavailable: Comment =
        "no test PostgreSQL: run `.ci/postgres && source /tmp/chatter-postgres.env` before `swift test` to add the PostgreSQL runs"
    static let logger = Logger(label: "chatter-test-postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    static func withSchema<T>(_ body: (PostgresLocation) async throws -> T) async throws -> T {
        guard let url else { throw ConfigurationError("CHATTER_TEST_DATABASE_URL is not set") }
        var location = try PostgresLocation(url: url)
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await admin(location, "CREATE SCHEMA \(schema)")
        location.searchPath = schema
        do {
            let value = try await body(location)
            try await admin(location, "DROP SCHEMA \(schema) CASCADE")
            return value
        } catch {
            try? await admin(location, "DROP SCHEMA \(schema) CASCADE")
            throw error
        }
    }

    /// One statement over a connection of its own.
    static func admin(_ location: PostgresLocation, _ sql: String) async throws {
        let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 0, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Runs `body` while `store`'s services (PostgreSQL's pool) run, then stops them and closes the store.
func withRunning<T: Sendable>(_ store: any ChatterStore, _ body: () async throws -> T) async throws -> T {
    try await store.whileRunning(logger: PostgresTestDatabase.logger, body)
}
