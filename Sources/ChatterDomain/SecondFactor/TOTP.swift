import ChatterCore
import ChatterWire
import Crypto
import ExtrasBase64
import Foundation

/// Time-based one-time passwords (RFC 6238) as authenticator apps compute them: HMAC-SHA1, 6 digits,
/// 30-second steps — the defaults every app supports; anything else some apps silently ignore.
///
/// HummingbirdOTP's `TOTP` does this arithmetic too, but it keys the HMAC with the UTF-8 bytes of a
/// `String` secret, so a secret of random bytes (RFC 4226 §4: at least 128 bits, 160 recommended) cannot be
/// given to it, and it answers an `Int` to compare. This is the same few lines over raw bytes.
package struct TOTP: Sendable {
    /// The shared secret: 20 random bytes (RFC 4226 §4's recommended 160 bits).
    package let secret: [UInt8]
    package static let digits = 6
    package static let period: Double = 30
    package static let secretBytes = 20

    package static func random() -> TOTP { TOTP(secret: SecureRandom.bytes(secretBytes)) }

    /// The time step `date` falls in (RFC 6238 §4.2: T = floor((now − T0) / X), T0 = 0).
    package static func step(at date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / period).rounded(.down)) }

    /// The code for `step` (RFC 4226 §5.3: dynamic truncation of HMAC(secret, counter), mod 10^digits), zero-padded.
    package func code(step: Int64) -> String {
        let mac = Array(
            HMAC<Insecure.SHA1>.authenticationCode(
                for: withUnsafeBytes(of: UInt64(bitPattern: step).bigEndian, Array.init),
                using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let text = String(value % 1_000_000)
        return String(repeating: "0", count: Self.digits - text.count) + text
    }

    /// The step among `at`'s previous, current and next (RFC 6238 §5.2: one step of drift either way) whose
    /// code is `code`, compared in constant time; nil when none is. Whether the step was used already is
    /// the store's to decide, atomically.
    package func matchingStep(_ code: String, at date: Date) -> Int64? {
        let now = Self.step(at: date)
        var found: Int64?
        for step in [now - 1, now, now + 1] where constantTimeEqual(Array(self.code(step: step).utf8), Array(code.utf8)) {
            found = step
        }
        return found
    }

    /// The secret as apps take it by hand: base32 (RFC 4648 §6) without padding.
    package var base32Secret: String { String(base32Encoding: secret, options: .omitPaddingCharacter) }

    /// The key URI authenticator apps scan (Google Authenticator's "Key Uri Format", which the others follow):
    /// `otpauth://totp/ISSUER:ACCOUNT?secret=…&issuer=ISSUER&algorithm=SHA1&digits=6&period=30`, the label
    /// and issuer percent-encoded so that a colon or `&` in either cannot add or move a parameter.
    package func uri(issuer: String, account: String) -> String {
        let issuerText = issuer.addingPercentEncoding(withAllowedCharacters: Self.labelCharacters) ?? "Chatter"
        let accountText = account.addingPercentEncoding(withAllowedCharacters: Self.labelCharacters) ?? ""
        return
            "otpauth://totp/\(issuerText):\(accountText)?secret=\(base32Secret)&issuer=\(issuerText)&algorithm=SHA1&digits=\(Self.digits)&period=\(Int(Self.period))"
    }

    /// What a label keeps unescaped: RFC 3986's unreserved characters (ASCII only) and `@`, written out rather
    /// than derived from `CharacterSet.alphanumerics`, which is every script's letters.
    package static let labelCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~@")

    /// A code as a person types it: six digits, spaces and a middle hyphen forgiven (apps show `123 456`).
    package static func normalized(_ typed: String) -> String? {
        if case .authenticator(let digits) = SecondFactorCode(typed) { digits } else { nil }
    }
}
