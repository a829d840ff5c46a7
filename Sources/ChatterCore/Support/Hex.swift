/// Bytes from hexadecimal text (either case) and back: for key files, certificate fingerprints and UUIDs.
package enum Hex {
    /// The bytes `text` spells, two digits each; nil for an odd length or anything but a hex digit (a sign,
    /// a space), which `UInt8(_:radix:)` would let through.
    package static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// Lowercase hexadecimal, two digits a byte: digests in keys, tokens and URLs. (`String(format:)` per byte
    /// costs a Foundation formatter call each, on paths such as every page's CSRF token.)
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// One hex digit's value.
    package static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
