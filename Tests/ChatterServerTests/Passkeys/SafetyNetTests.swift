import ChatterWire
import Foundation
import Testing
import X509

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `android-safetynet` with a real registration (the specification has no example of it): see
/// `Fixtures/webauthn/NOTICE.md`.
@Suite struct SafetyNetTests {
    struct Fixture: Decodable {
        var credential: RegistrationResponseJSON
        var rpID: String
        var origin: String
        var timestampMs: Double
        var root: String
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/webauthn/py_webauthn-android-safetynet.json")
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    static var challenge: [UInt8] {
        let clientData = ClientData.parse(Base64URL.decode(fixture.credential.response.clientDataJSON)!)!
        return Base64URL.decode(clientData.challenge)!
    }

    static func report(at offset: Double, anchors: [Certificate]? = nil) async throws -> PasskeyReport<VerifiedRegistration> {
        let party = RelyingParty(
            id: fixture.rpID, origins: [fixture.origin], trustAnchors: try anchors ?? TrustAnchors.certificates(pem: fixture.root),
            requiresTrustedAttestation: true)
        let instant = Date(timeIntervalSince1970: fixture.timestampMs / 1000 + offset)
        return await PasskeyVerifier(party: party, now: { instant }).inspectRegistration(fixture.credential, challenge: challenge)
    }

    @Test func aRealSafetyNetRegistrationVerifiesToGlobalSignsRoot() async throws {
        let report = try await Self.report(at: 5)
        #expect(report.passed, "\(report.text)")
        let verified = try report.get()
        #expect(verified.format == .androidSafetyNet)
        #expect(verified.trustPath.count == 4)  // leaf, GTS CA 1D4, GTS Root R1 (cross-signed), root
        #expect(verified.trustPath.last.map(AttestationStatement.name) == "CN=GlobalSign Root CA,OU=Root CA,O=GlobalSign nv-sa,C=BE")
    }

    @Test func aStatementOlderOrNewerThanAMinuteIsRefused() async throws {
        for offset in [-61.0, 61, 86_400] {
            let report = try await Self.report(at: offset)
            #expect(report.firstFailure?.check == .attestation, "\(offset): \(report.text)")
        }
    }

    @Test func withoutGooglesRootTheChainIsNotTrusted() async throws {
        let report = try await Self.report(at: 5, anchors: [])
        #expect(report.firstFailure?.check == .trust)
    }

    @Test func theNonceCoversTheClientData() async throws {
        // Other client data (here: another origin spelled into it) changes the hash the nonce must match.
        var credential = Self.fixture.credential
        let original = String(decoding: Base64URL.decode(credential.response.clientDataJSON)!, as: UTF8.self)
        credential.response.clientDataJSON = Base64URL.encode(Array(original.replacingOccurrences(of: "}", with: ",\"extra\":1}").utf8))
        let party = RelyingParty(id: Self.fixture.rpID, origins: [Self.fixture.origin], trustAnchors: try TrustAnchors.certificates(pem: Self.fixture.root))
        let instant = Date(timeIntervalSince1970: Self.fixture.timestampMs / 1000)
        let report = await PasskeyVerifier(party: party, now: { instant }).inspectRegistration(credential, challenge: Self.challenge)
        #expect(report.firstFailure?.check == .attestation, "\(report.text)")
        #expect(report.firstFailure?.detail.contains("nonce") == true)
    }
}
