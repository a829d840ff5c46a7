import AsyncHTTPClient
import ChatterTestSupport
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// The TLS listener chatterd serves (`PreparedTransport`) negotiates TLS 1.2 and 1.3 only: RFC 8996
/// forbids 1.0 and 1.1, which SwiftNIO SSL's server default still accepts.
@Suite struct TLSVersionTests {
    @Test func theListenerRefusesTLS1_0And1_1AndAcceptsTLS1_2And1_3() async throws {
        try await withTemporaryDirectory { dir in
            var config = ServerConfiguration()
            config.dataDirectory = dir
            try await Self.serve(try PreparedTransport.prepare(config).server) { port in
                for version in [TLSVersion.tlsv1, .tlsv11, .tlsv12, .tlsv13] {
                    let answered = try await Self.handshake(port: port, version: version)
                    #expect(answered == (version == .tlsv12 || version == .tlsv13), "\(version)")
                }
            }
            // The control: the same configuration with SwiftNIO SSL's default minimum answers this client's
            // TLS 1.0 and 1.1, so the refusals above are the listener's, not the client's.
            let files = try DevelopmentCertificate.ensure(in: dir, names: [])
            var defaults = try PreparedTransport.tlsConfiguration(certificatePath: files.certificatePath, keyPath: files.keyPath)
            defaults.minimumTLSVersion = .tlsv1  // SwiftNIO SSL's server default
            try await Self.serve(try .tls(.http1(), tlsConfiguration: defaults)) { port in
                for version in [TLSVersion.tlsv1, .tlsv11] {
                    let answered = try await Self.handshake(port: port, version: version)
                    #expect(answered, "\(version) with the default minimum")
                }
            }
        }
    }

    /// Every connection chatterd opens (the providers, Apple, PostgreSQL, SMTP) offers TLS 1.2 at least:
    /// against a server that speaks 1.0 and 1.1 only, its clients fail the handshake, where SwiftNIO SSL's
    /// default client completes it.
    @Test func chatterdsClientsRefuseAServerThatSpeaksOnlyTLS1_1() async throws {
        try await withTemporaryDirectory { dir in
            let files = try DevelopmentCertificate.ensure(in: dir, names: [])
            var old = try PreparedTransport.tlsConfiguration(certificatePath: files.certificatePath, keyPath: files.keyPath)
            old.minimumTLSVersion = .tlsv1
            old.maximumTLSVersion = .tlsv11
            try await Self.serve(try .tls(.http1(), tlsConfiguration: old)) { port in
                let control = try await Self.handshake(port: port, tls: .makeClientConfiguration())
                #expect(control, "the control: SwiftNIO SSL's default client accepts 1.1")
                let verifying = try await Self.handshake(port: port, tls: ClientTLS.configuration())
                #expect(!verifying, "chatterd's verifying client")
                let preferring = try await Self.handshake(port: port, tls: ClientTLS.configuration(verifying: false))
                #expect(!preferring, "PostgreSQL's sslmode=prefer")
                let fetched = try await Self.fetch(port: port)
                #expect(!fetched, "OutboundHTTP's client")
            }
            var current = ServerConfiguration()
            current.dataDirectory = dir
            try await Self.serve(try PreparedTransport.prepare(current).server) { port in
                let connected = try await Self.handshake(port: port, tls: ClientTLS.configuration(verifying: false))
                #expect(connected, "TLS 1.2 and 1.3 still connect")
                let fetched = try await Self.fetch(port: port)
                #expect(fetched, "OutboundHTTP's client, on a current server")
            }
        }
    }

