import ChatterCore
import Foundation

/// The one rendering of a `MailMessage` as RFC 5322 text: `LogMailTransport`'s `.eml` files and
/// `SMTPMailTransport`'s DATA are the same bytes (SMTP only adds dot-stuffing on the wire).
extension MailMessage {
    package var sender: MailAddress {
        get throws { try MailAddress(from, role: "sender") }
    }

    package var recipient: MailAddress {
        get throws { try MailAddress(to, role: "recipient") }
    }

    /// Every line ends in CRLF, as RFC 5322 requires. Throws a `MailError` for an address or subject
    /// that could inject a header, before anything is written or sent. Without a `messageID`, a fresh
    /// one in the sender's domain.
    package func rfc5322(date: Date, messageID: String? = nil) throws -> String {
        let (sender, recipient) = (try self.sender, try self.recipient)
        guard !subject.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw MailError("invalid subject: control characters (line breaks) are not allowed")
        }
        let lines = Self.lines(of: body)
        // 7bit keeps plain ASCII mail readable as-is; anything else goes quoted-printable, which still
        // leaves digits (the code) legible and needs no 8BITMIME support from the server.
        let sevenBit = lines.allSatisfy { line in line.count <= 998 && line.allSatisfy { $0 > 0 && $0 < 0x80 } }
        let headers = [
            "Date: \(Self.rfc5322Date(date))",
            "From: \(sender.header)",
            "To: \(recipient.header)",
            "Subject: \(Self.encodedWords(subject))",
            "Message-ID: \(messageID ?? "<\(UUID().uuidString.lowercased())@\(sender.domain)>")",
            // Marks the mail as automatic (RFC 3834), so vacation responders do not answer it.
            "Auto-Submitted: auto-generated",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: \(sevenBit ? "7bit" : "quoted-printable")",
        ]
        let encoded = lines.map { sevenBit ? String(decoding: $0, as: UTF8.self) : Self.quotedPrintable($0) }
        return (headers + [""] + encoded).map { $0 + "\r\n" }.joined()
    }

    /// Splits on CRLF, LF or a lone CR, working on bytes because Swift treats "\r\n" as one Character.
    package static func lines(of text: String) -> [[UInt8]] {
        var lines: [[UInt8]] = [[]]
        var previous: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\n") where previous == UInt8(ascii: "\r"): break
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): lines.append([])
            default: lines[lines.count - 1].append(byte)
            }
            previous = byte
        }
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    package static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    /// RFC 2047 encoded-words for a non-ASCII header value, each under the 75-character limit and cut
    /// between characters, so no UTF-8 sequence is split across words.
    package static func encodedWords(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            if chunk.count + character.utf8.count > 45, !chunk.isEmpty {
                words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += character.utf8
        }
        words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
        return words.joined(separator: "\r\n ")
    }

    /// One body line in quoted-printable (RFC 2045 §6.7), with soft breaks keeping lines within 76.
    package static func quotedPrintable(_ line: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF")
        var out = ""
        var width = 0
        for (index, byte) in line.enumerated() {
            let trailingSpace = (byte == 0x20 || byte == 0x09) && index == line.count - 1
            let literal = (byte >= 0x21 && byte <= 0x7E && byte != UInt8(ascii: "=")) || (byte == 0x20 || byte == 0x09) && !trailingSpace
            let token = literal ? String(UnicodeScalar(byte)) : "=" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            if width + token.count > 75 {
                out += "=\r\n"
                width = 0
            }
            out += token
            width += token.count
        }
        return out
    }
}
