/// Recovery codes: ten at a time, each 50 random bits written as ten characters of Crockford's base32
/// (no I, L, O or U to misread), shown `XXXXX-XXXXX`. Typed codes are forgiving the way Crockford says:
/// any case, hyphens and spaces ignored, O read as 0 and I or L as 1.
enum RecoveryCode {
    static let count = 10
    static let characters = 10
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    static func generate() -> [String] {
        (0..<count).map { _ in
            // 32 symbols: the low five bits of a random byte are uniform.
            let symbols = SecureRandom.bytes(characters).map { Character(Unicode.Scalar(alphabet[Int($0 & 0x1F)])) }
            return String(symbols.prefix(5)) + "-" + String(symbols.suffix(5))
        }
    }

    /// The code as it is hashed (ten symbols, no hyphen), or nil when `typed` cannot be one.
    static func normalized(_ typed: String) -> String? {
        var symbols: [UInt8] = []
        for scalar in typed.unicodeScalars {
            guard scalar.isASCII else { return nil }
            switch UInt8(scalar.value) {
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            case UInt8(ascii: "o"), UInt8(ascii: "O"): symbols.append(UInt8(ascii: "0"))
            case UInt8(ascii: "i"), UInt8(ascii: "I"), UInt8(ascii: "l"), UInt8(ascii: "L"): symbols.append(UInt8(ascii: "1"))
            case let byte:
                let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
                guard alphabet.contains(upper) else { return nil }
                symbols.append(upper)
            }
            guard symbols.count <= characters else { return nil }
        }
        return symbols.count == characters ? String(decoding: symbols, as: UTF8.self) : nil
    }
}
