import ChatterCore
import Foundation
import SwiftASN1
import X509

/// Verifies an attestation statement (WebAuthn §8) by its format: the signature, nonce or extension values
/// each format defines, and the certificate requirements of its attestation certificate. The chain itself
/// is checked afterwards against the trust anchors (`PasskeyVerifier.trust`).
public enum AttestationStatement {
    /// The attestation types of §6.5.3.
    package enum Kind: String, Sendable {
        case none
        case `self` = "self"
        case basic
        case attCA = "AttCA"
        case anonCA = "AnonCA"
    }

    package struct Verified: Sendable {
        package var format: AttestationFormat
        package var kind: Kind
        /// The statement's certificates, attestation certificate first.
        package var chain: [Certificate]

        package var summary: String {
            switch kind {
            case .none: "format none: no attestation"
            case .self: "format \(format.rawValue), self attestation (signed by the credential's own key)"
            default:
                "format \(format.rawValue), \(kind.rawValue) attestation by \(chain.first.map(AttestationStatement.name) ?? "?")"
            }
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package static func verify(_ object: AttestationObject, clientDataHash: [UInt8], at now: Date) throws -> Verified {
        let signed = object.authData.bytes + clientDataHash
        switch object.format {
        case .none:
            guard object.statement.entries?.isEmpty == true else { throw Failure("a none statement must be empty") }
            return Verified(format: .none, kind: .none, chain: [])
        case .packed: return try Packed.verify(object, signed: signed)
        case .fidoU2F: return try FIDOU2F.verify(object, clientDataHash: clientDataHash)
        case .apple: return try AppleAnonymous.verify(object, signed: signed)
        case .androidKey: return try AndroidKey.verify(object, clientDataHash: clientDataHash, signed: signed)
        case .tpm: return try TPM.verify(object, signed: signed)
        case .androidSafetyNet: return try SafetyNet.verify(object, signed: signed, at: now)
        }
    }

    // MARK: Shared pieces

    /// `x5c`: one or more DER certificates, attestation certificate first.
    package static func certificates(_ statement: CBOR, required: Bool = true) throws -> [Certificate] {
        guard let items = statement["x5c"]?.array else {
            if required { throw Failure("no x5c certificate array") }
            return []
        }
        guard !items.isEmpty, items.count <= 8 else { throw Failure("x5c holds \(items.count) certificates (1 to 8 expected)") }
        return try items.map { item in
            guard let der = item.bytes else { throw Failure("an x5c entry is not a byte string") }
            do { return try Certificate(derEncoded: der) } catch { throw Failure("an x5c certificate does not parse: \(error)") }
        }
    }

    package static func algorithm(_ statement: CBOR) throws -> COSEAlgorithm {
        let alg = statement["alg"]?.int
        guard let algorithm = alg.flatMap(COSEAlgorithm.init(rawValue:)) else { throw Failure("alg \(alg.map(String.init) ?? "(missing)") is not supported") }
        return algorithm
    }

    package static func signature(_ statement: CBOR) throws -> [UInt8] {
        guard let sig = statement["sig"]?.bytes, !sig.isEmpty else { throw Failure("no sig byte string") }
        return sig
    }

    /// Verifies `signature` over `data` with the certificate's key under `algorithm`.
    package static func verify(_ signature: [UInt8], over data: [UInt8], by certificate: Certificate, algorithm: COSEAlgorithm) throws {
        guard let key = SigningKey(certificate.publicKey, algorithm: algorithm) else {
            throw Failure("the attestation certificate's key is not a \(algorithm.name) key")
        }
        guard key.isValidSignature(signature, for: data) else { throw Failure("the signature does not verify with the attestation certificate's key") }
    }

    /// id-fido-gen-ce-aaguid (§8.2.1, §8.3.1): when present, not critical and the credential's AAGUID.
    package static let aaguidExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    package static func checkAAGUIDExtension(_ certificate: Certificate, aaguid: [UInt8]) throws {
        guard let ext = certificate.extensions[oid: aaguidExtension] else { return }
        guard !ext.critical else { throw Failure("the AAGUID extension is marked critical") }
        // fail-closed: an AAGUID extension that does not parse throws: the statement is refused
        guard let value = try? ASN1OctetString(derEncoded: ext.value), Array(value.bytes) == aaguid else {
            throw Failure("the certificate's AAGUID extension is not the authenticator data's AAGUID")
        }
    }

    /// §8.2.1 and others: the attestation certificate's basic constraints say it is no CA. Constraints that do
    /// not parse decide nothing, so they refuse the statement rather than count as "not a CA".
    package static func requireNotCA(_ certificate: Certificate) throws {
        let constraints: BasicConstraints?
        do { constraints = try certificate.extensions.basicConstraints } catch {
            throw Failure("the attestation certificate's basicConstraints extension does not parse")
        }
        if case .isCertificateAuthority = constraints { throw Failure("the attestation certificate is a CA certificate") }
    }

    /// A certificate as reports name it: its subject, or for a TPM's empty subject the names in its
    /// subject alternative name.
    public static func name(of certificate: Certificate) -> String {
        if !certificate.subject.isEmpty { return "\(certificate.subject)" }
        // fail-closed: a SAN that does not parse only shortens the name reports show; nothing is granted by it
        let names = ((try? certificate.extensions.subjectAlternativeNames) ?? nil).map { Array($0) } ?? []
        let described = names.map { name -> String in
            if case .directoryName(let directory) = name { return "\(directory)" }
            return "\(name)"
        }
        return described.isEmpty ? "serial \(certificate.serialNumber)" : "SAN " + described.joined(separator: ", ")
    }

    /// The first value of a subject attribute, as text.
    package static func subject(_ certificate: Certificate, _ type: ASN1ObjectIdentifier) -> String? {
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == type { return String(attribute.value) }
        }
        return nil
    }
}

/// The attestation policies of §8 already check every extension they need; this lets their critical
/// extensions through swift-certificates' chain builder (a TPM AIK certificate's subject alternative name
/// is critical by rule, its subject being empty).
package struct AttestationCertificatePolicy: VerifierPolicy {
    package let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.subjectAlternativeName, .X509ExtensionID.extendedKeyUsage,
    ]

    package mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult { .meetsPolicy }
}
