/// A JSON value as `ProofJSON` keeps it: what a DPoP proof's header and claims hold is strings, numbers and
/// one nested object (the key); arrays, booleans and null are checked but not kept.
enum ProofJSONValue: Equatable, Sendable {
    case string(String)
    case number(Double)
    case object([String: ProofJSONValue])
    case array
    case bool(Bool)
    case null
}

/// Reads the two JSON objects of a DPoP proof, its header and its claims, which every request of a bound
/// session carries. Foundation's `JSONDecoder` built a tree of boxed values for each, about 110,000
/// instructions a proof (callgrind, in a release build); this reads the bytes once, in about 50,000.
///
/// Strict: RFC 8259's grammar and nothing else (no comments, no trailing commas, no byte order mark), UTF-8
/// only, no name twice in one object (RFC 7515 §4 lets a parser refuse those, and a proof has no reason to
/// repeat one; names are compared as Swift strings, so two canonically equivalent spellings are one name
/// too), no number that is not finite, and nesting at most `maximumDepth` deep. Anything else is nil.
/// What it accepts, `JSONDecoder` reads to the same strings, numbers, booleans and objects (an array's
/// contents are checked, not kept or compared): the `device-binding` fuzz target checks it.
struct ProofJSON {
    static let maximumDepth = 4
    private struct Malformed: Error {}

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The members of the one object `bytes` hold, or nil.
    static func object(_ bytes: [UInt8]) -> [String: ProofJSONValue]? {
        var reader = ProofJSON(bytes)
        do throws(Malformed) {
            reader.skipSpace()
            guard case .object(let members) = try reader.value(depth: 0) else { return nil }
            reader.skipSpace()
            return reader.index == bytes.count ? members : nil
        } catch {
            return nil
        }
    }

    private mutating func value(depth: Int) throws(Malformed) -> ProofJSONValue {
        guard index < bytes.count else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try object(depth: depth + 1))
        case UInt8(ascii: "["):
            try array(depth: depth + 1)
            return .array
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return .number(try number())
        }
    }

    private mutating func object(depth: Int) throws(Malformed) -> [String: ProofJSONValue] {
        guard depth <= Self.maximumDepth else { throw Malformed() }
        index += 1
        var members: [String: ProofJSONValue] = [:]
        skipSpace()
        if take(UInt8(ascii: "}")) { return members }
        repeat {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed() }
            let name = try string()
            skipSpace()
            guard take(UInt8(ascii: ":")) else { throw Malformed() }
            skipSpace()
            guard members.updateValue(try value(depth: depth), forKey: name) == nil else { throw Malformed() }
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { throw Malformed() }
        return members
    }

    private mutating func array(depth: Int) throws(Malformed) {
        guard depth <= Self.maximumDepth else { throw Malformed() }
        index += 1
        skipSpace()
        if take(UInt8(ascii: "]")) { return }
        repeat {
            skipSpace()
            _ = try value(depth: depth)
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { throw Malformed() }
    }

    /// A string from its opening quote: escapes decoded, UTF-8 checked, control characters refused. Runs of plain
    /// bytes are copied whole, at a quote or an escape.
    private mutating func string() throws(Malformed) -> String {
        index += 1
        var utf8: [UInt8] = []
        var run = index
        while true {
            guard index < bytes.count else { throw Malformed() }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                utf8.append(contentsOf: bytes[run..<index])
                index += 1
                break
            }
            guard byte == UInt8(ascii: "\\") else {
                guard byte >= 0x20 else { throw Malformed() }
                index += 1
                continue
            }
            utf8.append(contentsOf: bytes[run..<index])
            index += 1
            guard index < bytes.count else { throw Malformed() }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"): Unicode.UTF8.encode(try unicodeEscape()) { utf8.append($0) }
            default: throw Malformed()
            }
            run = index
        }
        guard let text = String(validating: utf8, as: UTF8.self) else { throw Malformed() }
        return text
    }

    /// `\uXXXX` after its `u`, with the low half that must follow a high surrogate.
    private mutating func unicodeEscape() throws(Malformed) -> Unicode.Scalar {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { throw Malformed() }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw Malformed() }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw Malformed() }
        return unicode
    }

    private mutating func hex4() throws(Malformed) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Malformed() }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Malformed()
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, finite, and not rounded to zero
    /// from digits that are not all zero (`1e-400`): Foundation's `JSONDecoder` refuses that underflow, so taking it
    /// as 0 would be a reading the two disagree on.
    private mutating func number() throws(Malformed) -> Double {
        let start = index
        _ = take(UInt8(ascii: "-"))
        if !take(UInt8(ascii: "0")) { guard digits() > 0 else { throw Malformed() } }
        if take(UInt8(ascii: ".")) { guard digits() > 0 else { throw Malformed() } }
        let significand = start..<index
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
            guard digits() > 0 else { throw Malformed() }
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else { throw Malformed() }
        if value == 0, bytes[significand].contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }) { throw Malformed() }
        return value
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw Malformed() }
        index += count
    }

    /// Whether the next byte is `byte`, taking it if so.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
