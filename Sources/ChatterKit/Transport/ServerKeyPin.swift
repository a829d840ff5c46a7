import Foundation

/// The pin of a server's public key, as chatterd prints it at start: the base64 SHA-256 of the key's
/// SubjectPublicKeyInfo (SPKI). Plain Swift, so `PinnedSessionDelegate` (for URLSession) and `WebSessionView`'s
/// web view (through `PinnedSessionDelegate.disposition(for:pins:)`) decide with one function, and the tests
/// check it on Linux.
enum ServerKeyPin {
    /// The kinds of key a pin is computed for (Security's `kSecAttrKeyType` values of the same names).
    enum KeyType: Sendable {
        /// `kSecAttrKeyTypeECSECPrimeRandom`: P-256 or P-384.
        case ellipticCurve
        /// `kSecAttrKeyTypeRSA`: RSA-2048.
        case rsa
    }

    /// The pin of a key of `type` and `bits`, given as Security's `SecKeyCopyExternalRepresentation` gives it
    /// (`rawKey`: the X9.63 point of an elliptic-curve key, the PKCS #1 RSAPublicKey of an RSA one), which lacks
    /// the SPKI header the pin covers; that header depends only on the key's type and size. Nil for a type or
    /// size other than P-256, P-384 and RSA-2048, which no pin can match.
    static func pin(type: KeyType, bits: Int, rawKey: [UInt8]) -> String? {
        let header: [UInt8]
        switch (type, bits) {
        case (.ellipticCurve, 256):
            header = [
                0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
                0x03, 0x42, 0x00,
            ]
        case (.ellipticCurve, 384):
            header = [
                0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22, 0x03, 0x62, 0x00,
            ]
        case (.rsa, 2048):
            header = [
                0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f,
                0x00,
            ]
        default:
            return nil
        }
        return Data(SHA256Digest.hash(header + rawKey)).base64EncodedString()
    }

    /// Whether the key (as for `pin(type:bits:rawKey:)`) hashes to one of `pins`. A key no pin can match, and
    /// an empty set, refuse.
    static func accepts(type: KeyType, bits: Int, rawKey: [UInt8], pins: Set<String>) -> Bool {
        guard let pin = pin(type: type, bits: bits, rawKey: rawKey) else { return false }
        return pins.contains(pin)
    }
}
