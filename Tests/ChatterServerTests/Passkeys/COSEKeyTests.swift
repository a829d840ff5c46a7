import ChatterTestSupport
import Crypto
import Testing
import _CryptoExtras

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// COSE keys are checked against the algorithm they declare: its key type, curve and size.
@Suite struct COSEKeyTests {
    static func ec2(alg: Int = -7, crv: Int = 1, x: [UInt8], y: [UInt8], kty: Int = 2) -> [UInt8] {
        CBOREncoder.map([(.int(1), .int(kty)), (.int(3), .int(alg)), (.int(-1), .int(crv)), (.int(-2), .bytes(x)), (.int(-3), .bytes(y))])
    }

    static let point: (x: [UInt8], y: [UInt8]) = {
        let raw = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        return (Array(raw[1...32]), Array(raw[33...64]))
    }()

    @Test func aP256KeyOnItsCurveVerifiesItsSignatures() throws {
        let privateKey = P256.Signing.PrivateKey()
        let raw = Array(privateKey.publicKey.x963Representation)
        let key = try COSEKey(encoded: Self.ec2(x: Array(raw[1...32]), y: Array(raw[33...64])))
        #expect(key.algorithm == .es256)
        let signature = try privateKey.signature(for: [1, 2, 3])
        #expect(key.isValidSignature(Array(signature.derRepresentation), for: [1, 2, 3]))
        #expect(!key.isValidSignature(Array(signature.derRepresentation), for: [1, 2, 4]))
        #expect(!key.isValidSignature(Array(signature.rawRepresentation), for: [1, 2, 3]), "WebAuthn's ECDSA signatures are DER")
    }

    @Test func aKeyThatDoesNotMatchItsDeclaredAlgorithmIsRefused() {
        let (x, y) = Self.point
        #expect(throws: COSEKeyError.wrongCurve(expected: 1, got: 2)) { try COSEKey(encoded: Self.ec2(crv: 2, x: x, y: y)) }
        #expect(throws: COSEKeyError.wrongKeyType(expected: 2, got: 1)) { try COSEKey(encoded: Self.ec2(x: x, y: y, kty: 1)) }
        #expect(throws: COSEKeyError.self) { try COSEKey(encoded: Self.ec2(x: Array(x.dropFirst()), y: y)) }  // 31-byte x
        var off = y
        off[31] ^= 1
        #expect(throws: COSEKeyError.self) { try COSEKey(encoded: Self.ec2(x: x, y: off)) }  // not on the curve
        #expect(throws: COSEKeyError.unsupportedAlgorithm(-65535)) { try COSEKey(encoded: Self.ec2(alg: -65535, x: x, y: y)) }  // RS1
        #expect(throws: COSEKeyError.unsupportedAlgorithm(nil)) {
            try COSEKey(encoded: CBOREncoder.map([(.int(1), .int(2)), (.int(-1), .int(1)), (.int(-2), .bytes(x)), (.int(-3), .bytes(y))]))
        }
    }

    @Test func anRSAKeyUnder2048BitsIsRefused() throws {
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.getKeyPrimitives()
        let key = CBOREncoder.map([
            (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(Array(small.modulus))), (.int(-2), .bytes(Array(small.publicExponent))),
        ])
        #expect(throws: COSEKeyError.self) { try COSEKey(encoded: key) }
        let large = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try large.publicKey.getKeyPrimitives()
        let good = try COSEKey(
            encoded: CBOREncoder.map([
                (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(Array(primitives.modulus))), (.int(-2), .bytes(Array(primitives.publicExponent))),
            ]))
        let signature = try large.signature(for: [9], padding: .insecurePKCS1v1_5)
        #expect(good.isValidSignature(Array(signature.rawRepresentation), for: [9]))
    }

    @Test func anEd25519KeyNeeds32BytesOnCurve6() throws {
        let privateKey = Curve25519.Signing.PrivateKey()
        let x = Array(privateKey.publicKey.rawRepresentation)
        let key = try COSEKey(encoded: CBOREncoder.map([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(x))]))
        #expect(key.isValidSignature(Array(try privateKey.signature(for: [5])), for: [5]))
        #expect(throws: COSEKeyError.wrongCurve(expected: 6, got: 7)) {
            try COSEKey(encoded: CBOREncoder.map([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(7)), (.int(-2), .bytes(x))]))  // Ed448's curve
        }
    }
}
