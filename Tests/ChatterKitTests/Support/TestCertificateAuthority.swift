import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import ChatterTestSupport
import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made for one test, and server certificates it signs for 127.0.0.1: to show
/// that a pin holds against a certificate a trusted CA signed for another key.
struct TestCertificateAuthority {
    let key = P256.Signing.PrivateKey()
    let name: DistinguishedName
    let certificate: Certificate

    init() throws {
        name = try DistinguishedName { CommonName("Chatter test CA") }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key))
    }

    /// Writes the CA (`ca.pem`) and a server certificate for 127.0.0.1 with a fresh key (`<label>.pem`,
    /// `<label>.key`) into `directory`; returns their paths and the server key's pin.
    func issueServerCertificate(in directory: String, label: String) throws -> (ca: String, certificate: String, key: String, pin: String) {
        let serverKey = P256.Signing.PrivateKey()
        let now = Date()
        let subject = try DistinguishedName { CommonName("127.0.0.1") }
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400), issuer: name, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key))
        let paths = (ca: directory + "/ca.pem", certificate: directory + "/\(label).pem", key: directory + "/\(label).key")
        try certificate.serializeAsPEM().pemString.write(toFile: paths.ca, atomically: true, encoding: .utf8)
        try leaf.serializeAsPEM().pemString.write(toFile: paths.certificate, atomically: true, encoding: .utf8)
        try serverKey.pemRepresentation.write(toFile: paths.key, atomically: true, encoding: .utf8)
        let pin = try PublicKeyPin.sha256(of: leaf.publicKey)
        return (paths.ca, paths.certificate, paths.key, pin)
    }
}

extension TestCertificateAuthority {
    typealias Issued = (ca: String, certificate: String, key: String, pin: String)

    /// One CA's certificates for two keys in a temporary directory: the key a client pins, and another.
    static func withGenuineAndImpostor(_ body: (_ genuine: Issued, _ impostor: Issued) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let ca = try TestCertificateAuthority()
            try await body(
                try ca.issueServerCertificate(in: directory, label: "genuine"), try ca.issueServerCertificate(in: directory, label: "impostor"))
        }
    }
}
