import JWTKit

/// The claims chatterd reads from an ID token. Every field is optional so that a missing claim is
/// reported as a failed check with a reason instead of as an opaque decoding error.
struct TokenClaims: JWTPayload {
    var iss: String?
    var sub: String?
    var aud: [String]?
    var azp: String?
    var exp: Double?
    var iat: Double?
    var nbf: Double?
    var name: String?
    var email: String?
    var emailVerified: Bool?
    var nonce: String?
    var events: String?
    var jti: String?
    /// Time claims that are present but not numbers: refused by name rather than read as absent.
    var malformed: Set<String> = []

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, exp, iat, nbf, name, email, nonce, events, jti
        case emailVerified = "email_verified"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        iss = try? c.decodeIfPresent(String.self, forKey: .iss)
        sub = try? c.decodeIfPresent(String.self, forKey: .sub)
        if let one = try? c.decodeIfPresent(String.self, forKey: .aud) {
            aud = [one]
        } else {
            aud = try? c.decodeIfPresent([String].self, forKey: .aud)
        }
        azp = try? c.decodeIfPresent(String.self, forKey: .azp)
        func time(_ key: CodingKeys) -> Double? {
            guard c.contains(key) else { return nil }
            guard let value = try? c.decode(Double.self, forKey: key), value.isFinite else {
                malformed.insert(key.rawValue)
                return nil
            }
            return value
        }
        exp = time(.exp)
        iat = time(.iat)
        nbf = time(.nbf)
        name = try? c.decodeIfPresent(String.self, forKey: .name)
        email = try? c.decodeIfPresent(String.self, forKey: .email)
        nonce = try? c.decodeIfPresent(String.self, forKey: .nonce)
        events = try? c.decodeIfPresent(String.self, forKey: .events)
        jti = try? c.decodeIfPresent(String.self, forKey: .jti)
        // Apple sent `email_verified` as the string "true"/"false" for years; newer tokens send a boolean.
        if let flag = try? c.decodeIfPresent(Bool.self, forKey: .emailVerified) {
            emailVerified = flag
        } else if let text = try? c.decodeIfPresent(String.self, forKey: .emailVerified) {
            emailVerified = text == "true" ? true : (text == "false" ? false : nil)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(iss, forKey: .iss)
        try c.encodeIfPresent(sub, forKey: .sub)
        try c.encodeIfPresent(aud, forKey: .aud)
        try c.encodeIfPresent(exp, forKey: .exp)
        try c.encodeIfPresent(iat, forKey: .iat)
    }

    /// Claims are checked by `IDTokenVerifier` against an injected clock, not by jwt-kit's wall clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
