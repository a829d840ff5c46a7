import ArgumentParser
import ChatterServer
import Foundation
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve chatterd (the default). Every option can also be set by the CHATTERD_* variable named in its help.")

    @Option(help: "Data directory: database, development certificate, outbox. [CHATTERD_DATA_DIR, default ./chatterd-data]")
    var dataDir: String?
    @Option(help: "sqlite:PATH or postgres://user:password@host:5432/database (several instances may share one PostgreSQL database). [CHATTERD_DATABASE_URL, default sqlite:DATA_DIR/chatterd.sqlite]")
    var database: String?
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
    @Option(help: "How Google tokens carry the nonce: sha256 (hex of SHA-256 of the raw nonce) or raw. [CHATTERD_GOOGLE_NONCE, default sha256]")
    var googleNonce: String?
    @Option(name: .customLong("apple-client-id"), help: "An accepted Sign in with Apple audience (bundle ID or Services ID); repeatable. [CHATTERD_APPLE_CLIENT_IDS, comma-separated]")
    var appleClientIDs: [String] = []
    @Option(help: "Where Apple's signing keys are fetched. [CHATTERD_APPLE_JWKS_URL]")
    var appleJwksUrl: String?
    @Option(help: "Access token lifetime in seconds. [CHATTERD_ACCESS_LIFETIME, default 900]")
    var accessLifetime: Double?
    @Option(help: "A session ends when not refreshed for this many seconds. [CHATTERD_SESSION_IDLE, default 2592000]")
    var sessionIdle: Double?
    @Option(help: "A session ends this many seconds after sign-in. [CHATTERD_SESSION_ABSOLUTE, default 7776000]")
    var sessionAbsolute: Double?
    @Option(help: "Minimum password length in characters. [CHATTERD_MIN_PASSWORD_LENGTH, default 8]")
    var minPasswordLength: Int?
    @Option(help: "bcrypt cost (12 or more in production). [CHATTERD_BCRYPT_COST, default 12]")
    var bcryptCost: UInt8?
    @Option(help: "Mail transport: log, or smtp://user:password@host:587 (STARTTLS) / smtps://…:465. [CHATTERD_MAIL, default log]")
    var mail: String?
    @Option(help: "From address of the mail chatterd sends. [CHATTERD_MAIL_FROM]")
    var mailFrom: String?
    @Option(name: .customLong("trusted-proxy"), help: "A proxy (address or CIDR range) whose X-Forwarded-For/Forwarded header names the client; repeatable. [CHATTERD_TRUSTED_PROXIES, comma-separated]")
    var trustedProxies: [String] = []
    @Option(help: "Google OAuth web client ID for the \"Sign in with Google\" button on /auth. [CHATTERD_GOOGLE_WEB_CLIENT_ID]")
    var googleWebClientId: String?
    @Option(name: .customLong("web-frame-ancestor"), help: "An origin allowed to frame the web pages (an app's own web origin); repeatable. [CHATTERD_WEB_FRAME_ANCESTORS, comma-separated]")
    var webFrameAncestors: [String] = []

    func resolve() throws -> ServerConfiguration {
        var config = ServerConfiguration()
        try config.apply(environment: ProcessInfo.processInfo.environment)
        if let dataDir { config.dataDirectory = dataDir }
        if let database { config.database = database }
        if let bind { config.bindAddress = bind }
        if let port { config.port = port }
        if !hosts.isEmpty { config.hostnames = hosts }
        if !googleClientIDs.isEmpty { config.googleClientIDs = googleClientIDs }
        if let googleJwksUrl { config.googleJWKSURL = googleJwksUrl }
        if let sessionLifetime { config.sessionLifetime = sessionLifetime }
        if allowAnonymousPosting { config.allowAnonymousPosting = true }
        if let googleNonce {
            guard let form = IdentityProvider.NonceForm(rawValue: googleNonce) else { throw ValidationError("--google-nonce is sha256 or raw") }
            config.googleNonce = form
        }
        if !appleClientIDs.isEmpty { config.appleClientIDs = appleClientIDs }
        if let appleJwksUrl { config.appleJWKSURL = appleJwksUrl }
        if let accessLifetime { config.lifetimes.access = accessLifetime }
        if let sessionIdle { config.lifetimes.idle = sessionIdle }
        if let sessionAbsolute { config.lifetimes.absolute = sessionAbsolute }
        if let minPasswordLength { config.minimumPasswordLength = minPasswordLength }
        if let bcryptCost { config.bcryptCost = bcryptCost }
        if let mail { config.mail = mail }
        if let mailFrom { config.mailFrom = mailFrom }
        if !trustedProxies.isEmpty { config.trustedProxies = trustedProxies }
        if let googleWebClientId { config.googleWebClientID = googleWebClientId }
        if !webFrameAncestors.isEmpty { config.webFrameAncestors = webFrameAncestors }
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
        let location = try config.databaseLocation()
        let store: any ChatterStore
        do {
            store = try await location.open(logger: logger)
        } catch {
            FileHandle.standardError.write(Data("chatterd: cannot open \(location): \(String(reflecting: error))\n".utf8))
            throw ExitCode.failure
        }

        let transport = try PreparedTransport.prepare(config)
        let services = ChatterServices(configuration: config, store: store, mail: try MailTransports.make(config, logger: logger), logger: logger)
        if config.googleClientIDs.isEmpty {
            logger.warning("no Google client IDs configured: Google sign-in refuses every token until --google-client-id is given")
        }
        if config.appleClientIDs.isEmpty {
            logger.notice("no Apple client IDs configured: Sign in with Apple is off until --apple-client-id is given")
        }
        let app = ChatterApp.application(
            configuration: config, services: services, server: transport.server,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? config.port
                let banner = ["chatterd listening on \(transport.scheme)://\(config.bindAddress):\(port)", "database: \(store.location)"]
                    + transport.notes
                // Written in one piece and unbuffered, so scripts waiting for the banner see it at once.
                FileHandle.standardOutput.write(Data((banner.joined(separator: "\n") + "\n").utf8))
            },
            logger: logger)
        try await app.runService()
    }
}
