import ChatterCore
import Crypto
import SwiftASN1
import X509
import _CryptoExtras

/// `tpm` (WebAuthn §8.3): a TPM 2.0 certifies the credential key (`pubArea`) with its attestation identity
/// key; `certInfo` is the TPM's signed statement, whose extra data is a hash of what WebAuthn signs.
package enum TPM {
    package static func verify(_ object: AttestationObject, signed: [UInt8]) throws -> AttestationStatement.Verified {
        typealias S = AttestationStatement
        let statement = object.statement
        guard statement["ver"]?.text == "2.0" else { throw S.Failure("ver is not \"2.0\"") }
        let algorithm = try Signing(statement)
        let signature = try S.signature(statement)
        let chain = try S.certificates(statement)
        guard let pubAreaBytes = statement["pubArea"]?.bytes, let certInfoBytes = statement["certInfo"]?.bytes else {
            throw S.Failure("no pubArea or certInfo byte string")
        }
        guard let credential = object.authData.attestedCredential else { throw S.Failure("no attested credential") }
        let pubArea = try PublicArea(pubAreaBytes)
        guard pubArea.matches(credential.publicKey) else { throw S.Failure("pubArea's key is not the credential's key") }
        let info = try CertifyInfo(certInfoBytes)
        guard info.extraData == algorithm.digest(signed) else {
            throw S.Failure("certInfo's extraData is not the hash of authenticator data and client data hash")
        }
        guard let name = PublicArea.name(pubAreaBytes, nameAlg: pubArea.nameAlg), info.attestedName == name else {
            throw S.Failure("certInfo does not certify this pubArea (its name differs)")
        }
        let aik = chain[0]
        try algorithm.verify(signature, over: certInfoBytes, by: aik)
        try requirements(aik, aaguid: credential.aaguid)
        return S.Verified(format: .tpm, kind: .attCA, chain: chain)
    }

    /// How the AIK signed `certInfo`: a COSE algorithm chatterd accepts for credentials, or RS1
    /// (RSASSA-PKCS1-v1_5 with SHA-1, COSE −65535), which WebAuthn's TPM format allows and which Windows Hello
    /// produces on many TPMs. RS1 is accepted here alone: it vouches for a TPM's statement about a key, and no
    /// credential is ever registered with it (`COSEAlgorithm` has no such case).
    package enum Signing {
        case cose(COSEAlgorithm)
        case rs1

        package static let rs1Identifier = -65535

        package init(_ statement: CBOR) throws {
            self = statement["alg"]?.int == Self.rs1Identifier ? .rs1 : .cose(try AttestationStatement.algorithm(statement))
        }

        /// `extraData` is the hash of what WebAuthn signs under the algorithm's own hash (§8.3.2).
        package func digest(_ data: [UInt8]) -> [UInt8] {
            switch self {
            case .rs1: Array(Insecure.SHA1.hash(data: data))
            case .cose(.es384): Array(SHA384.hash(data: data))
            case .cose(.es512): Array(SHA512.hash(data: data))
            case .cose: Array(SHA256.hash(data: data))
            }
        }

        package func verify(_ signature: [UInt8], over data: [UInt8], by certificate: Certificate) throws {
            switch self {
            case .cose(let algorithm): try AttestationStatement.verify(signature, over: data, by: certificate, algorithm: algorithm)
            case .rs1:
                guard let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
                    throw AttestationStatement.Failure("the attestation certificate's key is not an RSA key (alg RS1)")
                }
                let valid = key.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: signature), for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
                guard valid else { throw AttestationStatement.Failure("the signature does not verify with the attestation certificate's key") }
            }
        }
    }

    package static let tcgKpAIKCertificate: ASN1ObjectIdentifier = [2, 23, 133, 8, 3]
    package static let manufacturer: ASN1ObjectIdentifier = [2, 23, 133, 2, 1]
    package static let model: ASN1ObjectIdentifier = [2, 23, 133, 2, 2]
    package static let version: ASN1ObjectIdentifier = [2, 23, 133, 2, 3]

    /// §8.3.1: version 3, an empty subject, the TPM's manufacturer, model and version in the subject
    /// alternative name, the AIK certificate purpose, not a CA, the AAGUID extension if any matching.
    package static func requirements(_ certificate: Certificate, aaguid: [UInt8]) throws {
        typealias S = AttestationStatement
        guard certificate.version == .v3 else { throw S.Failure("the AIK certificate is not version 3") }
        guard certificate.subject.isEmpty else { throw S.Failure("the AIK certificate's subject is not empty") }
        // fail-closed: a SAN that does not parse gives no names: the missing TPM manufacturer refuses the statement
        let names: [GeneralName] = ((try? certificate.extensions.subjectAlternativeNames) ?? nil).map { Array($0) } ?? []
        let attributes = names.flatMap { name -> [RelativeDistinguishedName.Attribute] in
            if case .directoryName(let directory) = name { return directory.flatMap { Array($0) } }
            return []
        }
        for (oid, what) in [(manufacturer, "manufacturer"), (model, "model"), (version, "version")] where !attributes.contains(where: { $0.type == oid }) {
            throw S.Failure("the AIK certificate's subject alternative name has no TPM \(what)")
        }
        // fail-closed: an extended key usage that does not parse gives none: the missing AIK purpose refuses the statement
        let usages = ((try? certificate.extensions.extendedKeyUsage) ?? nil).map { Array($0) } ?? []
        guard usages.contains(where: { $0 == ExtendedKeyUsage.Usage(oid: tcgKpAIKCertificate) }) else {
            throw S.Failure("the AIK certificate's extended key usage lacks tcg-kp-AIKCertificate (2.23.133.8.3)")
        }
        try S.requireNotCA(certificate)
        try S.checkAAGUIDExtension(certificate, aaguid: aaguid)
    }

    /// Big-endian reads over TPM structures, refusing to run past the end.
    package struct Reader {
        package let bytes: [UInt8]
        package var offset = 0

        package mutating func take(_ count: Int) throws -> [UInt8] {
            guard count >= 0, offset + count <= bytes.count else { throw AttestationStatement.Failure("a TPM structure ends early") }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        package mutating func uint(_ size: Int) throws -> UInt64 { try take(size).reduce(0) { $0 << 8 | UInt64($1) } }
        /// A TPM2B: a 16-bit size, then that many bytes.
        package mutating func sized() throws -> [UInt8] { try take(Int(try uint(2))) }
        package var atEnd: Bool { offset == bytes.count }
    }

    /// `TPMT_PUBLIC` (TPM 2.0 Part 2 §12.2.4), for an RSA or ECC signing key.
    package struct PublicArea {
        package enum Key {
            case rsa(modulus: [UInt8], exponent: UInt32)
            case ecc(curve: UInt16, x: [UInt8], y: [UInt8])
        }
        package var nameAlg: UInt16
        package var key: Key

        package init(_ bytes: [UInt8]) throws {
            var reader = Reader(bytes: bytes)
            let type = UInt16(try reader.uint(2))
            nameAlg = UInt16(try reader.uint(2))
            _ = try reader.uint(4)  // objectAttributes
            _ = try reader.sized()  // authPolicy
            switch type {
            case 0x0001:  // TPM_ALG_RSA: symmetric, scheme, keyBits, exponent; unique is the modulus
                _ = try reader.take(6)
                let exponent = UInt32(try reader.uint(4))
                key = .rsa(modulus: try reader.sized(), exponent: exponent == 0 ? 65537 : exponent)
            case 0x0023:  // TPM_ALG_ECC: symmetric, scheme, curveID, kdf; unique is the point
                _ = try reader.take(4)
                let curve = UInt16(try reader.uint(2))
                _ = try reader.take(2)
                key = .ecc(curve: curve, x: try reader.sized(), y: try reader.sized())
            default: throw AttestationStatement.Failure("pubArea type \(type) is neither RSA nor ECC")
            }
            guard reader.atEnd else { throw AttestationStatement.Failure("bytes after pubArea's key") }
        }

        package func matches(_ credential: COSEKey) -> Bool {
            switch (key, credential.key.key) {
            case (.ecc(let curve, let x, let y), let credentialKey):
                let point: [UInt8]? =
                    switch credentialKey {
                    case .p256(let k) where curve == 0x0003: Array(k.x963Representation)
                    case .p384(let k) where curve == 0x0004: Array(k.x963Representation)
                    case .p521(let k) where curve == 0x0005: Array(k.x963Representation)
                    default: nil
                    }
                return point == [0x04] + x + y
            case (.rsa(let modulus, let exponent), .rsa(let k)):
                // fail-closed: an RSA key whose primitives cannot be read does not match pubArea: the statement is refused
                guard let primitives = try? k.getKeyPrimitives() else { return false }
                let e = primitives.publicExponent.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return Array(primitives.modulus.drop { $0 == 0 }) == Array(modulus.drop { $0 == 0 }) && e == UInt64(exponent)
            default:
                return false
            }
        }

        /// The TPM name of a public area: its nameAlg, then the hash of the whole structure under it.
        package static func name(_ bytes: [UInt8], nameAlg: UInt16) -> [UInt8]? {
            let hash: [UInt8]? =
                switch nameAlg {
                case 0x000B: Array(SHA256.hash(data: bytes))
                case 0x000C: Array(SHA384.hash(data: bytes))
                case 0x000D: Array(SHA512.hash(data: bytes))
                default: nil
                }
            return hash.map { [UInt8(nameAlg >> 8), UInt8(nameAlg & 0xFF)] + $0 }
        }
    }

    /// `TPMS_ATTEST` of type `TPM_ST_ATTEST_CERTIFY` (Part 2 §10.12.12).
    package struct CertifyInfo {
        package var extraData: [UInt8]
        package var attestedName: [UInt8]

        package init(_ bytes: [UInt8]) throws {
            var reader = Reader(bytes: bytes)
            guard try reader.uint(4) == 0xFF54_4347 else { throw AttestationStatement.Failure("certInfo's magic is not TPM_GENERATED_VALUE") }
            guard try reader.uint(2) == 0x8017 else { throw AttestationStatement.Failure("certInfo's type is not TPM_ST_ATTEST_CERTIFY") }
            _ = try reader.sized()  // qualifiedSigner
            extraData = try reader.sized()
            _ = try reader.take(17 + 8)  // clockInfo, firmwareVersion
            attestedName = try reader.sized()
            _ = try reader.sized()  // qualifiedName
            guard reader.atEnd else { throw AttestationStatement.Failure("bytes after certInfo") }
        }
    }
}
