import ChatterCore
import ChatterWire

/// Recovery codes: ten at a time, each 50 random bits written as ten characters of Crockford's base32
/// (no I, L, O or U to misread), shown `XXXXX-XXXXX`. Typed codes are read as `SecondFactorCode` reads them.
package enum RecoveryCode {
    package static let count = 10
    package static let characters = SecondFactorCode.recoveryLength
    private static let alphabet = SecondFactorCode.recoveryAlphabet

    package static func generate() -> [String] {
        (0..<count).map { _ in
            // 32 symbols: the low five bits of a random byte are uniform.
            let symbols = SecureRandom.bytes(characters).map { Character(Unicode.Scalar(alphabet[Int($0 & 0x1F)])) }
            return String(symbols.prefix(5)) + "-" + String(symbols.suffix(5))
        }
    }

    /// The code as it is hashed (ten symbols, no hyphen), or nil when `typed` cannot be one (`SecondFactorCode`).
    package static func normalized(_ typed: String) -> String? {
        if case .recovery(let symbols) = SecondFactorCode(typed) { symbols } else { nil }
    }
}
