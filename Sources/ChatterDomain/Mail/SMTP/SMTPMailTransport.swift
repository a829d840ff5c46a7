import ChatterCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// The production transport: delivers each message to a submission server over SMTP (RFC 5321), with
/// STARTTLS or implicit TLS and AUTH PLAIN/LOGIN. One connection per message: sign-in mail is rare
/// and bursty, and a fresh session needs no keep-alive or reconnect logic.
///
/// Logs carry reply codes and the recipient's domain only: never the password, the AUTH exchange or the
/// message body, which holds the code.
public struct SMTPMailTransport: MailTransport {
    public let configuration: SMTPConfiguration
    private let tls: NIOSSLContext
    private let group: any EventLoopGroup
    private let logger: Logger

    /// Throws for a configuration that can never work (a trust file that does not load, a bad HELO name),
    /// so chatterd fails at start-up instead of at the first sign-in.
    public init(configuration: SMTPConfiguration, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws {
        guard !configuration.heloName.isEmpty, configuration.heloName.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw MailError("invalid SMTP HELO name \"\(configuration.heloName)\"")
        }
        if let envelopeFrom = configuration.envelopeFrom { try MailAddress.validate(envelopeFrom, role: "envelope sender") }
        var tls = ClientTLS.configuration()
        switch configuration.trust {
        case .system: break
        case .caFile(let path): tls.trustRoots = .file(path)
        case .systemAnd(let path): tls.additionalTrustRoots = [.file(path)]
        }
        do {
            self.tls = try NIOSSLContext(configuration: tls)
        } catch {
            throw MailError("cannot set up TLS for SMTP (trust roots \(configuration.trust)): \(error)")
        }
        self.configuration = configuration
        self.group = group
        self.logger = logger
    }

    public func send(_ message: MailMessage) async throws {
        do {
            try await deliver(message)
        } catch {
            logger.warning("mail delivery failed", metadata: ["mail.domain": "\((try? message.recipient.domain) ?? "?")", "error": "\(error)"])
            throw error
        }
    }

    private func deliver(_ message: MailMessage) async throws {
        let sender = try configuration.envelopeFrom ?? message.sender.address
        let recipient = try message.recipient
        let data = try message.rfc5322(date: Date())
        let started = NIODeadline.now()
        let connection = try await SMTPConnection.connect(configuration, tls: tls, group: group)
        let total = configuration.timeouts.total
        let deadline = connection.abort(
            at: started + TimeAmount(total),
            with: MailError("SMTP delivery via \(connection.peer) timed out after \(SMTPConnection.format(total)) in total"))
        do {
            // Cancellation (chatterd shutting down) ends the session at once instead of at the next timeout.
            try await withTaskCancellationHandler {
                try await deliver(over: connection, from: sender, to: recipient, data: Self.dotStuffed(data))
            } onCancel: {
                connection.abort(with: MailError("SMTP delivery via \(connection.peer) was cancelled"))
            }
            deadline.cancel()
            await connection.close()
        } catch {
            deadline.cancel()
            await connection.close()
            throw error
        }
    }

    private func deliver(over connection: SMTPConnection, from sender: String, to recipient: MailAddress, data: ByteBuffer) async throws {
        try await connection.expect(nil, 220)
        var extensions = try await hello(connection)
        if configuration.security == .startTLS {
            guard extensions["STARTTLS"] != nil else {
                throw MailError("SMTP server \(connection.peer) does not offer STARTTLS, which the configuration requires")
            }
            try await connection.expect("STARTTLS", 220)
            try await connection.startTLS(tls, host: configuration.host)
            extensions = try await hello(connection)  // RFC 3207: what was said before TLS no longer counts
        }
        if let credentials = configuration.credentials {
            try await authenticate(connection, credentials, offered: extensions["AUTH"])
        }
        try await connection.expect("MAIL FROM:<\(sender)>", name: "MAIL FROM", 250)
        try await connection.expect("RCPT TO:<\(recipient.address)>", name: "RCPT TO", 250, 251)
        try await connection.expect("DATA", 354)
        let accepted = try await connection.expect(data, name: "the message", [250])
        logger.info("mail delivered", metadata: ["mail.domain": "\(recipient.domain)", "smtp.reply": "\(accepted.code)"])
        // The message is accepted at this point; a failed goodbye changes nothing.
        _ = try? await connection.expect("QUIT", 221)
    }

    /// EHLO, and the extensions the reply lists after its first line: keyword → parameters, upper-cased.
    private func hello(_ connection: SMTPConnection) async throws -> [String: [String]] {
        let reply = try await connection.expect("EHLO \(configuration.heloName)", name: "EHLO", 250)
        let extensions = reply.lines.dropFirst().map { line in
            let words = line.uppercased().split(separator: " ").map(String.init)
            return (words.first ?? "", Array(words.dropFirst()))
        }
        return Dictionary(extensions, uniquingKeysWith: { first, _ in first })
    }

    /// AUTH PLAIN, or LOGIN when the server offers only that. Commands are named without their arguments
    /// (base64 of the credentials) in errors, and none of this is logged.
    private func authenticate(_ connection: SMTPConnection, _ credentials: SMTPConfiguration.Credentials, offered: [String]?) async throws {
        guard let offered else { throw MailError("SMTP server \(connection.peer) does not offer AUTH, but credentials are configured") }
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if offered.contains("PLAIN") {
            let token = base64("\0\(credentials.username)\0\(credentials.password)")
            try await connection.expect("AUTH PLAIN \(token)", name: "AUTH PLAIN", 235)
        } else if offered.contains("LOGIN") {
            try await connection.expect("AUTH LOGIN", 334)
            try await connection.expect(base64(credentials.username), name: "AUTH LOGIN (username)", 334)
            try await connection.expect(base64(credentials.password), name: "AUTH LOGIN (password)", 235)
        } else {
            throw MailError("SMTP server \(connection.peer) offers no AUTH mechanism chatterd supports (PLAIN, LOGIN): \(offered.joined(separator: " "))")
        }
    }

    /// DATA's wire form (RFC 5321 §4.5.2): a line starting with "." gets a second one, so no line of the
    /// message can end the data early; every line ends in CRLF; "." alone ends the data.
    package static func dotStuffed(_ message: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        for line in MailMessage.lines(of: message) {
            if line.first == UInt8(ascii: ".") { buffer.writeInteger(UInt8(ascii: ".")) }
            buffer.writeBytes(line)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString(".\r\n")
        return buffer
    }
}
