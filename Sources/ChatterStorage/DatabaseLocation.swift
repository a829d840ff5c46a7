import ChatterCore
import Foundation
import Logging
import ServiceLifecycle

/// Where chatterd keeps its data: `sqlite:PATH` (the default, one file) or a `postgres://` URL (a
/// server several instances can share).
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    public init(_ text: String) throws {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw ConfigurationError("sqlite: needs a path, such as sqlite:chatterd-data/chatterd.sqlite") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try PostgresLocation(url: text))
        } else {
            throw ConfigurationError("database \(PostgresLocation.redacted(text)) is neither sqlite:PATH nor postgres://…")
        }
    }

    /// Never shows a password.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:" + path
        case .postgres(let location): location.description
        }
    }

    public func open(logger: Logger) async throws -> any ChatterStore {
        switch self {
        case .sqlite(let path): try await SQLiteStore.open(path: path, logger: logger)
        case .postgres(let location): try await PostgresStore.open(location, logger: logger)
        }
    }
}

extension ChatterStore {
    /// Runs `body` while the store's services (PostgreSQL's pool) run, then stops them gracefully and
    /// closes the store: for commands that use the database without serving (`chatterd admin`).
    public func whileRunning<T: Sendable>(logger: Logger, _ body: () async throws -> T) async throws -> T {
        let group = ServiceGroup(services: services, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            if !services.isEmpty { tasks.addTask { try await group.run() } }
            do {
                let value = try await body()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                try await close()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                try? await close()
                throw error
            }
        }
    }
}
