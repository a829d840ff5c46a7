import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562): the Unix time in milliseconds, then random bits. IDs made one after
    /// another sort together, so inserting them touches the end of an index rather than a random page of
    /// it: a burst of posts writes a few pages to the WAL, not one per post.
    static func timeOrdered(at time: Date) -> UUID {
        let milliseconds = UInt64(max(0, time.timeIntervalSince1970 * 1000))
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64, low = random.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        for index in 6..<16 { bytes[index] = UInt8(truncatingIfNeeded: (index < 11 ? high : low) >> (8 * (index % 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUID(bytes: bytes)
    }
}
