import ChatterTestSupport
import Crypto
import Foundation
import Testing
import X509

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

@Suite struct DevelopmentCertificateTests {
    @Test func generatesACertificateCoveringLoopbackAndGivenHosts() async throws {
        try await withTemporaryDirectory { dir in
            let files = try DevelopmentCertificate.ensure(in: dir, names: ["chatter.local", "192.168.1.20"])
            #expect(files.generated)
            #expect(files.certificatePath == dir + "/chatterd.crt")
            #expect(files.keyPath == dir + "/chatterd.key")
            let certificate = try Certificate(pemEncoded: String(contentsOfFile: files.certificatePath, encoding: .utf8))
            #expect(Set(DevelopmentCertificate.covered(by: certificate)) == ["localhost", "127.0.0.1", "::1", "chatter.local", "192.168.1.20"])
            #expect(try certificate.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
            #expect(certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) <= 825 * 24 * 3600 + 3600)
            let mode = try FileManager.default.attributesOfItem(atPath: files.keyPath)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // The key on disk is the certificate's.
            let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: files.keyPath, encoding: .utf8))
            #expect(Certificate.PublicKey(key.publicKey) == certificate.publicKey)
        }
    }

    @Test func reusesTheCertificateUntilANewHostIsNeeded() async throws {
        try await withTemporaryDirectory { dir in
            let first = try DevelopmentCertificate.ensure(in: dir, names: [])
            let pem = try String(contentsOfFile: first.certificatePath, encoding: .utf8)
            let again = try DevelopmentCertificate.ensure(in: dir, names: ["localhost"])
            #expect(!again.generated)
            #expect(try String(contentsOfFile: again.certificatePath, encoding: .utf8) == pem)
            let widened = try DevelopmentCertificate.ensure(in: dir, names: ["chatter.local"])
            #expect(widened.generated)
            #expect(try String(contentsOfFile: widened.certificatePath, encoding: .utf8) != pem)
        }
    }

    @Test func pinIsTheSHA256OfTheSubjectPublicKeyInfo() async throws {
        try await withTemporaryDirectory { dir in
            let files = try DevelopmentCertificate.ensure(in: dir, names: [])
            let pem = try String(contentsOfFile: files.certificatePath, encoding: .utf8)
            let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: files.keyPath, encoding: .utf8))
            // swift-crypto's DER form of a public key is its SubjectPublicKeyInfo.
            let expected = Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
            #expect(try PublicKeyPin.sha256(ofCertificatePEM: pem) == expected)
        }
    }

    @Test func tlsTransportLoadsTheGeneratedPair() async throws {
        try await withTemporaryDirectory { dir in
            var config = ServerConfiguration()
            config.dataDirectory = dir
            let transport = try PreparedTransport.prepare(config)
            #expect(transport.scheme == "https")
            #expect(transport.notes.contains { $0.hasPrefix("public key pin (SHA-256 SPKI): ") })
            config.transport = .http
            #expect(try PreparedTransport.prepare(config).scheme == "http")
        }
    }
}
