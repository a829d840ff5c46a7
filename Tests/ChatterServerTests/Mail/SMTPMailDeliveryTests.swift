import Foundation
import NIOPosix
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Delivery through a real SMTP server (aiosmtpd, started by `.ci/smtp-server`), read back from its maildir.
/// Each test runs on an event loop of its own (`OwnEventLoop`), so a busy cooperative pool cannot hold up its
/// task until the client's timeouts cut off a session the server has answered.
@Suite(.enabled(if: SMTPTestServer.current != nil, SMTPTestServer.unavailable), .tags(.smtp))
struct SMTPMailDeliveryTests {
    let server = SMTPTestServer.current!
    let log = LogCapture()

    func makeTransport(
        port: Int, _ security: SMTPConfiguration.Security, trust: SMTPConfiguration.Trust = .system,
        password: String? = nil, group: MultiThreadedEventLoopGroup
    ) throws -> SMTPMailTransport {
        let credentials = password.map { SMTPConfiguration.Credentials(username: server.user, password: $0) }
        let configuration = SMTPConfiguration(
            host: server.host, port: port, security: security, credentials: credentials, heloName: "chatterd.test",
            trust: trust)
        return try SMTPMailTransport(configuration: configuration, logger: log.logger(), group: group)
    }

    /// A sign-in mail whose subject carries `marker`, so the test can find its own message in the maildir.
    static func codeMail(_ marker: String, to recipient: String = "ada@example.com") -> MailMessage {
        MailMessage(
            from: "Chatter <no-reply@chatter.test>", to: recipient, subject: "Your Chatter sign-in code [\(marker)]",
            body: "Your sign-in code is 482916.\n.\n.leading dot\n..two dots\nIt expires in 10 minutes.\n", code: "482916")
    }

    func expectDelivered(_ marker: String) async throws {
        let mail = try ParsedMail(try await server.message(containing: marker))
        #expect(mail.headers["return-path"] == "<no-reply@chatter.test>")
        #expect(mail.headers["delivered-to"] == "ada@example.com")
        #expect(mail.headers["from"] == "Chatter <no-reply@chatter.test>")
        #expect(mail.headers["to"] == "ada@example.com")
        #expect(mail.headers["subject"] == "Your Chatter sign-in code [\(marker)]")
        // The lone "." and the leading dots arrive as written, so dot-stuffing was applied and undone.
        #expect(mail.body == "Your sign-in code is 482916.\r\n.\r\n.leading dot\r\n..two dots\r\nIt expires in 10 minutes.\r\n")
    }

    func expectNoSecretsLogged() {
        let secrets = [server.password, "482916", "leading dot", Data("\0\(server.user)\0\(server.password)".utf8).base64EncodedString()]
        for secret in secrets { #expect(!log.text.contains(secret), "the log contains \(secret)") }
        #expect(!log.text.contains("ada@example.com"))
    }

    @Test func deliversOverPlaintext() async throws {
        try await OwnEventLoop.run { group in
            let marker = UUID().uuidString
            try await makeTransport(port: server.plainPort, .insecurePlaintext, group: group).send(Self.codeMail(marker))
            try await expectDelivered(marker)
            #expect(log.text.contains("mail delivered mail.domain=example.com smtp.reply=250"))
        }
    }

    @Test func deliversOverSTARTTLSWithAuthPlain() async throws {
        try await OwnEventLoop.run { group in
            let marker = UUID().uuidString
            let transport = try makeTransport(
                port: server.startTLSPort, .startTLS, trust: .systemAnd(certificateFile: server.certificate), password: server.password, group: group)
            try await transport.send(Self.codeMail(marker))
            try await expectDelivered(marker)
            expectNoSecretsLogged()
        }
    }

    @Test func deliversOverImplicitTLSWithAuthLogin() async throws {
        try await OwnEventLoop.run { group in
            // This port offers only AUTH LOGIN, so the client's fallback from PLAIN is what signs in.
            let marker = UUID().uuidString
            let transport = try makeTransport(
                port: server.implicitTLSPort, .implicitTLS, trust: .caFile(server.certificate), password: server.password, group: group)
            try await transport.send(Self.codeMail(marker))
            try await expectDelivered(marker)
            expectNoSecretsLogged()
        }
    }

    @Test func wrongPasswordIsRefusedWith535() async throws {
        try await OwnEventLoop.run { group in
            let transport = try makeTransport(
                port: server.startTLSPort, .startTLS, trust: .systemAnd(certificateFile: server.certificate), password: "wrong password", group: group)
            let error = await #expect(throws: MailError.self) { try await transport.send(Self.codeMail(UUID().uuidString)) }
            #expect(error?.description == "SMTP server refused AUTH PLAIN: 535 5.7.8 Authentication credentials invalid")
            #expect(error?.recipientRefused == false, "the server's own refusal is not the address's")
            #expect(!log.text.contains("wrong password"))
        }
    }

    @Test func rejectedRecipientIsRefusedWith550() async throws {
        try await OwnEventLoop.run { group in
            let transport = try makeTransport(port: server.rejectPort, .insecurePlaintext, group: group)
            let error = await #expect(throws: MailError.self) { try await transport.send(Self.codeMail(UUID().uuidString, to: server.rejectedRecipient)) }
            #expect(error?.description == "SMTP server refused RCPT TO: 550 5.1.1 user unknown")
            #expect(error?.recipientRefused == true, "a 5xx to RCPT TO is the address's fault, which the pages say")
            #expect(log.text.contains("mail delivery failed"))
        }
    }

    @Test func startTLSRequiredButNotOfferedIsAnErrorAndNothingIsSent() async throws {
        try await OwnEventLoop.run { group in
            let marker = UUID().uuidString
            let transport = try makeTransport(port: server.plainPort, .startTLS, group: group)
            let error = await #expect(throws: MailError.self) { try await transport.send(Self.codeMail(marker)) }
            #expect(error?.description == "SMTP server \(server.host):\(server.plainPort) does not offer STARTTLS, which the configuration requires")
            await #expect(throws: (any Error).self) { try await server.message(containing: marker, waiting: .zero) }
        }
    }

    @Test func anUntrustedCertificateIsATLSError() async throws {
        try await OwnEventLoop.run { group in
            let transport = try makeTransport(port: server.startTLSPort, .startTLS, password: server.password, group: group)
            let error = await #expect(throws: MailError.self) { try await transport.send(Self.codeMail(UUID().uuidString)) }
            #expect(error?.description == "TLS with SMTP server \(server.host):\(server.startTLSPort) failed: certificate verify failed")
        }
    }
}
