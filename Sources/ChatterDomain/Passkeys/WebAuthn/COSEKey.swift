import ChatterCore
import Crypto
import Foundation
import X509
import _CryptoExtras

/// The signature algorithms chatterd accepts for a passkey, by their COSE identifiers (IANA "COSE
/// Algorithms"; RFC 9053, RFC 8812, RFC 9864). Offered to authenticators in this order of preference.
public enum COSEAlgorithm: Int, Sendable, CaseIterable, Codable {
    case es256 = -7
    /// EdDSA as WebAuthn registers it, with Ed25519 the only curve accepted (Ed448 is not in swift-crypto).
    case edDSA = -8
    /// Ed25519 by its fully-specified identifier (RFC 9864).
    case ed25519 = -19
    case es384 = -35
    case es512 = -36
    case rs256 = -257

    public var name: String {
        switch self {
        case .es256: "ES256"
        case .edDSA: "EdDSA"
        case .ed25519: "Ed25519"
        case .es384: "ES384"
        case .es512: "ES512"
        case .rs256: "RS256"
        }
    }
}

/// Why a COSE key (RFC 9052 §7) is refused: every field is checked against the algorithm it declares.
public enum COSEKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAMap
    case unsupportedAlgorithm(Int?)
    case wrongKeyType(expected: Int, got: Int?)
    case wrongCurve(expected: Int, got: Int?)
    case badParameter(String)

    public var description: String {
        switch self {
        case .notAMap: "the credential public key is not a COSE key (a CBOR map)"
        case .unsupportedAlgorithm(let alg):
            "algorithm \(alg.map(String.init) ?? "(missing)") is not one chatterd accepts (ES256, EdDSA/Ed25519, ES384, ES512, RS256)"
        case .wrongKeyType(let expected, let got): "key type \(got.map(String.init) ?? "(missing)") where the algorithm needs \(expected)"
        case .wrongCurve(let expected, let got): "curve \(got.map(String.init) ?? "(missing)") where the algorithm needs \(expected)"
        case .badParameter(let what): what
        }
    }
}

/// A credential public key: the COSE_Key an authenticator sent at registration, parsed into a swift-crypto
/// key that verifies its signatures. `encoded` keeps the CBOR bytes as sent, which is what is stored.
public struct COSEKey: Sendable {
    public var algorithm: COSEAlgorithm { key.algorithm }
    public let encoded: [UInt8]
    package let key: SigningKey

    /// COSE labels (RFC 9052 §7.1, RFC 9053 §7, RFC 8230 §4).
    package enum Label {
        package static let kty = 1, alg = 3, crv = -1, x = -2, y = -3, n = -1, e = -2
    }

    public init(encoded: [UInt8]) throws {
        try self.init(CBORDecoder.decodeWhole(encoded), encoded: encoded)
    }

