import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation
import Logging
import Metrics
import Prometheus

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve chatterd (the default).",
        discussion: "Every setting is a flag or a CHATTERD_* variable; a flag wins over its variable.\n\n" + ServerConfiguration.settingsHelp)

    /// The settings, parsed against `ServerConfiguration.settings`: the one list of flags and variables.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func resolve() throws -> ServerConfiguration {
        var config = ServerConfiguration()
        try config.apply(environment: ProcessInfo.processInfo.environment, arguments: settings)
        try config.validate()
        return config
    }

    func run() async throws {
        // Before the server's threads allocate: the allocator's settings apply to arenas made afterwards.
        let malloc = MallocTuning.apply(environment: ProcessInfo.processInfo.environment, cores: ProcessInfo.processInfo.activeProcessorCount)
        let config: ServerConfiguration
        do { config = try resolve() } catch let error as ConfigurationError { throw ValidationError(error.description) }
        let level = config.logLevel
        switch config.logFormat {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, logLevel: level) }
        }
        let logger = Logger(label: "chatterd")
        // Each connection is a descriptor: start with all the system allows, and cap connections below it.
        let descriptors = DescriptorLimit.raise()
        logger.info(
            "descriptor limit",
            metadata: [
                "before": "\(descriptors.before)", "now": "\(descriptors.after)",
                "max_connections": "\(config.connections.connectionCap(descriptorLimit: descriptors.after))",
            ])
        if !malloc.isEmpty { logger.debug("allocator", metadata: ["settings": "\(malloc.joined(separator: " "))"]) }
        let metrics = config.metricsEnabled ? PrometheusCollectorRegistry() : nil
        if let metrics { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics)) }

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

        let transport = try PreparedTransport.prepare(config, logger: logger)
        let secondFactorKey: [UInt8]
        let appleSigningKey: AppleSigningKey?
        do {
            secondFactorKey = try await SealingKeyCheck.key(
                at: config.secondFactorKeyFile, create: config.secondFactorKeyPath == nil, store: store, now: Date())
            appleSigningKey = try config.appleSigningKey()
        } catch { throw ValidationError("\(error)") }
        let services = ServerAssembly(
            configuration: config, store: store, mail: try MailTransports.make(config.mail, dataDirectory: config.dataDirectory, logger: logger),
            secondFactorKey: secondFactorKey,
            appleSigningKey: appleSigningKey, logger: logger)
        if config.googleClientIDs.isEmpty {
            logger.warning("no Google client IDs configured: Google sign-in refuses every token until --google-client-id is given")
        }
        if !config.adminRequiresSecondFactor {
            logger.warning("--admin-second-factor off: operators use /admin without a second factor; for development only")
        }
        for problem in config.passkeyProblems {
            logger.warning("passkeys will not work in a browser: \(problem)")
        }
        if config.appleClientIDs.isEmpty {
            logger.notice("no Apple client IDs configured: Sign in with Apple is off until --apple-client-id is given")
        }
        let app = ChatterApp.application(
            configuration: config, services: services, server: transport.server, metrics: metrics,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? config.port
                let banner =
                    ["chatterd listening on \(transport.scheme)://\(config.bindAddress):\(port)", "database: \(store.location)"]
                    + transport.notes
                // Written in one piece and unbuffered, so scripts waiting for the banner see it at once.
                FileHandle.standardOutput.write(Data((banner.joined(separator: "\n") + "\n").utf8))
            },
            logger: logger)
        try await app.runService()
    }
}
