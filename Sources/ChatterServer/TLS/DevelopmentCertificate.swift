import ChatterCore
import ChatterDomain
import ChatterStorage
import Crypto
import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The self-signed certificate chatterd makes for development, like the course's `chatterd.crt`: clients
/// (a simulator, `chatter --cert`) trust this one file, or pin its public key.
public enum DevelopmentCertificate {
    /// Names every development certificate covers; `--host` names are added to these.
    public static let defaultNames = ["localhost", "127.0.0.1", "::1"]
    /// Apple platforms refuse TLS server certificates valid for longer than 825 days.
    static let validity: TimeInterval = 825 * 24 * 3600

    public struct Files: Sendable {
        public var certificatePath: String
        public var keyPath: String
        /// Whether this start created them.
        public var generated: Bool
    }

    /// Reuses `chatterd.crt`/`chatterd.key` in `directory` when they exist, are still valid and cover
    /// every name; otherwise generates a new pair (key file mode 0600).
    public static func ensure(in directory: String, names extraNames: [String], now: Date = Date()) throws -> Files {
        let certPath = (directory as NSString).appendingPathComponent("chatterd.crt")
        let keyPath = (directory as NSString).appendingPathComponent("chatterd.key")
        let names = defaultNames + extraNames.filter { !defaultNames.contains($0) }
        if let existing = try? String(contentsOfFile: certPath, encoding: .utf8),
            FileManager.default.fileExists(atPath: keyPath),
            let certificate = try? Certificate(pemEncoded: existing),
            certificate.notValidAfter > now.addingTimeInterval(24 * 3600),
            Set(covered(by: certificate)).isSuperset(of: names)
        {
            return Files(certificatePath: certPath, keyPath: keyPath, generated: false)
        }
        let key = P256.Signing.PrivateKey()
        let pem = try make(key: key, names: names, now: now).serializeAsPEM().pemString
        // Create the key file with 0600 from the start, so it is never readable by others even briefly.
        _ = FileManager.default.createFile(atPath: keyPath, contents: nil, attributes: [.posixPermissions: 0o600])
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
        try Data(pem.utf8).write(to: URL(fileURLWithPath: certPath), options: .atomic)
        return Files(certificatePath: certPath, keyPath: keyPath, generated: true)
    }

    static func make(key: P256.Signing.PrivateKey, names: [String], now: Date) throws -> Certificate {
        let subject = try DistinguishedName {
            OrganizationName("Chatter development")
            CommonName(names.first ?? "localhost")
        }
        let sans = SubjectAlternativeNames(
            names.map { name in
                if let bytes = ipAddressBytes(name) { return .ipAddress(ASN1OctetString(contentBytes: bytes[...])) }
                return .dnsName(name)
            })
        // A CA flag lets the one file be installed as a trusted root on a simulator or device.
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            sans
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(validity),
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: .init(key))
    }

    static func covered(by certificate: Certificate) -> [String] {
        guard let sans = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return sans.compactMap { name in
            switch name {
            case .dnsName(let dns): return dns
            case .ipAddress(let octets): return ipAddressText(Array(octets.bytes))
            default: return nil
            }
        }
    }

    static func ipAddressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    static func ipAddressText(_ bytes: [UInt8]) -> String? {
        let family = bytes.count == 4 ? AF_INET : (bytes.count == 16 ? AF_INET6 : -1)
        guard family != -1 else { return nil }
        var text = [CChar](repeating: 0, count: 64)
        guard inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The SHA-256 pin of a certificate's SubjectPublicKeyInfo, base64: what HPKP-style pinning and
/// `chatter --pin` compare.
public enum PublicKeyPin {
    public static func sha256(ofCertificatePEM pem: String) throws -> String {
        try sha256(of: Certificate(pemEncoded: pem).publicKey)
    }

    public static func sha256(of key: Certificate.PublicKey) throws -> String {
        let spki = try key.serializeAsPEM().derBytes
        return Data(SHA256.hash(data: spki)).base64EncodedString()
    }
}
