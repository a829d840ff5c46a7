import Crypto
import ExtrasBase64

/// A bearer secret handed to the client exactly once. Only its SHA-256 hash is stored, and sessions are
/// looked up by that hash, so the secret itself is never compared or kept.
public struct SessionToken: Sendable {
    /// 43 base64url characters encoding 256 bits from the system CSPRNG.
    public let secret: String

    public static func generate() -> SessionToken {
        // swift-crypto fills the key from the system CSPRNG (getrandom(2) on Linux) in one call.
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        return SessionToken(secret: Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter]))
    }

    public var hash: [UInt8] { Self.hash(secret) }

    /// The lookup key for a presented secret, whatever its shape: a wrong or garbled token simply finds nothing.
    public static func hash(_ presented: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(presented.utf8)))
    }
}
