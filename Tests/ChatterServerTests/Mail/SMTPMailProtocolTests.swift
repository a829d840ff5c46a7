import Foundation
import Testing

@testable import ChatterServer

/// Protocol cases only a scripted server produces.
@Suite struct SMTPMailProtocolTests {
    static func send(to server: ScriptedSMTPServer, _ security: SMTPConfiguration.Security) async -> MailError? {
        defer { server.stop() }
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", port: server.port, security: security)
        return await #expect(throws: MailError.self) {
            try await SMTPMailTransport(configuration: configuration, logger: LogCapture().logger()).send(SMTPMailFailureTests.mail)
        }
    }

    @Test func aReplyInjectedAfterSTARTTLSIsRefused() async throws {
        let server = try ScriptedSMTPServer(["220 mx ESMTP\r\n", "250-mx\r\n250 STARTTLS\r\n", "220 go ahead\r\n250 injected\r\n"])
        let error = await Self.send(to: server, .startTLS)
        #expect(error?.description == "SMTP server 127.0.0.1:\(server.port) sent unexpected data after agreeing to STARTTLS")
    }

    @Test func aRefusingGreetingIsReported() async throws {
        let server = try ScriptedSMTPServer(["554-mx.example.com no service\r\n554 try later\r\n"])
        let error = await Self.send(to: server, .insecurePlaintext)
        #expect(error?.description == "SMTP server refused the connection: 554 mx.example.com no service try later")
    }

    @Test func credentialsWithoutAUTHOnOfferAreAnError() async throws {
        let server = try ScriptedSMTPServer(["220 mx ESMTP\r\n", "250-mx\r\n250 8BITMIME\r\n"])
        defer { server.stop() }
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", port: server.port, security: .insecurePlaintext,
            credentials: .init(username: "chatterd", password: "secret"))
        let error = await #expect(throws: MailError.self) {
            try await SMTPMailTransport(configuration: configuration, logger: LogCapture().logger()).send(SMTPMailFailureTests.mail)
        }
        #expect(error?.description == "SMTP server 127.0.0.1:\(server.port) does not offer AUTH, but credentials are configured")
    }
}
