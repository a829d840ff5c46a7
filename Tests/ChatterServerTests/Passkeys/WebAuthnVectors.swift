import ChatterWire
import Foundation
import X509

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The test vectors of WebAuthn Level 3 §16, kept under `Fixtures/webauthn` with their source and licence
/// (see NOTICE.md there): real registration and authentication outputs for every attestation format.
struct WebAuthnVector: Sendable {
    var id: String
    var registration: [String: String]
    var authentication: [String: String]

    struct Entry: Decodable {
        var id: String
        var registration: [String: String]?
        var authentication: [String: String]?
        var values: [String: String]?
    }

    static let entries: [Entry] = {
        struct Fixture: Decodable { var vectors: [Entry] }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/webauthn/webauthn-l3-test-vectors.json")
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url)).vectors
    }()

    static let all: [WebAuthnVector] = entries.compactMap { entry in
        guard let registration = entry.registration, let authentication = entry.authentication else { return nil }
        return WebAuthnVector(id: entry.id, registration: registration, authentication: authentication)
    }

    static func named(_ id: String) -> WebAuthnVector { all.first { $0.id == id }! }

    /// The attestation CA every vector with a certificate chains to.
    static let attestationRoot: Certificate = {
        let values = entries.first { $0.id == "attestation-root-cert" }!.values!
        return try! Certificate(derEncoded: hex(values["attestation_ca_cert"]!))
    }()

    /// The vectors' relying party: RP ID `example.org`, origin `https://example.org`.
    static func party(anchors: [Certificate] = [attestationRoot], crossOrigin: Bool = false, requireTrust: Bool = false) -> RelyingParty {
        RelyingParty(
            id: "example.org", origins: ["https://example.org"], allowsCrossOrigin: crossOrigin, trustAnchors: anchors,
            requiresTrustedAttestation: requireTrust)
    }

    /// A time inside every certificate's validity (the vectors' CA is valid from 2024 to 3024).
    static let checkedAt = Date(timeIntervalSince1970: 1_790_000_000)

    var credentialID: String { Base64URL.encode(Self.hex(registration["credential_id"]!)) }
    var registrationChallenge: [UInt8] { Self.hex(registration["challenge"]!) }
    var authenticationChallenge: [UInt8] { Self.hex(authentication["challenge"]!) }

    var registrationResponse: RegistrationResponseJSON {
        RegistrationResponseJSON(
            id: credentialID, rawId: credentialID,
            response: .init(
                clientDataJSON: Base64URL.encode(Self.hex(registration["clientDataJSON"]!)),
                attestationObject: Base64URL.encode(Self.hex(registration["attestationObject"]!))))
    }

    var authenticationResponse: AuthenticationResponseJSON {
        AuthenticationResponseJSON(
            id: credentialID, rawId: credentialID,
            response: .init(
                clientDataJSON: Base64URL.encode(Self.hex(authentication["clientDataJSON"]!)),
                authenticatorData: Base64URL.encode(Self.hex(authentication["authenticatorData"]!)),
                signature: Base64URL.encode(Self.hex(authentication["signature"]!))))
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