    /// `chatter` offers TLS 1.2 at least too: against a server that speaks only 1.0 and 1.1 it fails the
    /// handshake, where against a current one (trusting the same certificate) it gets an HTTP answer.
    @Test func theChatterClientRefusesAServerThatSpeaksOnlyTLS1_1() async throws {
        #if os(Linux)
            let chatter = builtProduct("chatter")
            guard FileManager.default.isExecutableFile(atPath: chatter) else {
                Issue.record("no chatter beside the test runner at \(chatter)")
                return
            }
            try await withTemporaryDirectory { dir in
                let files = try DevelopmentCertificate.ensure(in: dir, names: [])
                func run(_ port: Int) async throws -> String {
                    let outcome = try await ChildProcess.run(
                        "/usr/bin/env", ["HOME=\(dir)", chatter, "chatts", "--server", "https://127.0.0.1:\(port)", "--cert", files.certificatePath],
                        timeout: .seconds(60))
                    // The temporary directory's random name is left out: it may hold "404" or "TLS" by chance.
                    return String(decoding: outcome.output + outcome.error, as: UTF8.self).replacingOccurrences(of: dir, with: "$HOME")
                }
                var old = try PreparedTransport.tlsConfiguration(certificatePath: files.certificatePath, keyPath: files.keyPath)
                old.minimumTLSVersion = .tlsv1
                old.maximumTLSVersion = .tlsv11
                try await Self.serve(try .tls(.http1(), tlsConfiguration: old)) { port in
                    let refused = try await run(port)
                    #expect(refused.contains("SSL") || refused.contains("TLS") || refused.contains("handshake"), "\(refused)")
                    #expect(!refused.contains("404"), "\(refused)")
                }
                let current = try PreparedTransport.tlsConfiguration(certificatePath: files.certificatePath, keyPath: files.keyPath)
                try await Self.serve(try .tls(.http1(), tlsConfiguration: current)) { port in
                    let answered = try await run(port)
                    #expect(answered.contains("404") || answered.lowercased().contains("not found"), "past TLS, an HTTP answer: \(answered)")
                }
            }
        #endif
    }

    /// Whether `OutboundHTTP`'s client configuration (its certificate check aside) gets `/health` from `port`.
    static func fetch(port: Int) async throws -> Bool {
        var configuration = OutboundHTTP.configuration
        configuration.tlsConfiguration?.certificateVerification = .none
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let answered: Bool
        do {
            answered = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(port)/health"), timeout: .seconds(30)).status == .ok
        } catch {
            answered = false
        }
        try await client.shutdown()
        return answered
    }

    /// `server` answering `GET /health` on a loopback port for the length of `body`.
    static func serve(_ server: HTTPServerBuilder, _ body: (_ port: Int) async throws -> Void) async throws {
        var logger = Logger(label: "tls-version-test")
        logger.logLevel = .critical
        let router = Router()
        router.get("health") { _, _ in "ok" }
        try await LiveService.run(
            logger: logger,
            { onServerRunning in
                Application(
                    router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning,
                    logger: logger)
            }, body)
    }

    /// Whether a client offering `version` alone completes a handshake with the listener on `port` and gets
    /// an answer to `GET /health` through it.
    static func handshake(port: Int, version: TLSVersion) async throws -> Bool {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = version
        tls.maximumTLSVersion = version
        return try await handshake(port: port, tls: tls)
    }

    /// Whether a client with `tls` completes a handshake and gets an answer to `GET /health`.
    static func handshake(port: Int, tls: TLSConfiguration) async throws -> Bool {
        var tls = tls
        tls.certificateVerification = .none  // the development certificate; only the version is under test
        let context = try NIOSSLContext(configuration: tls)
        let group = MultiThreadedEventLoopGroup.singleton
        let outcome = group.next().makePromise(of: Bool.self)
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                    try channel.pipeline.syncOperations.addHandler(HealthExchange(outcome: outcome))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        // Neither an answer nor a closed connection within a minute is a failure of its own, not a refusal.
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(60)) { outcome.fail(TimedOut()) }
        defer { timeout.cancel() }
        let answered = try await outcome.futureResult.get()
        try? await channel.close()
        return answered
    }

    struct TimedOut: Error {}

    /// Asks for `/health` once the channel is active (the TLS handler holds the bytes until its handshake
    /// ends); succeeds `outcome` with true on a 200, false on an error or a connection closed without one.
    final class HealthExchange: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let outcome: EventLoopPromise<Bool>
        var received = ""
        init(outcome: EventLoopPromise<Bool>) { self.outcome = outcome }

        func channelActive(context: ChannelHandlerContext) {
            let request = ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            context.writeAndFlush(wrapOutboundOut(request), promise: nil)
            context.fireChannelActive()
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += String(buffer: unwrapInboundIn(data))
            if received.hasPrefix("HTTP/1.1 200") { outcome.succeed(true) }
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            outcome.succeed(false)
            context.close(promise: nil)
        }
        func channelInactive(context: ChannelHandlerContext) {
            outcome.succeed(false)
            context.fireChannelInactive()
        }
    }
}
