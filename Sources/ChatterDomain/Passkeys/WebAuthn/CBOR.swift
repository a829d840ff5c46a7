import ChatterCore

/// One CBOR (RFC 8949) data item, as WebAuthn's attestation objects, COSE keys and extension outputs carry
/// them. Maps keep their entries in the order sent (COSE and attestation statements are looked up by key).
public indirect enum CBOR: Sendable, Hashable {
    case unsigned(UInt64)
    /// The integer `-1 - n`, kept as `n` so that every encodable value fits.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([Entry])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case undefined
    case float(FloatValue)

    /// A floating-point value, equal to another when their bits are: so NaN equals itself, as a map key and a
    /// decoded item compared with itself must.
    public struct FloatValue: Sendable, Hashable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
        public let value: Double
        public init(_ value: Double) { self.value = value }
        public init(floatLiteral value: Double) { self.value = value }
        public init(integerLiteral value: Int) { self.value = Double(value) }
        public static let infinity = FloatValue(.infinity)
        public static func == (a: FloatValue, b: FloatValue) -> Bool { a.value.bitPattern == b.value.bitPattern }
        public func hash(into hasher: inout Hasher) { hasher.combine(value.bitPattern) }
    }

    public struct Entry: Sendable, Hashable {
        public var key: CBOR
        public var value: CBOR
    }

    /// The value as a Swift integer, when it is one that fits.
    public var int: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n < UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    public var bytes: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    public var text: String? { if case .text(let t) = self { t } else { nil } }
    public var array: [CBOR]? { if case .array(let a) = self { a } else { nil } }
    public var entries: [Entry]? { if case .map(let m) = self { m } else { nil } }

    /// A map's value for an integer key (COSE labels) or nil.
    public subscript(label label: Int) -> CBOR? { entries?.first { $0.key.int == label }?.value }
    /// A map's value for a text key (attestation statements) or nil.
    public subscript(key: String) -> CBOR? { entries?.first { $0.key.text == key }?.value }
}

/// Why bytes are not one well-formed CBOR item. WebAuthn data is small and produced by authenticators that
/// use CTAP2's canonical form, so the decoder refuses what that form never contains (indefinite lengths,
/// duplicate map keys) rather than guess.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    case truncated
    case indefiniteLength
    case reservedAdditionalInfo(UInt8)
    case invalidSimpleValue(UInt8)
    case invalidUTF8
    case duplicateKey
    case tooDeep
    case tooLong
    case trailingBytes(Int)

    public var description: String {
        switch self {
        case .truncated: "the CBOR ends inside an item"
        case .indefiniteLength: "an indefinite-length CBOR item (not allowed)"
        case .reservedAdditionalInfo(let info): "reserved CBOR additional information \(info)"
        case .invalidSimpleValue(let value): "CBOR simple value \(value) (not allowed)"
        case .invalidUTF8: "a CBOR text string that is not UTF-8"
        case .duplicateKey: "a CBOR map with a key twice"
        case .tooDeep: "CBOR nested more than \(CBORDecoder.maximumDepth) deep"
        case .tooLong: "a CBOR length larger than the bytes that remain"
        case .trailingBytes(let count): "\(count) bytes after the CBOR item"
        }
    }
}

/// A strict decoder of definite-length CBOR: it reports how many bytes the first item took, so that
/// authenticator data (a COSE key followed by extensions) can be read item by item, and `decodeWhole`
/// refuses anything after the item where WebAuthn allows nothing.
public enum CBORDecoder {
    /// Deeper than any WebAuthn structure (attestation object → statement → certificate array is 3).
    public static let maximumDepth = 16

    public static func decodeWhole(_ bytes: some Collection<UInt8>) throws(CBORError) -> CBOR {
        let (item, consumed) = try decodeFirst(bytes)
        guard consumed == bytes.count else { throw .trailingBytes(bytes.count - consumed) }
        return item
    }

