import ChatterCore
import NIOCore

/// One SMTP reply (RFC 5321 §4.2): a three-digit code and one or more lines of text.
package struct SMTPReply: Sendable, Equatable {
    package var code: Int
    package var lines: [String]

    package var isPositive: Bool { (200..<400).contains(code) }
    /// `550 5.1.1 user unknown`, for error messages; continuation lines are joined with spaces.
    package var summary: String { ([String(code)] + lines.filter { !$0.isEmpty }).joined(separator: " ") }
}

/// Turns the bytes a server sends into replies, joining `250-` continuation lines with the final
/// `250 ` line. Accepts a bare LF as a line end, as many servers and RFC 5321 §2.3.8 tolerate.
package struct SMTPReplyParser {
    /// RFC 5321 allows 512-byte reply lines; a little slack, but a server cannot make us buffer without end.
    package static let maximumLineLength = 4096
    package static let maximumLines = 100

    private var buffer = ByteBuffer()
    /// How many unread bytes are known to hold no LF. A server that sends a long line a byte at a
    /// time would otherwise have every byte searched again at each arrival (quadratic).
    private var searched = 0
    private var pending: (code: Int, lines: [String])?

    /// True when bytes have arrived that no complete reply has used yet.
    package var hasUnreadBytes: Bool { buffer.readableBytes > 0 || pending != nil }

    package mutating func append(_ bytes: ByteBuffer) {
        var bytes = bytes
        buffer.writeBuffer(&bytes)
    }

    /// The next complete reply, or nil until more bytes arrive.
    package mutating func next() throws(MailError) -> SMTPReply? {
        while let newline = buffer.readableBytesView.dropFirst(searched).firstIndex(of: UInt8(ascii: "\n")) {
            var line = buffer.readBytes(length: newline - buffer.readerIndex + 1) ?? []
            searched = 0
            line.removeLast()
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if let reply = try take(line) { return reply }
        }
        // Once per batch, not per line: moving the rest down after each of many lines is quadratic too.
        buffer.discardReadBytes()
        searched = buffer.readableBytes
        // One byte more than a line: the CR of a longest line whose LF has not arrived yet.
        if buffer.readableBytes > Self.maximumLineLength + 1 { throw Self.malformed }
        return nil
    }

    private mutating func take(_ line: [UInt8]) throws(MailError) -> SMTPReply? {
        guard line.count >= 3, line.count <= Self.maximumLineLength, line[0...2].allSatisfy({ (0x30...0x39).contains($0) }),
            let code = Int(String(decoding: line[0...2], as: UTF8.self))
        else { throw Self.malformed }
        let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else { throw Self.malformed }
        let text = line.count > 4 ? String(decoding: line[4...], as: UTF8.self) : ""
        var reply = pending ?? (code, [])
        guard reply.code == code, reply.lines.count < Self.maximumLines else { throw Self.malformed }
        reply.lines.append(text)
        if separator == UInt8(ascii: "-") {
            pending = reply
            return nil
        }
        pending = nil
        return SMTPReply(code: code, lines: reply.lines)
    }

    private static var malformed: MailError { MailError("SMTP server sent a malformed reply") }
}
