import ExtrasBase64

/// base64url without padding (RFC 4648 §5), as every binary value of WebAuthn's JSON forms is sent.
public enum Base64URL {
    public static func decode(_ text: String) -> [UInt8]? {
        guard !text.contains("=") else { return nil }  // the JSON forms never pad
        return try? Base64.decode(string: text, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}
