import ChatterCore
import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL server and database from a `postgres://user:password@host:port/database` URL.
///
/// `?sslmode=disable|prefer|require` chooses TLS (default `prefer`; `require` verifies the certificate),
/// `?host=/run/postgresql` a Unix socket directory, and `?search_path=NAME` the schema chatterd's
/// tables live in.
public struct PostgresLocation: Sendable, Equatable {
    public enum TLSMode: String, Sendable { case disable, prefer, require }

    public var host = "localhost"
    public var port = 5432
    /// A directory holding the server's socket, instead of `host` and `port`.
    public var socketDirectory: String?
    public var username: String
    public var password: String?
    public var database: String?
    public var tls = TLSMode.prefer
    public var searchPath: String?

    public init(url text: String) throws {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw ConfigurationError("\(Self.redacted(text)) is not a postgres:// URL")
        }
        username = url.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = url.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        if let host = url.host, !host.isEmpty { self.host = host }
        if let port = url.port { self.port = port }
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? nil : path
        for item in url.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", let value?):
                guard let mode = TLSMode(rawValue: value) else { throw ConfigurationError("sslmode is disable, prefer or require") }
                tls = mode
            case ("host", let value?) where value.hasPrefix("/"): socketDirectory = value
            case ("search_path", let value?):
                guard value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    throw ConfigurationError("search_path is one schema name (letters, digits, _)")
                }
                searchPath = value
            default: throw ConfigurationError("unknown parameter \(item.name) in the database URL")
            }
        }
    }

    /// The URL with its password replaced, for logs and error messages.
    public var description: String {
        var text = "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database ?? "")"
        if let socketDirectory { text += "?host=\(socketDirectory)" }
        return text
    }

    package static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? "the database URL"
    }

    /// `prefer`, as in libpq, encrypts when the server offers it without checking who the server is;
    /// `require` is the mode that verifies.
    private static var unverified: TLSConfiguration { ClientTLS.configuration(verifying: false) }

    /// Every commit waits for the server's WAL flush, whatever the server's default: an acknowledged
    /// write (a revocation above all) survives a power loss of the database host.
    private var startupParameters: [(String, String)] {
        [("synchronous_commit", "on")] + (searchPath.map { [("search_path", $0)] } ?? [])
    }

    package var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = .init(
                unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: username, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch self.tls {
                case .disable: .disable
                case .prefer: .prefer(Self.unverified)
                case .require: .require(ClientTLS.configuration())
                }
            configuration = .init(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketDirectory {
            configuration = .init(
                unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: username, password: password, database: database)
        } else {
            let tls: PostgresConnection.Configuration.TLS =
                switch self.tls {
                case .disable: .disable
                case .prefer: .prefer(try NIOSSLContext(configuration: Self.unverified))
                case .require: .require(try NIOSSLContext(configuration: ClientTLS.configuration()))
                }
            configuration = .init(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }
}
