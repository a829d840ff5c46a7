import Foundation

/// An RFC 5322 message read back the way a mail client would: unfolded headers (keyed by lower-cased
/// name, encoded-words decoded) and the body exactly as it stands, CRLFs included.
struct ParsedMail {
    var headers: [String: String] = [:]
    var body: String

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    init(_ text: String) throws {
        guard let end = text.range(of: "\r\n\r\n") else { throw Malformed(description: "no blank line after the headers") }
        body = String(text[end.upperBound...])
        var unfolded: [String] = []
        for line in text[..<end.lowerBound].components(separatedBy: "\r\n") {
            if line.first == " " || line.first == "\t", !unfolded.isEmpty {
                unfolded[unfolded.count - 1] += line
            } else {
                unfolded.append(line)
            }
        }
        for line in unfolded {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed(description: "header line without a colon: \(line)") }
            let name = line[..<colon].lowercased()
            guard headers[name] == nil else { throw Malformed(description: "duplicate header \(name)") }
            headers[name] = Self.decodeWords(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    /// RFC 2047 base64 encoded-words; whitespace between adjacent words is not part of the text.
    static func decodeWords(_ value: String) -> String {
        let words = value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !words.isEmpty, words.allSatisfy({ $0.hasPrefix("=?utf-8?B?") && $0.hasSuffix("?=") }) else { return value }
        let bytes = words.flatMap { word in
            Data(base64Encoded: String(word.dropFirst("=?utf-8?B?".count).dropLast(2))) ?? Data()
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
