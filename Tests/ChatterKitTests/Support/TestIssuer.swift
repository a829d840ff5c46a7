// Copied from Tests/ChatterServerTests/Support (test targets cannot share files); keep the two in step.
import Crypto
import ExtrasBase64
import Foundation
import JWTKit
import _CryptoExtras

/// A stand-in identity provider: an RSA key the test owns, its JWKS, and ID tokens signed with it.
struct TestIssuer: Sendable {
    static let googleIssuer = "https://accounts.google.com"
    static let clientID = "1234-test.apps.googleusercontent.com"

    let kid: String
    let privateKey: _RSA.Signing.PrivateKey

    init(kid: String = "test-key-1") throws {
        self.kid = kid
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The public key as a JWK, with `alg` as Google publishes it.
    var jwk: [String: String] {
        let (n, e) = try! Insecure.RSA.PublicKey(backing: privateKey.publicKey).getKeyPrimitives()
        return ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": b64url(Array(n)), "e": b64url(Array(e))]
    }

    static func jwksJSON(_ issuers: [TestIssuer]) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: ["keys": issuers.map(\.jwk)]))
    }

    /// Standard Google-shaped claims for `subject`, issued at `now`, valid for an hour.
    static func claims(subject: String = "1000001", name: String? = "Ada Lovelace", audience: Any = clientID, now: Date) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": googleIssuer, "sub": subject, "aud": audience, "azp": clientID,
            "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 3600,
            "email": "\(subject)@example.com", "email_verified": true,
        ]
        claims["name"] = name
        return claims
    }

    /// Signs `claims` with RS256 under `header` (kid and alg filled in unless given).
    func sign(_ claims: [String: Any], header extra: [String: Any] = [:]) throws -> String {
        var header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": kid]
        header.merge(extra) { $1 }
        let input = Self.segment(header) + "." + Self.segment(claims)
        let signature = try privateKey.signature(for: SHA256.hash(data: Array(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + b64url(Array(signature.rawRepresentation))
    }

    static func segment(_ object: [String: Any]) -> String {
        b64url(Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    }
}

func b64url(_ bytes: [UInt8]) -> String {
    Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
}
