import ChatterCore
import SwiftASN1
import X509

/// `packed` (WebAuthn §8.2): a signature over authenticator data and client data hash, by an attestation
/// certificate (`x5c`) or by the credential's own key (self attestation).
package enum Packed {
    package static func verify(_ object: AttestationObject, signed: [UInt8]) throws -> AttestationStatement.Verified {
        typealias S = AttestationStatement
        let statement = object.statement
        let algorithm = try S.algorithm(statement)
        let signature = try S.signature(statement)
        guard let credential = object.authData.attestedCredential else { throw S.Failure("no attested credential") }
        guard statement["ecdaaKeyId"] == nil else { throw S.Failure("ECDAA attestation was removed from WebAuthn and is not supported") }
        let chain = try S.certificates(statement, required: false)
        guard let certificate = chain.first else {
            guard algorithm == credential.publicKey.algorithm else {
                throw S.Failure("self attestation with alg \(algorithm.name) by a \(credential.publicKey.algorithm.name) credential")
            }
            guard credential.publicKey.isValidSignature(signature, for: signed) else { throw S.Failure("the self-attestation signature does not verify") }
            return S.Verified(format: .packed, kind: .self, chain: [])
        }
        try S.verify(signature, over: signed, by: certificate, algorithm: algorithm)
        try requirements(certificate, aaguid: credential.aaguid)
        return S.Verified(format: .packed, kind: .basic, chain: chain)
    }

    /// §8.2.1: version 3, a subject with C, O, OU "Authenticator Attestation" and CN, the AAGUID extension
    /// if any matching, and not a CA.
    package static func requirements(_ certificate: Certificate, aaguid: [UInt8]) throws {
        typealias S = AttestationStatement
        guard certificate.version == .v3 else { throw S.Failure("the attestation certificate is not version 3") }
        let required: [(ASN1ObjectIdentifier, String)] = [
            (.RDNAttributeType.countryName, "C"), (.RDNAttributeType.organizationName, "O"), (.RDNAttributeType.commonName, "CN"),
        ]
        for (type, name) in required where S.subject(certificate, type)?.isEmpty ?? true {
            throw S.Failure("the attestation certificate's subject has no \(name)")
        }
        guard S.subject(certificate, .RDNAttributeType.organizationalUnitName) == "Authenticator Attestation" else {
            throw S.Failure("the attestation certificate's subject OU is not \"Authenticator Attestation\"")
        }
        try S.checkAAGUIDExtension(certificate, aaguid: aaguid)
        try S.requireNotCA(certificate)
    }
}

/// `fido-u2f` (WebAuthn §8.6): a U2F authenticator's signature over the U2F registration data.
package enum FIDOU2F {
    package static func verify(_ object: AttestationObject, clientDataHash: [UInt8]) throws -> AttestationStatement.Verified {
        typealias S = AttestationStatement
        let signature = try S.signature(object.statement)
        let chain = try S.certificates(object.statement)
        guard chain.count == 1 else { throw S.Failure("x5c must hold exactly one certificate, not \(chain.count)") }
        guard let credential = object.authData.attestedCredential, case .p256(let key) = credential.publicKey.key.key else {
            throw S.Failure("a U2F credential must be an ES256 key on P-256")
        }
        let data = [0x00] + object.authData.rpIDHash + clientDataHash + credential.credentialID + Array(key.x963Representation)
        try S.verify(signature, over: data, by: chain[0], algorithm: .es256)
        return S.Verified(format: .fidoU2F, kind: .basic, chain: chain)
    }
}