    /// The first item and the number of bytes it took.
    public static func decodeFirst(_ bytes: some Collection<UInt8>) throws(CBORError) -> (item: CBOR, consumed: Int) {
        var reader = Reader(bytes: Array(bytes))
        let item = try reader.item(depth: 0)
        return (item, reader.offset)
    }

    package struct Reader {
        package let bytes: [UInt8]
        package var offset = 0

        package var remaining: Int { bytes.count - offset }

        package mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated }
            defer { offset += 1 }
            return bytes[offset]
        }

        package mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= UInt64(remaining) else { throw count > UInt64(Int32.max) ? .tooLong : .truncated }
            defer { offset += Int(count) }
            return bytes[offset..<offset + Int(count)]
        }

        /// The argument of a head: the additional information itself, or the 1, 2, 4 or 8 bytes after it.
        package mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                var value: UInt64 = 0
                for byte in try take(1 << UInt64(info - 24)) { value = value << 8 | UInt64(byte) }
                return value
            case 31: throw .indefiniteLength
            default: throw .reservedAdditionalInfo(info)
            }
        }

        /// A count of items that follow: each takes at least one byte, so a count beyond the bytes left is
        /// refused before anything is allocated for it.
        package mutating func count(_ info: UInt8, bytesEach: UInt64) throws(CBORError) -> Int {
            let count = try argument(info)
            guard count.multipliedReportingOverflow(by: bytesEach).partialValue <= UInt64(remaining), count <= UInt64(remaining) else {
                throw .tooLong
            }
            return Int(count)
        }

        package mutating func item(depth: Int) throws(CBORError) -> CBOR {
            guard depth < CBORDecoder.maximumDepth else { throw .tooDeep }
            let head = try byte()
            let info = head & 0x1F
            switch head >> 5 {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(Array(try take(try argument(info))))
            case 3:
                guard let text = String(validating: try take(try argument(info)), as: UTF8.self) else { throw .invalidUTF8 }
                return .text(text)
            case 4:
                let count = try count(info, bytesEach: 1)
                var items: [CBOR] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try count(info, bytesEach: 2)
                var entries: [CBOR.Entry] = []
                entries.reserveCapacity(count)
                // Duplicates are found through a set, so a map's check costs what its keys' bytes do: comparing
                // each key with every one before it cost O(n²) (a 48 KiB map took seconds before any signature).
                // Swift's hashing is seeded per process, so no one can choose keys that collide.
                var keys = Set<CBOR>(minimumCapacity: count)
                for _ in 0..<count {
                    let key = try item(depth: depth + 1)
                    guard keys.insert(key).inserted else { throw .duplicateKey }
                    entries.append(CBOR.Entry(key: key, value: try item(depth: depth + 1)))
                }
                return .map(entries)
            case 6: return .tagged(try argument(info), try item(depth: depth + 1))
            default: return try simple(info)
            }
        }

        package mutating func simple(_ info: UInt8) throws(CBORError) -> CBOR {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 24: throw .invalidSimpleValue(try byte())  // simple values 32–255: unassigned
            case 25: return .float(.init(Self.half(UInt16(try argument(info)))))
            case 26: return .float(.init(Double(Float(bitPattern: UInt32(try argument(info))))))
            case 27: return .float(.init(Double(bitPattern: try argument(info))))
            case 31: throw .indefiniteLength  // a "break" outside an indefinite item
            case 28...30: throw .reservedAdditionalInfo(info)
            default: throw .invalidSimpleValue(info)
            }
        }

        /// IEEE 754 half precision (RFC 8949 appendix D), decoded by hand: `Float16` is missing on Intel Macs.
        package static func half(_ bits: UInt16) -> Double {
            let exponent = Int(bits >> 10) & 0x1F
            let mantissa = Double(bits & 0x3FF)
            let magnitude: Double =
                switch exponent {
                case 0: mantissa * 0x1p-24
                case 31: mantissa == 0 ? .infinity : .nan
                default: (1024 + mantissa) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
                }
            return bits & 0x8000 == 0 ? magnitude : -magnitude
        }
    }
}
