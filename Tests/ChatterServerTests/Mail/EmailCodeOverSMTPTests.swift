import ChatterWire
import Foundation
import NIOPosix
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The whole email-code sign-in through chatterd and a real SMTP server: the test reads the code from
/// the delivered message, as a user would. On an event loop of its own (`OwnEventLoop`), with chatterd's
/// request handling, so that a busy cooperative pool cannot hold up the delivery until its timeouts.
@Suite(.enabled(if: SMTPTestServer.current != nil, SMTPTestServer.unavailable), .tags(.smtp))
struct EmailCodeOverSMTPTests {
    let server = SMTPTestServer.current!

    @Test func codeArrivesByMailAndSignsIn() async throws {
        try await OwnEventLoop.run { group in
            let transport = try SMTPMailTransport(
                configuration: SMTPConfiguration(
                    host: server.host, port: server.startTLSPort, security: .startTLS,
                    credentials: .init(username: server.user, password: server.password), heloName: "chatterd.test",
                    trust: .systemAnd(certificateFile: server.certificate)),
                logger: .init(label: "smtp-e2e"), group: group)
            let address = "e2e-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await Harness.run(mailTransport: transport) { h async throws in
                let asked = try await h.post(NativePath.emailCode, EmailCodeRequest(email: address))
                #expect(asked.status == .accepted)
                let mail = try ParsedMail(try await server.message(containing: address))
                #expect(mail.headers["to"] == address)
                let code = try #require(mail.body.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }.map(String.init))
                let verified = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: address, code: code))
                #expect(verified.status == .ok)
                #expect(try h.decode(SessionResponse.self, verified).user.email == address)
            }
        }
    }

    /// The sign-in page over a real mail server that refuses the address (550 to RCPT TO): the page says the
    /// address was refused and keeps it for correcting, instead of "we sent a code".
    @Test func anAddressTheMailServerRefusesIsShownAsRefused() async throws {
        try await OwnEventLoop.run { group in
            let transport = try SMTPMailTransport(
                configuration: SMTPConfiguration(
                    host: server.host, port: server.rejectPort, security: .insecurePlaintext, heloName: "chatterd.test"),
                logger: .init(label: "smtp-refused"), group: group)
            try await Harness.run(mailTransport: transport) { h async throws in
                var browser = WebBrowser(h)
                _ = try await browser.get("/auth")
                let refused = try await browser.post("/auth/code", [("purpose", "signin"), ("email", server.rejectedRecipient)])
                #expect(refused.status == .seeOther && refused.headers[.location] == "/auth")
                let page = WebBrowser.text(try await browser.get("/auth"))
                #expect(page.contains("refused it, so no code was sent"))
                #expect(page.contains("value=\"\(server.rejectedRecipient)\""), "the address stays, to be corrected")
                #expect(browser.cookies[WebVisitor.pendingCookieName] == nil, "no code step waits for a code that was not sent")
            }
        }
    }
}
