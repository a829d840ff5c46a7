import ChatterTestSupport
import Crypto
import Foundation
import Testing
import X509

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit

/// App Attest objects from real devices, published with open-source verifiers (`Fixtures/vectors/appattest`,
/// sources and licences in the vectors' README and NOTICE): each passes every check, and each tampered
/// variant fails the check it breaks.
@Suite struct AppAttestVectorTests {
    struct Vector: Decodable {
        var source: String
        var kind: String
        var appID: String
        var environment: String?
        var at: Double?
        var keyIDText: String?
        var attestation: String?
        var assertion: String?
        var publicKeyText: String?
        var previousCounter: UInt32?
        var counter: UInt32?
        var clientDataHashHex: String

        enum CodingKeys: String, CodingKey {
            case source, kind, environment, at, attestation, assertion, counter
            case appID = "app_id"
            case keyIDText = "key_id"
            case publicKeyText = "public_key"
            case previousCounter = "previous_counter"
            case clientDataHashHex = "client_data_hash"
        }

        var clientDataHash: [UInt8] { Hex.decode(clientDataHashHex) ?? [] }
        var object: [UInt8] { Base64URL.decodeAnySpelling(attestation ?? assertion ?? "") ?? [] }
        var keyID: [UInt8] { Base64URL.decodeAnySpelling(keyIDText ?? "") ?? [] }
        var env: AppAttestEnvironment { AppAttestEnvironment(rawValue: environment ?? "") ?? .production }
        var publicKey: [UInt8] { (try? P256.Signing.PublicKey(pemRepresentation: publicKeyText ?? "")).map { Array($0.x963Representation) } ?? [] }
    }

    static func vectors(_ kind: String) throws -> [(String, Vector)] {
        try Vectors.files(in: "appattest", withExtension: "json").map { path in
            (path, try JSONDecoder().decode(Vector.self, from: Data(contentsOf: URL(fileURLWithPath: Vectors.path(path)))))
        }.filter { $0.1.kind == kind }
    }

    func verifier(at unix: Double?) -> AppAttestVerifier {
        let instant = Date(timeIntervalSince1970: unix ?? 0)
        return AppAttestVerifier(now: { instant })
    }

    func failed(_ report: AppAttestReport<some Sendable>) -> [AppAttestCheck] {
        report.results.filter { !$0.passed }.map(\.check)
    }

    @Test func theBuiltInRootIsApplesPublishedCertificate() throws {
        let der = try TrustAnchors.appleAppAttestationRoot.serializeAsPEM().derBytes
        #expect(Hex.encode(SHA256.hash(data: der)) == "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932")
    }

    @Test func everyPublishedAttestationPasses() async throws {
        let vectors = try Self.vectors("attestation")
        #expect(vectors.count >= 15)
        for (path, v) in vectors {
            let report = await verifier(at: v.at).inspectAttestation(
                v.object, keyID: v.keyID, clientDataHash: v.clientDataHash, appID: v.appID, environment: v.env)
            #expect(report.passed, "\(path):\n\(report.text)")
            #expect(report.results.map(\.check) == [.format, .chain, .nonce, .keyID, .appID, .counter, .environment, .credentialID], "\(path)")
            #expect(report.verified.map { Array(SHA256.hash(data: $0.publicKey)) } == v.keyID, "\(path)")
        }
    }

    /// Each change fails the check it breaks, and only that one.
    @Test func tamperedAttestationsFailTheCheckTheyBreak() async throws {
        for (path, v) in try Self.vectors("attestation") {
            func inspect(
                keyID: [UInt8]? = nil, hash: [UInt8]? = nil, appID: String? = nil, environment: AppAttestEnvironment? = nil, at: Double? = nil,
                root: Certificate = TrustAnchors.appleAppAttestationRoot
            ) async -> [AppAttestCheck] {
                let instant = Date(timeIntervalSince1970: at ?? v.at ?? 0)
                let report = await AppAttestVerifier(root: root, now: { instant }).inspectAttestation(
                    v.object, keyID: keyID ?? v.keyID, clientDataHash: hash ?? v.clientDataHash, appID: appID ?? v.appID,
                    environment: environment ?? v.env)
                #expect(!report.passed, "\(path)")
                return failed(report)
            }
            #expect(await inspect(appID: "ZZZZZZZZZZ.com.example.other") == [.appID], "another app: \(path)")
            #expect(await inspect(appID: v.appID.uppercased()) == [.appID], "the app ID's case: \(path)")
            #expect(await inspect(environment: v.env == .production ? .development : .production) == [.environment], "\(path)")
            #expect(await inspect(hash: Array(SHA256.hash(data: v.clientDataHash))) == [.nonce], "another challenge: \(path)")
            #expect(await inspect(keyID: Array(SHA256.hash(data: v.keyID))) == [.keyID, .credentialID], "another key ID: \(path)")
            #expect(await inspect(at: (v.at ?? 0) + 400 * 86_400) == [.chain], "the leaf expired: \(path)")
            #expect(await inspect(root: TrustAnchors.appleWebAuthnRoot) == [.chain], "a chain to another root: \(path)")
        }
    }

