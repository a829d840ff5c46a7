import ChatterTestSupport
import ChatterWire
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
import _CryptoExtras

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// A TPM attestation signed with RS1 (RSASSA-PKCS1-v1_5 with SHA-1, COSE −65535), as Windows Hello produces
/// on many TPMs and WebAuthn's TPM format allows. Built from WebAuthn L3's `tpm-es256` vector: its pubArea,
/// authenticator data and client data, with an RSA attestation identity key certified by the vectors' own CA
/// (whose private key the vectors publish), its `certInfo` re-hashed with SHA-1 and signed RS1.
@Suite struct TPMRS1Tests {
    static let vector = WebAuthnVector.named("tpm-es256")
    static let caKey = try! P256.Signing.PrivateKey(
        rawRepresentation: WebAuthnVector.hex(WebAuthnVector.entries.first { $0.id == "attestation-root-cert" }!.values!["attestation_ca_key"]!))

    /// The vector's registration with an RS1 statement by a new RSA AIK; `tamper` changes the signed certInfo.
    static func rs1Registration(tamper: Bool = false) throws -> RegistrationResponseJSON {
        let object = try CBORDecoder.decodeWhole(WebAuthnVector.hex(vector.registration["attestationObject"]!))
        let statement = try #require(object["attStmt"])
        let authData = try #require(object["authData"]?.bytes)
        let clientData = WebAuthnVector.hex(vector.registration["clientDataJSON"]!)
        let old = try Certificate(derEncoded: try #require(statement["x5c"]?.array?.first?.bytes))

        let aik = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        var extensions = Certificate.Extensions()
        for ext in old.extensions where ext.oid != .X509ExtensionID.authorityKeyIdentifier { try extensions.append(ext) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(aik.publicKey), notValidBefore: old.notValidBefore,
            notValidAfter: old.notValidAfter, issuer: WebAuthnVector.attestationRoot.subject, subject: DistinguishedName(),
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(caKey))
        var der = DER.Serializer()
        try der.serialize(certificate)

        // certInfo (TPMS_ATTEST): magic, type, qualifiedSigner, then extraData, which becomes SHA-1's hash.
        let certInfo = try #require(statement["certInfo"]?.bytes)
        let signerLength = Int(certInfo[6]) << 8 | Int(certInfo[7])
        let extraStart = 8 + signerLength
        let oldExtraLength = Int(certInfo[extraStart]) << 8 | Int(certInfo[extraStart + 1])
        let extra = Array(Insecure.SHA1.hash(data: authData + Array(SHA256.hash(data: clientData))))
        var newInfo = Array(certInfo[..<extraStart]) + [0, UInt8(extra.count)] + extra + Array(certInfo[(extraStart + 2 + oldExtraLength)...])
        let signature = try aik.signature(for: Insecure.SHA1.hash(data: newInfo), padding: .insecurePKCS1v1_5)
        if tamper { newInfo[newInfo.count - 1] ^= 1 }

        let attStmt = CBOREncoder.map([
            (.text("ver"), .text("2.0")), (.text("alg"), .int(-65535)), (.text("x5c"), .raw([0x81] + CBOREncoder.encode(.bytes(der.serializedBytes)))),
            (.text("sig"), .bytes(Array(signature.rawRepresentation))), (.text("certInfo"), .bytes(newInfo)),
            (.text("pubArea"), .bytes(try #require(statement["pubArea"]?.bytes))),
        ])
        let attestationObject = CBOREncoder.map([(.text("fmt"), .text("tpm")), (.text("attStmt"), .raw(attStmt)), (.text("authData"), .bytes(authData))])
        var registration = vector.registrationResponse
        registration.response.attestationObject = Base64URL.encode(attestationObject)
        return registration
    }

    @Test func anRS1StatementFromATPMRegistersWithItsChainToTheAnchor() async throws {
        let verifier = PasskeyVectorTests.verifier(WebAuthnVector.party(requireTrust: true))
        let report = await verifier.inspectRegistration(try Self.rs1Registration(), challenge: Self.vector.registrationChallenge)
        #expect(report.passed, "\(report.text)")
        let registered = try report.get()
        #expect(registered.format == .tpm)
        #expect(registered.publicKey.algorithm == .es256, "the credential itself is the vector's ES256 key")
        #expect(registered.trustPath.last == WebAuthnVector.attestationRoot)

        let tampered = await verifier.inspectRegistration(try Self.rs1Registration(tamper: true), challenge: Self.vector.registrationChallenge)
        #expect(tampered.firstFailure?.check == .attestation, "\(tampered.text)")
    }

    /// RS1 vouches for a TPM's statement only: a credential key declaring it is refused.
    @Test func noCredentialIsRegisteredWithRS1() throws {
        let key = CBOREncoder.map([
            (.int(1), .int(3)), (.int(3), .int(-65535)), (.int(-1), .bytes([0xC1] + Array(repeating: 7, count: 255))), (.int(-2), .bytes([1, 0, 1])),
        ])
        #expect(throws: COSEKeyError.unsupportedAlgorithm(-65535)) { try COSEKey(encoded: key) }
    }
}
