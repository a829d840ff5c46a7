import ChatterCore
import JWTKit

/// The claims chatterd reads from an ID token. Every field is optional so that a missing claim is
/// reported as a failed check with a reason instead of as an opaque decoding error.
package struct TokenClaims: JWTPayload {
    package var iss: String?
    package var sub: String?
    package var aud: [String]?
    package var azp: String?
    package var exp: Double?
    package var iat: Double?
    package var nbf: Double?
    package var name: String?
    package var email: String?
    package var emailVerified: Bool?
    package var nonce: String?
    package var events: String?
    package var jti: String?
    /// Time claims that are present but not numbers: refused by name rather than read as absent.
    package var malformed: Set<String> = []

    package enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, exp, iat, nbf, name, email, nonce, events, jti
        case emailVerified = "email_verified"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // fail-closed: a malformed iss is nil, and the issuer check refuses a token without one
        iss = try? c.decodeIfPresent(String.self, forKey: .iss)
        // fail-closed: a malformed sub is nil: refused where a subject is required, and never used as one elsewhere
        sub = try? c.decodeIfPresent(String.self, forKey: .sub)
        // fail-closed: an aud that is not one string falls to the list form below, which refuses what it cannot read
        if let one = try? c.decodeIfPresent(String.self, forKey: .aud) {
            aud = [one]
        } else {
            // fail-closed: an aud that is no list of strings is nil: the audience check refuses the token
            aud = try? c.decodeIfPresent([String].self, forKey: .aud)
        }
        // fail-closed: a malformed azp is nil: with several audiences the azp check refuses it; with one it is not used
        azp = try? c.decodeIfPresent(String.self, forKey: .azp)
        func time(_ key: CodingKeys) -> Double? {
            guard c.contains(key) else { return nil }
            // fail-closed: a time claim that is present but no finite number is marked malformed and refused by name
            guard let value = try? c.decode(Double.self, forKey: key), value.isFinite else {
                malformed.insert(key.rawValue)
                return nil
            }
            return value
        }
        exp = time(.exp)
        iat = time(.iat)
        nbf = time(.nbf)
        // fail-closed: a malformed name is nil: the token just gives no name; nothing is granted by it
        name = try? c.decodeIfPresent(String.self, forKey: .name)
        // fail-closed: a malformed email is nil: no address is taken from the token, so none is trusted or linked
        email = try? c.decodeIfPresent(String.self, forKey: .email)
        // fail-closed: a nonce that is present but no string is marked malformed, and the nonce check refuses it by name
        nonce = try? c.decodeIfPresent(String.self, forKey: .nonce)
        if c.contains(.nonce), nonce == nil { malformed.insert(CodingKeys.nonce.rawValue) }
        // fail-closed: malformed events are nil: an Apple notification without readable events is refused
        events = try? c.decodeIfPresent(String.self, forKey: .events)
        // fail-closed: a malformed jti is nil: a replayed notification is then recognised by its payload's digest
        jti = try? c.decodeIfPresent(String.self, forKey: .jti)
        // Apple sent `email_verified` as the string "true"/"false" for years; newer tokens send a boolean.
        // fail-closed: email_verified that is neither a bool nor a string is nil, read as false: the address is not trusted
        if let flag = try? c.decodeIfPresent(Bool.self, forKey: .emailVerified) {
            emailVerified = flag
        } else if let text = try? c.decodeIfPresent(String.self, forKey: .emailVerified) {
            emailVerified = text == "true" ? true : (text == "false" ? false : nil)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(iss, forKey: .iss)
        try c.encodeIfPresent(sub, forKey: .sub)
        try c.encodeIfPresent(aud, forKey: .aud)
        try c.encodeIfPresent(exp, forKey: .exp)
        try c.encodeIfPresent(iat, forKey: .iat)
    }

    /// Claims are checked by `IDTokenVerifier` against an injected clock, not by jwt-kit's wall clock.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}
