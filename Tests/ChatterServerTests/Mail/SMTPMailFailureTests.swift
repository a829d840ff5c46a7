import Foundation
import NIOPosix
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Failures that need no SMTP server: nothing listening, a server that never answers, bad settings.
///
/// In the timeout tests the competing timers are set far off, so the message that comes back proves which
/// one fired. Each runs on an event loop of its own (`OwnEventLoop`), so a busy cooperative pool cannot hold
/// up its task past those timers; the elapsed-time bounds are still loose, as a loaded 2-core machine can
/// be slow to schedule any thread.
@Suite struct SMTPMailFailureTests {
    static let slack = Duration.seconds(20)
    /// Far beyond any test here: the timer a test is not about.
    static let never = Duration.seconds(600)

    static func transport(
        port: Int, command: Duration = never, total: Duration = never, group: MultiThreadedEventLoopGroup
    ) throws -> SMTPMailTransport {
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", port: port, security: .insecurePlaintext,
            timeouts: .init(connect: .seconds(5), command: command, total: total))
        return try SMTPMailTransport(configuration: configuration, logger: LogCapture().logger(), group: group)
    }

    static let mail = MailMessage(from: "no-reply@chatter.test", to: "ada@example.com", subject: "s", body: "b")

    @Test func nothingListeningIsAConnectionError() async throws {
        // Bound but not listening: refused, and kept from any other test's listener until the end.
        let listener = try SilentListener(listening: false)
        defer { listener.close() }
        try await OwnEventLoop.run { group in
            let transport = try Self.transport(port: listener.port, group: group)
            let error = await #expect(throws: MailError.self) { try await transport.send(Self.mail) }
            #expect(error?.description == "could not connect to SMTP server 127.0.0.1:\(listener.port): Connection refused")
        }
    }

    @Test func aServerThatNeverAnswersTimesOutWithinTheCommandTimeout() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        try await OwnEventLoop.run { group in
            let started = ContinuousClock.now
            let transport = try Self.transport(port: listener.port, command: .seconds(1), group: group)
            let error = await #expect(throws: MailError.self) { try await transport.send(Self.mail) }
            #expect(error?.description == "timed out after 1s waiting for SMTP server 127.0.0.1:\(listener.port) to answer the connection")
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(ContinuousClock.now - started < .seconds(1) + Self.slack)
        }
    }

    @Test func theTotalTimeoutCutsOffEvenWhileACommandIsWithinItsOwn() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        try await OwnEventLoop.run { group in
            let started = ContinuousClock.now
            let transport = try Self.transport(port: listener.port, total: .milliseconds(800), group: group)
            let error = await #expect(throws: MailError.self) { try await transport.send(Self.mail) }
            #expect(error?.description == "SMTP delivery via 127.0.0.1:\(listener.port) timed out after 800ms in total")
            #expect(ContinuousClock.now - started >= .milliseconds(800))
            #expect(ContinuousClock.now - started < .milliseconds(800) + Self.slack)
        }
    }

    @Test func cancellingTheTaskEndsTheSessionAtOnce() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        try await OwnEventLoop.run { group in
            let transport = try Self.transport(port: listener.port, group: group)
            let started = ContinuousClock.now
            // A child task rather than `Task {}`, so that the delivery runs on this test's loop too.
            let error = await withTaskGroup(of: MailError?.self) { deliveries in
                deliveries.addTask { await #expect(throws: MailError.self) { try await transport.send(Self.mail) } }
                try? await Task.sleep(for: .milliseconds(300))
                deliveries.cancelAll()
                return await deliveries.next() ?? nil
            }
            #expect(error?.description == "SMTP delivery via 127.0.0.1:\(listener.port) was cancelled")
            #expect(ContinuousClock.now - started < Self.slack)
        }
    }

    @Test func aTrustFileThatDoesNotLoadFailsAtStartUp() {
        let configuration = SMTPConfiguration(host: "mail.example.com", trust: .caFile("/nonexistent/ca.pem"))
        #expect(throws: MailError.self) { try SMTPMailTransport(configuration: configuration, logger: LogCapture().logger()) }
    }

    @Test func credentialsNeverPrintTheirPassword() {
        let credentials = SMTPConfiguration.Credentials(username: "chatterd", password: "hunter2")
        let configuration = SMTPConfiguration(host: "mail.example.com", credentials: credentials)
        #expect(!"\(configuration)".contains("hunter2"))
        #expect(!String(reflecting: configuration).contains("hunter2"))
        #expect(configuration.port == 587)
    }
}

@Suite struct SMTPMailConfigurationTests {
    @Test func urlsNameSecurityPortAndPercentDecodedCredentials() throws {
        let startTLS = try SMTPConfiguration(url: "smtp://chatterd%40example.com:p%40ss%3Aword@mail.example.com")
        #expect(startTLS.security == .startTLS && startTLS.host == "mail.example.com" && startTLS.port == 587)
        #expect(startTLS.credentials?.username == "chatterd@example.com")
        #expect(startTLS.credentials?.password == "p@ss:word")
        let implicit = try SMTPConfiguration(url: "smtps://mail.example.com")
        #expect(implicit.security == .implicitTLS && implicit.port == 465 && implicit.credentials == nil)
        let local = try SMTPConfiguration(url: "smtp+insecure://127.0.0.1:1025")
        #expect(local.security == .insecurePlaintext && local.port == 1025)
    }

    @Test(arguments: ["http://user:hunter2@mail.example.com", "smtp://user:hunter2@", "smtp://user:hunter2@mail.example.com/path", "hunter2"])
    func badURLsAreRefusedWithoutRepeatingThePassword(_ url: String) {
        let error = #expect(throws: MailError.self) { try SMTPConfiguration(url: url) }
        #expect(error?.description.contains("hunter2") == false)
    }
}
