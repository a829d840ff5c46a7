import ExtrasBase64

/// base64url without padding (RFC 4648 §5), as every binary value of WebAuthn's JSON forms is sent.
public enum Base64URL {
    public static func decode(_ text: String) -> [UInt8]? {
        // The JSON forms never pad. (Bytes, not `text.contains("=")`: with Foundation imported that is
        // Foundation's substring search, a hundred times the cost, and every sign-in decodes several.)
        guard !text.utf8.contains(UInt8(ascii: "=")) else { return nil }
        return try? Base64.decode(string: text, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}
