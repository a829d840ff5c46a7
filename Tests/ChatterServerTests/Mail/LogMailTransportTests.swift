import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

@Suite struct LogMailTransportTests {
    static let message = MailMessage(
        from: "no-reply@chatter.test", to: "ada@example.com", subject: "Your Chatter sign-in code",
        body: "Your sign-in code is 123456.\n\nIt expires in 10 minutes.\n", code: "123456")

    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test func logsTheCodeVisiblyAndSavesAPrivateEMLFile() async throws {
        try await withTemporaryDirectory { dir in
            let outbox = dir + "/mail/outbox"
            let log = LogCapture()
            let clock = TestClock()
            let transport = try LogMailTransport(outbox: outbox, logger: log.logger(), now: clock.function)
            try await transport.send(Self.message)

            #expect(log.text.contains(">>> sign-in code for a***@example.com: 123456 <<<"))
            #expect(!log.text.contains("ada@example.com"), "the log names the recipient only in redacted form")
            let files = try FileManager.default.contentsOfDirectory(atPath: outbox)
            try #require(files.count == 1)
            let path = outbox + "/" + files[0]
            #expect(files[0] == "20270115T080000.000Z-\(files[0].dropFirst(21).prefix(8)).eml")
            #expect(log.text.contains(path), "the log says where the message is")
            #expect(try Self.mode(outbox) == 0o700)
            #expect(try Self.mode(path) == 0o600)

            let raw = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!raw.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
            let mail = try ParsedMail(raw)
            #expect(mail.headers["from"] == "no-reply@chatter.test")
            #expect(mail.headers["to"] == "ada@example.com")
            #expect(mail.headers["subject"] == "Your Chatter sign-in code")
            #expect(mail.headers["date"] == "Fri, 15 Jan 2027 08:00:00 +0000")
            let messageID = try #require(mail.headers["message-id"])
            #expect(messageID.hasPrefix("<") && messageID.hasSuffix("@chatter.test>"))
            #expect(mail.headers["mime-version"] == "1.0")
            #expect(mail.headers["content-type"] == "text/plain; charset=utf-8")
            #expect(mail.headers["content-transfer-encoding"] == "7bit")
            #expect(mail.body == "Your sign-in code is 123456.\r\n\r\nIt expires in 10 minutes.\r\n")
        }
    }

    @Test func fileNamesSortInTheOrderMessagesWereSent() async throws {
        try await withTemporaryDirectory { dir in
            let clock = TestClock()
            let transport = try LogMailTransport(outbox: dir + "/outbox", logger: LogCapture().logger(), now: clock.function)
            // Across a second, a minute and a day boundary, where a badly chosen format would sort wrongly.
            for (index, step) in [0.0, 0.999, 0.002, 59, 86_400].enumerated() {
                clock.advance(by: step)
                var message = Self.message
                message.subject = "message \(index)"
                try await transport.send(message)
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/outbox").sorted()
            let subjects = try names.map { try ParsedMail(String(contentsOfFile: dir + "/outbox/" + $0, encoding: .utf8)).headers["subject"] }
            #expect(subjects == (0..<5).map { "message \($0)" })
        }
    }

    @Test func leavesAnExistingOutboxAloneButWarnsWhenOthersCanReadIt() async throws {
        try await withTemporaryDirectory { dir in
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
            let log = LogCapture()
            _ = try LogMailTransport(outbox: dir, logger: log.logger())
            #expect(try Self.mode(dir) == 0o755)
            #expect(log.text.contains("readable by other users"))
        }
    }

    @Test func refusesAMessageThatWouldInjectHeadersAndWritesNothing() async throws {
        try await withTemporaryDirectory { dir in
            let transport = try LogMailTransport(outbox: dir + "/outbox", logger: LogCapture().logger())
            var message = Self.message
            message.to = "ada@example.com\r\nBcc: eve@example.net"
            await #expect(throws: MailError.self) { try await transport.send(message) }
            message = Self.message
            message.subject = "Hello\nBcc: eve@example.net"
            await #expect(throws: MailError.self) { try await transport.send(message) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/outbox").isEmpty)
        }
    }
}
