import Foundation

// UUIDs in the forms chatterd reads and writes: text (rows and answers), 16 bytes (what a token carries),
// and new time-ordered ids (chatts). In one file: every row read and every answer uses them.

extension UUID {
    /// The 36-character form `uuidString` gives (upper-case hex), written without `sprintf`: IDs are
    /// formatted for every row read and every answer, where Foundation's formatting showed in profiles.
    package var text: String {
        let digits = Array("0123456789ABCDEF".utf8)
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    out[at] = digits[Int(byte >> 4)]
                    out[at + 1] = digits[Int(byte & 0x0F)]
                    at += 2
                }
                return at
            }
        }
    }

    /// Parses what `UUID(uuidString:)` accepts (hex of either case, hyphens at 8, 13, 18 and 23), without
    /// `sscanf`.
    package init?(text: String) {
        var text = text
        guard let uuid = text.withUTF8({ Self.parse($0) }) else { return nil }
        self.init(uuid: uuid)
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard utf8.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &uuid) { out -> Bool in
            var at = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard utf8[at] == UInt8(ascii: "-") else { return false }
                    at += 1
                }
                guard let high = Hex.value(utf8[at]), let low = Hex.value(utf8[at + 1]) else { return false }
                out[index] = high << 4 | low
                at += 2
            }
            return true
        }
        return parsed ? uuid : nil
    }
}

extension UUID {
    /// The 16 bytes, in order: what a refresh token carries to name its session.
    package var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    package init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        self.init(uuid: uuid)
    }
}

extension UUID {
    /// A version 7 UUID (RFC 9562): the Unix time in milliseconds, then random bits. IDs made one after
    /// another sort together, so inserting them touches the end of an index rather than a random page of
    /// it: a burst of posts writes a few pages to the WAL, not one per post.
    package static func timeOrdered(at time: Date) -> UUID {
        let milliseconds = UInt64(max(0, time.timeIntervalSince1970 * 1000))
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64
        let low = random.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        for index in 6..<16 { bytes[index] = UInt8(truncatingIfNeeded: (index < 11 ? high : low) >> (8 * (index % 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUID(bytes: bytes)
    }
}
