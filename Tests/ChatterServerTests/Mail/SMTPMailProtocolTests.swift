import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Protocol cases only a scripted server produces.
///
/// Each test has a server of its own, on its own port, for one connection, and checks both sides: the error
/// the client reports and what the server received. No timer decides the outcome: the client runs on an event
/// loop of its own (`OwnEventLoop`), and its timeouts are far longer than these few loopback exchanges take
/// even on a loaded machine, yet short enough that a client that hangs fails the test within seconds, its
/// command timeout saying which reply it was waiting for (the server's patience is longer, so the client's
/// error is the one reported).
@Suite struct SMTPMailProtocolTests {
    static let timeouts = SMTPConfiguration.Timeouts(connect: .seconds(10), command: .seconds(10), total: .seconds(30))

    /// Sends the test mail through `server`; returns the error the client reported and what the server saw.
    static func send(
        to server: ScriptedSMTPServer, _ security: SMTPConfiguration.Security, credentials: SMTPConfiguration.Credentials? = nil
    ) async -> (MailError?, ScriptedSMTPServer.Transcript) {
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", port: server.port, security: security, credentials: credentials, timeouts: timeouts)
        return await OwnEventLoop.run { group in
            let error = await #expect(throws: MailError.self) {
                try await SMTPMailTransport(configuration: configuration, logger: LogCapture().logger(), group: group)
                    .send(SMTPMailFailureTests.mail)
            }
            let transcript = await server.finish()
            #expect(transcript.ending == .clientHungUp, "the scripted server on port \(server.port) saw: \(transcript)")
            return (error, transcript)
        }
    }

    @Test func aReplyInjectedAfterSTARTTLSIsRefused() async throws {
        // The "250" goes out in the same write as the "220": one small segment on loopback, which the client reads
        // whole, so the "250" is in its buffer when TLS would start. (Were it to arrive later, it would go into
        // TLS: see the next test.)
        let server = try ScriptedSMTPServer(["220 mx ESMTP\r\n", "250-mx\r\n250 STARTTLS\r\n", "220 go ahead\r\n250 injected\r\n"])
        let (error, transcript) = await Self.send(to: server, .startTLS)
        #expect(error?.description == "SMTP server 127.0.0.1:\(server.port) sent unexpected data after agreeing to STARTTLS")
        // Refused before any TLS: no ClientHello, no second EHLO.
        #expect(transcript.text == "EHLO localhost\r\nSTARTTLS\r\n")
    }

    @Test func aReplyInjectedOnceTLSHasStartedFailsTheHandshake() async throws {
        // The same injection arriving later, after the client has put TLS in place (the server waits for its
        // ClientHello): the plaintext is read as a TLS record and fails the handshake, so it can never pass
        // for the reply to the EHLO sent over TLS.
        let server = try ScriptedSMTPServer(steps: [
            .reply("220 mx ESMTP\r\n"), .line, .reply("250-mx\r\n250 STARTTLS\r\n"), .line, .reply("220 go ahead\r\n"),
            .bytes, .reply("250 injected\r\n"),
        ])
        let (error, transcript) = await Self.send(to: server, .startTLS)
        // BoringSSL reads "250 " as a record header and reports "wrong version number"; its wording is not the point.
        let description = error?.description ?? ""
        #expect(description.hasPrefix("TLS with SMTP server 127.0.0.1:\(server.port) failed: "), "\(description)")
        #expect(transcript.received.starts(with: Array("EHLO localhost\r\nSTARTTLS\r\n\u{16}".utf8)), "a TLS handshake record after STARTTLS")
    }

    @Test func aRefusingGreetingIsReported() async throws {
        let server = try ScriptedSMTPServer(["554-mx.example.com no service\r\n554 try later\r\n"])
        let (error, transcript) = await Self.send(to: server, .insecurePlaintext)
        #expect(error?.description == "SMTP server refused the connection: 554 mx.example.com no service try later")
        #expect(transcript.text == "")
    }

    @Test func credentialsWithoutAUTHOnOfferAreAnError() async throws {
        let server = try ScriptedSMTPServer(["220 mx ESMTP\r\n", "250-mx\r\n250 8BITMIME\r\n"])
        let (error, transcript) = await Self.send(
            to: server, .insecurePlaintext, credentials: .init(username: "chatterd", password: "secret"))
        #expect(error?.description == "SMTP server 127.0.0.1:\(server.port) does not offer AUTH, but credentials are configured")
        // The credentials never went out.
        #expect(transcript.text == "EHLO localhost\r\n")
    }
}
