import ArgumentParser
import ChatterServer
import Foundation
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve chatterd (the default). Every option can also be set by the CHATTERD_* variable named in its help.")

    @Option(help: "Data directory: database, development certificate, outbox. [CHATTERD_DATA_DIR, default ./chatterd-data]")
    var dataDir: String?
    @Option(help: "Address to listen on; 0.0.0.0 to reach it from devices. [CHATTERD_BIND, default 127.0.0.1]")
    var bind: String?
    @Option(help: "Port to listen on. [CHATTERD_PORT, default 8443]")
    var port: Int?
    @Option(name: .customLong("host"), help: "A name or IP clients use to reach chatterd, added to the development certificate; repeatable. [CHATTERD_HOSTS, comma-separated]")
    var hosts: [String] = []
    @Flag(help: "Serve plain HTTP (behind a TLS-terminating proxy only). [CHATTERD_HTTP=1]")
    var http = false
    @Option(help: "PEM certificate chain to serve instead of the development certificate. [CHATTERD_TLS_CERT]")
    var tlsCert: String?
    @Option(help: "PEM private key for --tls-cert. [CHATTERD_TLS_KEY]")
    var tlsKey: String?
    @Option(name: .customLong("google-client-id"), help: "An accepted Google OAuth client ID; repeatable. [CHATTERD_GOOGLE_CLIENT_IDS, comma-separated]")
    var googleClientIDs: [String] = []
    @Option(help: "Where Google's signing keys are fetched. [CHATTERD_GOOGLE_JWKS_URL]")
    var googleJwksUrl: String?
    @Option(help: "chatterID lifetime in seconds. [CHATTERD_SESSION_LIFETIME, default 86400]")
    var sessionLifetime: Double?
    @Flag(help: "Enable POST /postchatt, which lets anyone post under any name. [CHATTERD_ALLOW_ANONYMOUS_POSTING=1]")
    var allowAnonymousPosting = false
    @Option(help: "trace, debug, info, notice, warning, error or critical. [CHATTERD_LOG_LEVEL, default info]")
    var logLevel: String?

    func resolve() throws -> ServerConfiguration {
        var config = ServerConfiguration()
        try config.apply(environment: ProcessInfo.processInfo.environment)
        if let dataDir { config.dataDirectory = dataDir }
        if let bind { config.bindAddress = bind }
        if let port { config.port = port }
        if !hosts.isEmpty { config.hostnames = hosts }
        if !googleClientIDs.isEmpty { config.googleClientIDs = googleClientIDs }
        if let googleJwksUrl { config.googleJWKSURL = googleJwksUrl }
        if let sessionLifetime { config.sessionLifetime = sessionLifetime }
        if allowAnonymousPosting { config.allowAnonymousPosting = true }
        if let logLevel {
            guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown log level \(logLevel)") }
            config.logLevel = level
        }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("give both --tls-cert and --tls-key, or neither") }
        if let tlsCert, let tlsKey { config.transport = .tls(certificatePath: tlsCert, keyPath: tlsKey) }
        if http { config.transport = .http }
        try config.validate()
        return config
    }

    func run() async throws {
        let config: ServerConfiguration
        do { config = try resolve() } catch let error as ConfigurationError { throw ValidationError(error.description) }
        let level = config.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "chatterd")

        try FileManager.default.createDirectory(
            atPath: config.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store: SQLiteStore
        do {
            store = try await SQLiteStore.open(path: config.databasePath, logger: logger)
        } catch let error as StoreError {
            FileHandle.standardError.write(Data("chatterd: cannot open \(config.databasePath): \(error)\n".utf8))
            throw ExitCode.failure
        }

        let transport = try PreparedTransport.prepare(config)
        let keys = JWKSCache(source: HTTPJWKSSource(url: config.googleJWKSURL), algorithms: ["RS256"], logger: logger)
        let google = IDTokenVerifier(provider: .google(clientIDs: config.googleClientIDs), keys: keys)
        if config.googleClientIDs.isEmpty {
            logger.warning("no Google client IDs configured: /adduser will refuse every token until --google-client-id is given")
        }
        let app = ChatterApp.application(
            configuration: config, parts: .init(store: store, google: google), server: transport.server,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? config.port
                let banner = ["chatterd listening on \(transport.scheme)://\(config.bindAddress):\(port)", "database: \(config.databasePath)"]
                    + transport.notes
                // Written in one piece and unbuffered, so scripts waiting for the banner see it at once.
                FileHandle.standardOutput.write(Data((banner.joined(separator: "\n") + "\n").utf8))
            },
            logger: logger)
        try await app.runService()
    }
}
