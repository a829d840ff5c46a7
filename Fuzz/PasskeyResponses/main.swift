// Fuzz target `passkey-responses`: whole registration and authentication responses through
// `PasskeyVerifier`, as the passkey routes and `chatterd check-passkey` call it, with the relying party and
// challenges of WebAuthn Level 3's `packed-es256` test vector (whose chain ends in the vectors' CA).
//
// Input: the first byte picks the mode, the rest is
//   0: a RegistrationResponseJSON body;
//   1: an attestation object's bytes, sent with the vector's own client data;
//   2: an AuthenticationResponseJSON body, checked against the vector's credential;
//   3: authenticator data bytes, sent with the vector's client data and signature;
//   4: client data JSON bytes for the vector's registration.

import ChatterWire
import Foundation
import FuzzSupport
import X509

@testable import ChatterCore
@testable import ChatterDomain

enum Fixture {
    struct Entry: Decodable {
        var id: String
        var registration: [String: String]?
        var authentication: [String: String]?
        var values: [String: String]?
    }

    static let entries: [Entry] = {
        struct File: Decodable { var vectors: [Entry] }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/ChatterServerTests/Fixtures/webauthn/webauthn-l3-test-vectors.json")
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else {
            fatalError("cannot read the WebAuthn vectors at \(url.path)")
        }
        return file.vectors
    }()

    static let vector = entries.first { $0.id == "packed-es256" }!
    static func value(_ name: String, registration: Bool = true) -> [UInt8] {
        hex((registration ? vector.registration : vector.authentication)![name]!)
    }

    static let root = try! Certificate(derEncoded: hex(entries.first { $0.id == "attestation-root-cert" }!.values!["attestation_ca_cert"]!))
    static let verifier = PasskeyVerifier(
        party: RelyingParty(id: "example.org", origins: ["https://example.org"], trustAnchors: [root]), now: { Date(timeIntervalSince1970: 1_790_000_000) })
    static let credentialID = Base64URL.encode(value("credential_id"))

    static let registration: VerifiedRegistration = {
        let response = RegistrationResponseJSON(
            id: credentialID, rawId: credentialID,
            response: .init(clientDataJSON: Base64URL.encode(value("clientDataJSON")), attestationObject: Base64URL.encode(value("attestationObject"))))
        guard let verified = blocking({ await verifier.inspectRegistration(response, challenge: value("challenge")).verified }) else {
            fatalError("the vector's own registration does not verify")
        }
        return verified
    }()

    static var credential: PasskeyVerifier.Credential {
        PasskeyVerifier.Credential(
            id: registration.credentialID, publicKey: registration.publicKey, signCount: 0, backupEligible: registration.backupEligible, userHandle: [7])
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

/// Every check at most once, in the declared order; accepted exactly when a value came out and nothing failed.
func checkReport<V>(_ report: PasskeyReport<V>, _ what: String) {
    let order = report.results.map { PasskeyCheck.allCases.firstIndex(of: $0.check)! }
    invariant(order == order.sorted() && Set(order).count == order.count, "\(what): checks repeated or out of order: \(report.results.map(\.check))")
    invariant(report.passed == (report.verified != nil), "\(what): passed without a value, or a value with a failure")
    invariant(report.passed == (report.firstFailure == nil && report.verified != nil), "\(what): a verdict that disagrees with its checks")
    _ = report.text
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let mode = data[0] % 5
    let body = bytes(data + 1, size - 1)
    let verifier = Fixture.verifier
    switch mode {
    case 0, 1, 4:
        var response = RegistrationResponseJSON(
            id: Fixture.credentialID, rawId: Fixture.credentialID,
            response: .init(
                clientDataJSON: Base64URL.encode(mode == 4 ? body : Fixture.value("clientDataJSON")),
                attestationObject: Base64URL.encode(mode == 1 ? body : Fixture.value("attestationObject"))))
        if mode == 0 {
            guard let decoded = try? JSONDecoder().decode(RegistrationResponseJSON.self, from: Data(body)) else { return 0 }
            response = decoded
        }
        let sent = response
        let report = blocking { await verifier.inspectRegistration(sent, challenge: Fixture.value("challenge")) }
        checkReport(report, "registration")
        if let verified = report.verified {
            // Only the vector's own credential can register: anything else has no valid attestation signature.
            invariant(verified.credentialID == Fixture.registration.credentialID, "a registration of a credential no one attested")
        }
    default:
        var response = AuthenticationResponseJSON(
            id: Fixture.credentialID, rawId: Fixture.credentialID,
            response: .init(
                clientDataJSON: Base64URL.encode(Fixture.value("clientDataJSON", registration: false)),
                authenticatorData: Base64URL.encode(mode == 3 ? body : Fixture.value("authenticatorData", registration: false)),
                signature: Base64URL.encode(Fixture.value("signature", registration: false))))
        if mode == 2 {
            guard let decoded = try? JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(body)) else { return 0 }
            response = decoded
        }
        let report = verifier.inspectAuthentication(response, challenge: Fixture.value("challenge", registration: false), credential: Fixture.credential)
        checkReport(report, "authentication")
        if report.passed {
            let signed = Base64URL.decode(response.response.authenticatorData)!
            invariant(signed == Fixture.value("authenticatorData", registration: false), "an assertion over authenticator data no one signed")
        }
    }
    return 0
}

runLibFuzzer(fuzz)
