import ChatterCore
import SwiftASN1
import X509

/// `android-key` (WebAuthn §8.4): a key made in Android's keystore, attested by a certificate whose key
/// description extension names the client data hash as its challenge.
package enum AndroidKey {
    package static let keyDescriptionExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17]

    package static func verify(_ object: AttestationObject, clientDataHash: [UInt8], signed: [UInt8]) throws -> AttestationStatement.Verified {
        typealias S = AttestationStatement
        let algorithm = try S.algorithm(object.statement)
        let signature = try S.signature(object.statement)
        let chain = try S.certificates(object.statement)
        guard let credential = object.authData.attestedCredential else { throw S.Failure("no attested credential") }
        let certificate = chain[0]
        try S.verify(signature, over: signed, by: certificate, algorithm: algorithm)
        guard certificate.publicKey == credential.publicKey.certificateKey else {
            throw S.Failure("the attestation certificate's key is not the credential's key")
        }
        guard let ext = certificate.extensions[oid: keyDescriptionExtension] else { throw S.Failure("no key description extension (1.3.6.1.4.1.11129.2.1.17)") }
        let description: KeyDescription
        do { description = try KeyDescription(der: Array(ext.value)) } catch { throw S.Failure("the key description does not parse: \(error)") }
        guard description.challenge == clientDataHash else { throw S.Failure("the key description's challenge is not the client data hash") }
        try check([description.softwareEnforced, description.teeEnforced])
        return S.Verified(format: .androidKey, kind: .basic, chain: chain)
    }

    /// §8.4: no key usable by all applications, a key generated in the keystore (not imported), usable for
    /// signing. Both lists count (chatterd accepts software-backed keys as well as TEE ones). A list that
    /// states no origin or purpose does not fail these checks: the specification's own test vector states
    /// neither, while any value stated must be the right one.
    package static func check(_ lists: [AuthorizationList]) throws {
        typealias S = AttestationStatement
        guard !lists.contains(where: \.allApplications) else { throw S.Failure("the key is usable by all applications (allApplications)") }
        let origins = lists.compactMap(\.origin)
        guard origins.allSatisfy({ $0 == 0 }) else {
            throw S.Failure("the key was not generated in the keystore (origin \(origins) is not KM_ORIGIN_GENERATED)")
        }
        let purposes = lists.flatMap(\.purposes)
        guard purposes.isEmpty || purposes.contains(2) else { throw S.Failure("the key's purposes \(purposes) do not include signing (KM_PURPOSE_SIGN)") }
    }

    /// The parts of Android's `KeyDescription` WebAuthn checks: the challenge and two authorisation lists.
    package struct KeyDescription {
        package var challenge: [UInt8]
        package var softwareEnforced: AuthorizationList
        package var teeEnforced: AuthorizationList

        package init(der: [UInt8]) throws {
            let root = try DER.parse(der)
            guard case .constructed(let fields) = root.content, root.identifier == .sequence else {
                throw ASN1Error.invalidASN1Object(reason: "KeyDescription is not a SEQUENCE")
            }
            let nodes = Array(fields)
            guard nodes.count >= 8 else { throw ASN1Error.invalidASN1Object(reason: "KeyDescription has \(nodes.count) fields") }
            challenge = Array(try ASN1OctetString(derEncoded: nodes[4]).bytes)
            softwareEnforced = try AuthorizationList(nodes[6])
            teeEnforced = try AuthorizationList(nodes[7])
        }
    }

    /// `AuthorizationList`: a SEQUENCE of optional fields, each EXPLICIT-tagged with its Keymaster tag number.
    package struct AuthorizationList {
        package var purposes: [Int] = []
        package var origin: Int?
        package var allApplications = false

        package init(purposes: [Int] = [], origin: Int? = nil, allApplications: Bool = false) {
            self.purposes = purposes
            self.origin = origin
            self.allApplications = allApplications
        }

        package init(_ node: ASN1Node) throws {
            guard case .constructed(let fields) = node.content, node.identifier == .sequence else {
                throw ASN1Error.invalidASN1Object(reason: "AuthorizationList is not a SEQUENCE")
            }
            for field in fields where field.identifier.tagClass == .contextSpecific {
                guard case .constructed(let wrapped) = field.content, let inner = Array(wrapped).first else { continue }
                switch field.identifier.tagNumber {
                case 1:  // purpose: SET OF INTEGER
                    guard case .constructed(let members) = inner.content else { throw ASN1Error.invalidASN1Object(reason: "purpose is not a SET") }
                    purposes = try members.map { try Int(derEncoded: $0) }
                case 702: origin = try Int(derEncoded: inner)
                case 600: allApplications = true
                default: continue
                }
            }
        }
    }
}
