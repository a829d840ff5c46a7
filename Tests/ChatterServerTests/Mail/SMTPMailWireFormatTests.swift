import Hummingbird  // for ByteBuffer, which it re-exports from NIOCore
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The SMTP wire format without a server: reply parsing and DATA's dot-stuffing.
@Suite struct SMTPMailWireFormatTests {
    static func parse(_ chunks: [String]) throws -> [SMTPReply] {
        var parser = SMTPReplyParser()
        var replies: [SMTPReply] = []
        for chunk in chunks {
            parser.append(ByteBuffer(string: chunk))
            while let reply = try parser.next() { replies.append(reply) }
        }
        return replies
    }

    @Test func joinsMultiLineRepliesEvenWhenSplitAcrossReads() throws {
        let replies = try Self.parse(["220 mx.example.com ESMTP\r\n250-mx.example.com\r", "\n250-STARTTLS\r\n250-AUTH PL", "AIN LOGIN\n250 8BITMIME\r\n"])
        #expect(
            replies == [
                SMTPReply(code: 220, lines: ["mx.example.com ESMTP"]),
                SMTPReply(code: 250, lines: ["mx.example.com", "STARTTLS", "AUTH PLAIN LOGIN", "8BITMIME"]),
            ])
        #expect(replies[1].summary == "250 mx.example.com STARTTLS AUTH PLAIN LOGIN 8BITMIME")
    }

    /// Found by fuzzing: a longest line was refused when a read ended between its CR and LF.
    @Test func aLongestLineParsesHoweverItIsSplit() throws {
        let line = "250 " + String(repeating: "x", count: SMTPReplyParser.maximumLineLength - 4)
        let whole = try Self.parse([line + "\r\n"])
        #expect(try Self.parse([line + "\r", "\n"]) == whole)
        #expect(whole.first?.lines.first?.count == SMTPReplyParser.maximumLineLength - 4)
        #expect(throws: MailError.self) { try Self.parse([line + "xx\r", "\n"]) }
    }

    @Test func waitsForTheFinalLineAndKeepsTheRest() throws {
        var parser = SMTPReplyParser()
        parser.append(ByteBuffer(string: "250-first\r\n"))
        #expect(try parser.next() == nil)
        #expect(parser.hasUnreadBytes)
        parser.append(ByteBuffer(string: "250 last\r\n354 go"))
        #expect(try parser.next() == SMTPReply(code: 250, lines: ["first", "last"]))
        #expect(try parser.next() == nil)
        #expect(parser.hasUnreadBytes)
    }

    @Test(arguments: ["hello\r\n", "25\r\n", "250*x\r\n", "250-a\r\n251 b\r\n"])
    func refusesMalformedReplies(_ input: String) {
        #expect(throws: MailError.self) { try Self.parse([input]) }
    }

    @Test func refusesALineThatNeverEnds() {
        #expect(throws: MailError.self) { try Self.parse(Array(repeating: String(repeating: "9", count: 1000), count: 5)) }
    }

    @Test func dotStuffingDoublesLeadingDotsAndEndsTheData() {
        let stuffed = SMTPMailTransport.dotStuffed("Subject: x\r\n\r\n.\r\n..two\r\n.lead\r\nmid.dle\r\n")
        #expect(String(buffer: stuffed) == "Subject: x\r\n\r\n..\r\n...two\r\n..lead\r\nmid.dle\r\n.\r\n")
    }
}
