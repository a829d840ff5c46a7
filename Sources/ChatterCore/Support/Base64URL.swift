import ExtrasBase64

/// base64url without padding (RFC 4648 §5), as every binary value of WebAuthn's JSON forms is sent.
public enum Base64URL {
    public static func decode(_ text: String) -> [UInt8]? {
        // The JSON forms never pad. (Bytes, not `text.contains("=")`: with Foundation imported that is
        // Foundation's substring search, a hundred times the cost, and every sign-in decodes several.)
        guard !text.utf8.contains(UInt8(ascii: "=")) else { return nil }
        // fail-closed: text that does not decode is nil, and every caller refuses a value it cannot decode
        return try? Base64.decode(string: text, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// `decode` for text still in bytes (a part of a token read as bytes), without making a string of it.
    /// A concrete slice, not `some Collection`: unspecialised across modules, that cost forty times as much.
    public static func decode(bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard !bytes.contains(UInt8(ascii: "=")) else { return nil }
        // fail-closed: bytes that do not decode are nil, and every caller refuses a value it cannot decode
        return try? Base64.decode(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// A binary value of a WebAuthn response as clients actually spell it: base64url with or without padding,
    /// or standard base64 (`+`, `/`, padded), which native apps that build the JSON themselves send
    /// (`Data.base64EncodedString()` on iOS, `Base64.URL_SAFE | NO_WRAP` on Android) and the major relying-party
    /// libraries accept. Padding, when present, must be the right amount at the end; nothing else (no
    /// whitespace, no line breaks) is let through. Only for WebAuthn's JSON: chatterd's own tokens keep the one
    /// spelling `decode` reads, so no token has two.
    public static func decodeAnySpelling(_ text: String) -> [UInt8]? {
        var bytes = Array(text.utf8)
        var padding = 0
        while bytes.last == UInt8(ascii: "=") {
            bytes.removeLast()
            padding += 1
        }
        if padding > 0 { guard padding <= 2, (bytes.count + padding) % 4 == 0 else { return nil } }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return decode(String(decoding: bytes, as: UTF8.self))
    }

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}
