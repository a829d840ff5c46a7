import Crypto
import ExtrasBase64
import Foundation
import JWTKit
import Synchronization
import _CryptoExtras

/// A stand-in identity provider: an RSA key the test owns, its JWKS, and ID tokens signed with it.
public struct TestIssuer: Sendable {
    public static let googleIssuer = "https://accounts.google.com"
    public static let clientID = "1234-test.apps.googleusercontent.com"

    public let kid: String
    public let privateKey: _RSA.Signing.PrivateKey

    /// Generating a 2048-bit key takes tens of milliseconds of CPU on Swift's cooperative pool (one thread
    /// per core); with every test server making two, a full parallel run starved the pool for minutes. So
    /// issuers take turns on a few keys made once.
    static let keyPool: [_RSA.Signing.PrivateKey] = (0..<4).map { _ in try! _RSA.Signing.PrivateKey(keySize: .bits2048) }
    static let nextKey = Atomic<Int>(0)

    public init(kid: String = "test-key-1") throws {
        self.kid = kid
        privateKey = Self.keyPool[Self.nextKey.add(1, ordering: .relaxed).oldValue % Self.keyPool.count]
    }

    /// An issuer whose key is certainly not `other`'s, for impostors that reuse a real `kid`.
    public init(kid: String, differentFrom other: TestIssuer) throws {
        self.kid = kid
        privateKey = Self.keyPool.first { $0.derRepresentation != other.privateKey.derRepresentation }!
    }

    /// The public key as a JWK, with `alg` as Google publishes it.
    public var jwk: [String: String] {
        let (n, e) = try! Insecure.RSA.PublicKey(backing: privateKey.publicKey).getKeyPrimitives()
        return ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": b64url(Array(n)), "e": b64url(Array(e))]
    }

    public static func jwksJSON(_ issuers: [TestIssuer]) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: ["keys": issuers.map(\.jwk)]))
    }

    /// Standard Google-shaped claims for `subject`, issued at `now`, valid for an hour.
    public static func claims(subject: String = "1000001", name: String? = "Ada Lovelace", audience: Any = clientID, now: Date) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": googleIssuer, "sub": subject, "aud": audience, "azp": clientID,
            "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 3600,
            "email": "\(subject)@example.com", "email_verified": true,
        ]
        claims["name"] = name
        return claims
    }

    /// Signs `claims` with RS256 under `header` (kid and alg filled in unless given).
    public func sign(_ claims: [String: Any], header extra: [String: Any] = [:]) throws -> String {
        var header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": kid]
        header.merge(extra) { $1 }
        let input = Self.segment(header) + "." + Self.segment(claims)
        let signature = try privateKey.signature(for: SHA256.hash(data: Array(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + b64url(Array(signature.rawRepresentation))
    }

    public static func segment(_ object: [String: Any]) -> String {
        b64url(Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    }
}

public func b64url(_ bytes: [UInt8]) -> String {
    Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
}

/// Base64url without padding, as JWTs carry it, decoded; nil when it is not base64url.
public func base64URLDecoded(_ text: String) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)
}