    package init(_ map: CBOR, encoded: [UInt8]) throws(COSEKeyError) {
        guard map.entries != nil else { throw .notAMap }
        let alg = map[label: Label.alg]?.int
        guard let algorithm = alg.flatMap(COSEAlgorithm.init(rawValue:)) else { throw .unsupportedAlgorithm(alg) }
        self.encoded = encoded
        let key: SigningKey.Key
        switch algorithm {
        case .es256: key = .p256(try Self.ec(map, curve: 1, size: 32, P256.Signing.PublicKey.init(x963Representation:)))
        case .es384: key = .p384(try Self.ec(map, curve: 2, size: 48, P384.Signing.PublicKey.init(x963Representation:)))
        case .es512: key = .p521(try Self.ec(map, curve: 3, size: 66, P521.Signing.PublicKey.init(x963Representation:)))
        case .edDSA, .ed25519:
            try Self.expect(map, keyType: 1, curve: 6)
            // fail-closed: an Ed25519 key that does not parse throws badParameter: the credential is refused
            guard let x = map[label: Label.x]?.bytes, x.count == 32, let ed = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw .badParameter("an Ed25519 key needs a 32-byte x")
            }
            key = .ed25519(ed)
        case .rs256:
            let kty = map[label: Label.kty]?.int
            guard kty == 3 else { throw .wrongKeyType(expected: 3, got: kty) }
            guard let n = map[label: Label.n]?.bytes, let e = map[label: Label.e]?.bytes, n.first != 0, e.first != 0, !e.isEmpty, e.count <= 8 else {
                throw .badParameter("an RSA key needs a modulus and an exponent without leading zero bytes")
            }
            // Below 2048 bits swift-crypto refuses the key, and so does chatterd (NIST SP 800-131A).
            // fail-closed: an RSA key swift-crypto refuses (short, malformed) throws badParameter: the credential is refused
            guard let rsa = try? _RSA.Signing.PublicKey(n: n, e: e) else {
                throw .badParameter("an RSA modulus of \(n.count * 8) bits (at least 2048 are needed)")
            }
            key = .rsa(rsa)
        }
        self.key = SigningKey(algorithm: algorithm, key: key)
    }

    package static func expect(_ map: CBOR, keyType: Int, curve: Int) throws(COSEKeyError) {
        let kty = map[label: Label.kty]?.int
        guard kty == keyType else { throw .wrongKeyType(expected: keyType, got: kty) }
        let crv = map[label: Label.crv]?.int
        guard crv == curve else { throw .wrongCurve(expected: curve, got: crv) }
    }

    package static func ec<K>(_ map: CBOR, curve: Int, size: Int, _ make: ([UInt8]) throws -> K) throws(COSEKeyError) -> K {
        try expect(map, keyType: 2, curve: curve)
        guard let x = map[label: Label.x]?.bytes, let y = map[label: Label.y]?.bytes, x.count == size, y.count == size else {
            throw .badParameter("an EC2 key on curve \(curve) needs \(size)-byte x and y")
        }
        do { return try make([0x04] + x + y) } catch { throw .badParameter("the EC2 point is not on curve \(curve)") }
    }

    /// Whether `signature` signs `data` under this key with its declared algorithm.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool { key.isValidSignature(signature, for: data) }

    /// The key as a certificate carries it, to compare with an attestation certificate's subject key.
    public var certificateKey: Certificate.PublicKey { key.certificateKey }
}

/// A public key with the one algorithm it verifies: a credential's (from its COSE key) or an attestation
/// certificate's (for the algorithm the statement names).
package struct SigningKey: Sendable {
    package let algorithm: COSEAlgorithm
    package let key: Key

    package enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    package init(algorithm: COSEAlgorithm, key: Key) {
        self.algorithm = algorithm
        self.key = key
    }

    /// A certificate's key for `algorithm`, or nil when the key is of another type or curve.
    package init?(_ certificateKey: Certificate.PublicKey, algorithm: COSEAlgorithm) {
        let key: Key? =
            switch algorithm {
            case .es256: P256.Signing.PublicKey(certificateKey).map(Key.p256)
            case .es384: P384.Signing.PublicKey(certificateKey).map(Key.p384)
            case .es512: P521.Signing.PublicKey(certificateKey).map(Key.p521)
            case .edDSA, .ed25519: Curve25519.Signing.PublicKey(certificateKey).map(Key.ed25519)
            case .rs256: _RSA.Signing.PublicKey(certificateKey).map(Key.rsa)
            }
        guard let key else { return nil }
        self.init(algorithm: algorithm, key: key)
    }

    /// DER (X9.62) for ECDSA, as WebAuthn sends it; raw for EdDSA; PKCS #1 v1.5 for RS256.
    package func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        // fail-closed: a signature that is not DER is no signature: isValidSignature answers false
        case .p256(let key): (try? P256.Signing.ECDSASignature(derRepresentation: signature)).map { key.isValidSignature($0, for: data) } ?? false
        // fail-closed: a signature that is not DER is no signature: isValidSignature answers false
        case .p384(let key): (try? P384.Signing.ECDSASignature(derRepresentation: signature)).map { key.isValidSignature($0, for: data) } ?? false
        // fail-closed: a signature that is not DER is no signature: isValidSignature answers false
        case .p521(let key): (try? P521.Signing.ECDSASignature(derRepresentation: signature)).map { key.isValidSignature($0, for: data) } ?? false
        case .ed25519(let key): key.isValidSignature(signature, for: data)
        case .rsa(let key): key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }

    package var certificateKey: Certificate.PublicKey {
        switch key {
        case .p256(let key): Certificate.PublicKey(key)
        case .p384(let key): Certificate.PublicKey(key)
        case .p521(let key): Certificate.PublicKey(key)
        case .ed25519(let key): Certificate.PublicKey(key)
        case .rsa(let key): Certificate.PublicKey(key)
        }
    }
}
