import ChatterCore
import Crypto
import SwiftASN1
import X509

/// `apple` (WebAuthn §8.8), Apple's anonymous attestation: no signature; the credential certificate
/// carries a nonce over the authenticator data and client data hash, and the credential's key.
package enum AppleAnonymous {
    package static let nonceExtension: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]

    package static func verify(_ object: AttestationObject, signed: [UInt8]) throws -> AttestationStatement.Verified {
        typealias S = AttestationStatement
        let chain = try S.certificates(object.statement)
        guard let credential = object.authData.attestedCredential else { throw S.Failure("no attested credential") }
        let certificate = chain[0]
        guard let ext = certificate.extensions[oid: nonceExtension] else {
            throw S.Failure("the credential certificate has no nonce extension (1.2.840.113635.100.8.2)")
        }
        let expected = Array(SHA256.hash(data: signed))
        // fail-closed: a nonce extension that does not parse is nil, never the expected hash: the statement is refused
        guard (try? nonce(in: ext.value)) == expected else {
            throw S.Failure("the certificate's nonce is not SHA-256 of authenticator data and client data hash")
        }
        guard certificate.publicKey == credential.publicKey.certificateKey else {
            throw S.Failure("the credential certificate's key is not the credential's key")
        }
        return S.Verified(format: .apple, kind: .anonCA, chain: chain)
    }

    /// `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    package static func nonce(in der: ArraySlice<UInt8>) throws -> [UInt8] {
        let root = try DER.parse(Array(der))
        return try DER.sequence(root, identifier: .sequence) { nodes in
            guard let tagged = nodes.next(), tagged.identifier == ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific),
                case .constructed(let inner) = tagged.content, let octets = inner.first(where: { _ in true })
            else { throw ASN1Error.invalidASN1Object(reason: "expected [1] EXPLICIT OCTET STRING") }
            guard nodes.next() == nil else { throw ASN1Error.invalidASN1Object(reason: "trailing fields") }
            return Array(try ASN1OctetString(derEncoded: octets).bytes)
        }
    }
}