    /// Objects that are not an App Attest attestation: refused as the format, each for its reason.
    @Test func malformedAttestationsAreRefusedAsTheFormat() async throws {
        let (_, v) = try #require(try Self.vectors("attestation").first)
        let object = v.object
        let map = try CBORDecoder.decodeWhole(object)
        func encodeAgain(_ change: (inout [CBOR.Entry]) -> Void) -> [UInt8] {
            var entries = map.entries ?? []
            change(&entries)
            return CBOREncoder.reencode(.map(entries))
        }
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("truncated", Array(object.prefix(object.count / 2))),
            ("a byte after it", object + [0]),
            ("too large", [UInt8](repeating: 0, count: AppAttestVerifier.maximumBytes + 1)),
            ("another format", encodeAgain { $0 = $0.map { $0.key.text == "fmt" ? CBOR.Entry(key: $0.key, value: .text("apple")) : $0 } }),
            (
                "no receipt",
                encodeAgain { entries in
                    entries = entries.map { entry in
                        guard entry.key.text == "attStmt", let inner = entry.value.entries else { return entry }
                        return CBOR.Entry(key: entry.key, value: .map(inner.filter { $0.key.text != "receipt" }))
                    }
                }
            ),
            (
                "one certificate",
                encodeAgain { entries in
                    entries = entries.map { entry in
                        guard entry.key.text == "attStmt", let inner = entry.value.entries else { return entry }
                        return CBOR.Entry(
                            key: entry.key,
                            value: .map(
                                inner.map { $0.key.text == "x5c" ? CBOR.Entry(key: $0.key, value: .array(Array(($0.value.array ?? []).prefix(1)))) : $0 }))
                    }
                }
            ),
            (
                "authData cut short",
                encodeAgain {
                    $0 = $0.map { $0.key.text == "authData" ? CBOR.Entry(key: $0.key, value: .bytes(Array(($0.value.bytes ?? []).prefix(40)))) : $0 }
                }
            ),
            (
                "authData with bytes after it",
                encodeAgain { $0 = $0.map { $0.key.text == "authData" ? CBOR.Entry(key: $0.key, value: .bytes(($0.value.bytes ?? []) + [1, 2])) : $0 } }
            ),
        ]
        for (what, bytes) in cases {
            let report = await verifier(at: v.at).inspectAttestation(
                bytes, keyID: v.keyID, clientDataHash: v.clientDataHash, appID: v.appID, environment: v.env)
            #expect(failed(report) == [.format] && report.results.count == 1, "\(what): \(report.text)")
        }
    }

    @Test func everyPublishedAssertionPasses() throws {
        let vectors = try Self.vectors("assertion")
        #expect(vectors.count >= 8)
        for (path, v) in vectors {
            let report = verifier(at: nil).inspectAssertion(
                v.object, clientDataHash: v.clientDataHash, publicKey: v.publicKey, appID: v.appID, previousCounter: v.previousCounter ?? 0)
            #expect(report.passed, "\(path):\n\(report.text)")
            #expect(report.verified == v.counter, "\(path)")
        }
    }

    @Test func tamperedAssertionsFailTheCheckTheyBreak() throws {
        let vectors = try Self.vectors("assertion")
        for (index, (path, v)) in vectors.enumerated() {
            func inspect(key: [UInt8]? = nil, hash: [UInt8]? = nil, appID: String? = nil, previous: UInt32? = nil, object: [UInt8]? = nil) -> [AppAttestCheck] {
                let report = verifier(at: nil).inspectAssertion(
                    object ?? v.object, clientDataHash: hash ?? v.clientDataHash, publicKey: key ?? v.publicKey, appID: appID ?? v.appID,
                    previousCounter: previous ?? v.previousCounter ?? 0)
                #expect(!report.passed, "\(path)")
                return failed(report)
            }
            let counter = try #require(v.counter)
            #expect(inspect(previous: counter) == [.counter], "the same counter again (a replayed assertion): \(path)")
            #expect(inspect(previous: counter + 5) == [.counter], "a counter gone back: \(path)")
            #expect(inspect(hash: Array(SHA256.hash(data: v.clientDataHash))) == [.signature], "another challenge: \(path)")
            #expect(inspect(appID: "ZZZZZZZZZZ.com.example.other") == [.appID], "another app: \(path)")
            let other = vectors[(index + 1) % vectors.count].1.publicKey
            if other != v.publicKey { #expect(inspect(key: other) == [.signature], "another app's key: \(path)") }
            #expect(inspect(key: [4] + [UInt8](repeating: 1, count: 64)) == [.signature], "not a key: \(path)")
            #expect(inspect(object: Array(v.object.dropLast())) == [.format], "truncated: \(path)")
        }
    }

    /// After the credential's key, devices since 2026 append one CBOR map without the extension flag (Apple's
    /// 2026 sample in its validation guide): one map is taken there; anything else after the key is refused.
    @Test func oneMapAfterTheKeyIsTakenAndNothingElse() throws {
        let (_, v) = try #require(try Self.vectors("attestation").first)
        let authData = try #require(try CBORDecoder.decodeWhole(v.object)["authData"]?.bytes)
        let map = CBOREncoder.reencode(.map([CBOR.Entry(key: .text("apple_bundle_version_01"), value: .text("1"))]))
        let read = try AppAttestAuthenticatorData(authData + map, attested: true)
        #expect(read.credentialID == v.keyID && read.counter == 0)
        for trailing: [UInt8] in [[0x01], map + [0x00], CBOREncoder.reencode(.array([.unsigned(1)])), [0xA1]] {
            #expect(throws: AppAttestAuthenticatorData.Failure.self) { try AppAttestAuthenticatorData(authData + trailing, attested: true) }
        }
        #expect(throws: AppAttestAuthenticatorData.Failure.self) { try AppAttestAuthenticatorData(Array(authData.prefix(36)), attested: false) }
    }

    /// `chatterd check-app-attest` takes what a server holds, prints each check, and exits 0 only when all pass.
    @Test func checkAppAttestExplainsEachCheckAndExitsZeroOnlyWhenAllPass() async throws {
        let attestation = try #require(try Self.vectors("attestation").first { $0.0.contains("veehaitch-ios-14.4") }?.1)
        let base = [
            "check-app-attest", "attestation", "--key-id", try #require(attestation.keyIDText), "--attestation", try #require(attestation.attestation),
            "--client-data", "d3VyemVscGZyb3Bm", "--development",
        ]
        guard let passed = try await AdminCommandTests.run(base + ["--app-id", attestation.appID, "--at", "\(Int(attestation.at ?? 0))"]) else { return }
        let text = String(decoding: passed.output, as: UTF8.self)
        #expect(passed.status == 0, "\(text)")
        #expect(text.contains("PASS  chain") && text.contains("PASS  nonce") && text.hasSuffix("bytes\n"), "\(text)")
        let otherApp = try #require(
            try await AdminCommandTests.run(base + ["--app-id", "ABCDEFGHIJ.com.example.other", "--at", "\(Int(attestation.at ?? 0))"]))
        #expect(otherApp.status != 0 && String(decoding: otherApp.output, as: UTF8.self).contains("FAIL  app_id"))
        let now = try #require(try await AdminCommandTests.run(base + ["--app-id", attestation.appID]))
        #expect(now.status != 0 && String(decoding: now.output, as: UTF8.self).contains("FAIL  chain"), "the leaf of 2021 has expired")

        let assertion = try #require(try Self.vectors("assertion").first { $0.0.contains("veehaitch-ios-14.4-assertion") }?.1)
        let check = [
            "check-app-attest", "assertion", "--assertion", try #require(assertion.assertion), "--client-data-hash",
            Data(assertion.clientDataHash).base64EncodedString(), "--public-key=\(try #require(assertion.publicKeyText))", "--app-id", assertion.appID,
        ]
        let fresh = try #require(try await AdminCommandTests.run(check))
        #expect(fresh.status == 0, "\(String(decoding: fresh.output, as: UTF8.self))")
        let replayed = try #require(try await AdminCommandTests.run(check + ["--previous-counter", "\(assertion.counter ?? 0)"]))
        #expect(replayed.status != 0 && String(decoding: replayed.output, as: UTF8.self).contains("FAIL  counter"))
    }
}
