// Fuzz target `device-binding`: arbitrary bytes through what reads a device's proofs: a DPoP proof
// (`DPoPVerifier.verify`, RFC 9449) and App Attest's attestation objects and assertions
// (`AppAttestVerifier`), against fixed real vectors (RFC 9449's Figure 13 proof; veehaitch's iOS 14.4
// attestation and assertion) with the clock pinned inside their validity.
//
// Input: the first byte picks the reader (0: a DPoP proof as the header's text; 1: an attestation object;
// 2: an assertion; 3: the JSON of a proof's header or claims, `ProofJSON`), the rest is the value.

import Foundation
import FuzzSupport

@testable import ChatterCore
@testable import ChatterDomain

enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/ChatterServerTests/Fixtures/vectors")
    static let proofTarget = DPoPTarget(method: "GET", authority: "resource.example.org", path: "/protectedresource")
    static let accessToken = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
    static let proofTime = Date(timeIntervalSince1970: 1_562_262_620)
    static let appID = "6MURL8TA57.de.vincent-haupert.apple-appattest-poc"
    // veehaitch/devicecheck-appattest's iOS 14.4 sample: clientData "wurzelpfropf".
    static let clientDataHash = AppAttestVerifier.clientDataHash(Array("wurzelpfropf".utf8))
    static let attestationTime = Date(timeIntervalSince1970: 1_611_404_013)

    /// The vector's text fields (the binary values are base64 text).
    static func vector(_ name: String) -> [String: String] {
        let path = root.appendingPathComponent("appattest/\(name).json")
        guard let data = try? Data(contentsOf: path), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            fatalError("cannot read \(path.path)")
        }
        return object.compactMapValues { $0 as? String }
    }

    static let attestation = vector("veehaitch-ios-14.4-attestation")
    static let assertion = vector("veehaitch-ios-14.4-assertion")
    static let keyID = Base64URL.decodeAnySpelling(attestation["key_id"] ?? "") ?? []
    static let attestationBytes = Base64URL.decodeAnySpelling(attestation["attestation"] ?? "") ?? []
    static let assertionBytes = Base64URL.decodeAnySpelling(assertion["assertion"] ?? "") ?? []
    static let publicKey = AppAttestVerifier.publicKeyPoint(assertion["public_key"] ?? "") ?? []
}

/// What every report promises: each check at most once, in Apple's order for its kind; accepted exactly when
/// a value came out and nothing failed.
func checkReport(_ report: AppAttestReport<some Sendable>, _ name: String, order: [AppAttestCheck]) {
    let checks = report.results.map(\.check)
    invariant(Set(checks).count == checks.count, "\(name): a check reported twice: \(checks)")
    invariant(checks == order.filter(checks.contains), "\(name): checks out of order: \(checks)")
    invariant((report.verified != nil) == (report.firstFailure == nil && !report.results.isEmpty), "\(name): verdict and results disagree")
    _ = report.text
}

/// What an attestation's checks cover: its certificates and its authenticator data.
func covered(_ object: [UInt8]) -> [CBOR?] {
    guard let map = try? CBORDecoder.decodeWhole(object) else { return [] }
    return [map["attStmt"]?["x5c"], map["authData"]]
}

/// A JSON value as Foundation's `JSONDecoder` reads it, in `ProofJSONValue`'s terms (an array's contents are not kept).
enum DecodedJSON: Decodable, Equatable {
    case string(String)
    case number(Double)
    case object([String: DecodedJSON])
    case array
    case bool(Bool)
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let members = try? container.decode([String: DecodedJSON].self) {
            self = .object(members)
        } else {
            _ = try container.decode([DecodedJSON].self)
            self = .array
        }
    }

    init(_ value: ProofJSONValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .number(let number): self = .number(number)
        case .object(let members): self = .object(members.mapValues(DecodedJSON.init))
        case .array: self = .array
        case .bool(let flag): self = .bool(flag)
        case .null: self = .null
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard let selector = input.first else { return 0 }
    let value = Array(input.dropFirst())
    switch selector % 4 {
    case 0:
        let text = String(decoding: value, as: UTF8.self)
        if let proof = try? DPoPVerifier().verify(text, for: Fixture.proofTarget, accessToken: Fixture.accessToken, at: Fixture.proofTime) {
            // Only a proof signed by the key in its own header, over this request and token, is accepted.
            invariant(!proof.jti.isEmpty && proof.jti.utf8.count <= 256, "an accepted proof's jti is empty or too long")
            invariant(proof.thumbprint.utf8.count == 43, "a thumbprint that is not a SHA-256")
            invariant(text.utf8.count <= DPoPVerifier.maximumLength, "a proof over the length limit was read")
        }
    case 1:
        let report = blocking {
            await AppAttestVerifier(now: { Fixture.attestationTime }).inspectAttestation(
                value, keyID: Fixture.keyID, clientDataHash: Fixture.clientDataHash, appID: Fixture.appID, environment: .development)
        }
        checkReport(report, "attestation", order: [.format, .chain, .nonce, .keyID, .appID, .counter, .environment, .credentialID])
        // Only the vector's certificates and authenticator data pass: any other changes what the certificate's nonce
        // covers or the chain. The receipt may differ: Apple signs it apart, for its fraud-metric service, and the
        // attestation's checks do not read it (Apple's "Validating apps that connect to your server").
        if report.passed {
            invariant(covered(value) == covered(Fixture.attestationBytes), "an attestation with other certificates or authenticator data passed")
        }
    case 3:
        // What the strict reader accepts, Foundation reads to the same values: no proof means one thing to chatterd
        // and another to a decoder. (The strict reader may refuse what Foundation takes: a name twice, say.)
        if let members = ProofJSON.object(value) {
            let decoded = try? JSONDecoder().decode([String: DecodedJSON].self, from: Data(value))
            invariant(decoded == members.mapValues(DecodedJSON.init), "ProofJSON read \(members), JSONDecoder \(String(describing: decoded))")
        }
    default:
        let report = AppAttestVerifier().inspectAssertion(
            value, clientDataHash: Fixture.clientDataHash, publicKey: Fixture.publicKey, appID: Fixture.appID, previousCounter: 0)
        checkReport(report, "assertion", order: [.format, .signature, .appID, .counter])
        if let counter = report.verified { invariant(counter > 0, "an assertion accepted at a counter not above the previous") }
    }
    return 0
}

runLibFuzzer(fuzz)
