import ChatterDomain
import Crypto
import Foundation
import SwiftASN1
import X509

/// A device's App Attest as Apple's "Validating apps that connect to your server" describes its output, under a
/// certificate authority of the test's own in place of Apple's App Attestation root: real devices' objects cannot be
/// made for a challenge chatterd issues during a test. The verifier's checks are held to real devices' objects in
/// `AppAttestVectorTests`; this only lets flows run end to end.
public struct SimulatedAppAttest: Sendable {
    /// The authority standing in for Apple's root: pass it to `AppAttestVerifier(root:)`.
    public let root: Certificate
    let intermediate: Certificate
    let intermediateKey: P384.Signing.PrivateKey
    public let appID: String
    public let environment: AppAttestEnvironment

    public init(appID: String = "ABCDE12345.com.example.chatter", environment: AppAttestEnvironment = .production, now: Date = Date()) throws {
        self.appID = appID
        self.environment = environment
        let rootKey = P384.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Test App Attestation Root CA") }
        root = try Self.authority(name: rootName, key: rootKey.publicKey, issuer: rootName, issuerKey: rootKey, now: now)
        intermediateKey = P384.Signing.PrivateKey()
        intermediate = try Self.authority(
            name: try DistinguishedName { CommonName("Test App Attestation CA 1") }, key: intermediateKey.publicKey, issuer: rootName,
            issuerKey: rootKey, now: now)
    }

    /// One app install's key, as `DCAppAttestService.generateKey` makes it.
    public struct Key: Sendable {
        public let privateKey: P256.Signing.PrivateKey
        /// SHA-256 of the public key's X9.63 point: what the app names the key by.
        public var keyID: [UInt8] { Array(SHA256.hash(data: Array(privateKey.publicKey.x963Representation))) }

        public init(privateKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) {
            self.privateKey = privateKey
        }
    }

    /// `attestKey(_:clientDataHash:)`'s answer: `{fmt, attStmt: {x5c, receipt}, authData}` with the nonce
    /// extension over SHA-256(authData ‖ clientDataHash).
    /// `appID` and `environment` (this device's unless given) name another app or environment under the same authority.
    public func attestation(
        of key: Key, clientDataHash: [UInt8], now: Date = Date(), appID: String? = nil, environment: AppAttestEnvironment? = nil
    ) throws -> [UInt8] {
        let appID = appID ?? self.appID
        let environment = environment ?? self.environment
        let point = Array(key.privateKey.publicKey.x963Representation)
        let authData =
            AppAttestVerifier.rpIDHash(appID) + [0x40] + [0, 0, 0, 0] + environment.aaguid + [0, 32] + key.keyID + CBOREncoder.coseKey(point)
        let nonce = Array(SHA256.hash(data: authData + clientDataHash))
        // SEQUENCE { [1] EXPLICIT OCTET STRING nonce }
        let nonceValue: [UInt8] = [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.privateKey.publicKey), notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86400 * 3), issuer: intermediate.subject,
            subject: try DistinguishedName { CommonName(key.keyID.map { String(format: "%02x", $0) }.joined()) },
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Certificate.Extension(oid: [1, 2, 840, 113635, 100, 8, 2], critical: false, value: nonceValue[...])
            }, issuerPrivateKey: .init(intermediateKey))
        let chain = try [leaf, intermediate].map { certificate in
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return CBOREncoder.encode(.bytes(serializer.serializedBytes))
        }
        let statement = CBOREncoder.map([
            (.text("x5c"), .raw(CBOREncoder.head(4, 2) + chain.joined())), (.text("receipt"), .bytes(Array("simulated receipt".utf8))),
        ])
        return CBOREncoder.map([(.text("fmt"), .text("apple-appattest")), (.text("attStmt"), .raw(statement)), (.text("authData"), .bytes(authData))])
    }

    /// `generateAssertion(_:clientDataHash:)`'s answer at `counter`: `{signature, authenticatorData}`, the signature
    /// DER ECDSA over SHA-256(authenticatorData ‖ clientDataHash).
    public func assertion(by key: Key, clientDataHash: [UInt8], counter: UInt32) throws -> [UInt8] {
        let authData = AppAttestVerifier.rpIDHash(appID) + [0x40] + withUnsafeBytes(of: counter.bigEndian, Array.init)
        let nonce = Array(SHA256.hash(data: authData + clientDataHash))
        let signature = Array(try key.privateKey.signature(for: nonce).derRepresentation)
        return CBOREncoder.map([(.text("signature"), .bytes(signature)), (.text("authenticatorData"), .bytes(authData))])
    }

    static func authority(name: DistinguishedName, key: P384.Signing.PublicKey, issuer: DistinguishedName, issuerKey: P384.Signing.PrivateKey, now: Date)
        throws -> Certificate
    {
        try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key), notValidBefore: now.addingTimeInterval(-86400),
            notValidAfter: now.addingTimeInterval(86400 * 365), issuer: issuer, subject: name, signatureAlgorithm: .ecdsaWithSHA384,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(issuerKey))
    }
}
