import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterDomain

/// The simulated device that lets App Attest flows run in tests makes what the verifier takes from real devices
/// (`AppAttestVectorTests`), under the test's own authority, which the verifier refuses unless it is named its root.
@Suite struct SimulatedAppAttestTests {
    @Test func itsAttestationPassesUnderItsRootOnlyAndItsAssertionsCountUp() async throws {
        let device = try SimulatedAppAttest()
        let key = SimulatedAppAttest.Key()
        let clientDataHash = AppAttestVerifier.clientDataHash(Array("challenge".utf8))
        let attestation = try device.attestation(of: key, clientDataHash: clientDataHash)

        let report = await AppAttestVerifier(root: device.root).inspectAttestation(
            attestation, keyID: key.keyID, clientDataHash: clientDataHash, appID: device.appID, environment: .production)
        #expect(report.passed, "\(report.text)")
        #expect(report.verified?.publicKey == Array(key.privateKey.publicKey.x963Representation))
        let underApple = await AppAttestVerifier().inspectAttestation(
            attestation, keyID: key.keyID, clientDataHash: clientDataHash, appID: device.appID, environment: .production)
        #expect(underApple.firstFailure?.check == .chain, "Apple's root is not the test's")

        let publicKey = Array(key.privateKey.publicKey.x963Representation)
        let first = try device.assertion(by: key, clientDataHash: clientDataHash, counter: 1)
        let verifier = AppAttestVerifier(root: device.root)
        #expect(verifier.inspectAssertion(first, clientDataHash: clientDataHash, publicKey: publicKey, appID: device.appID, previousCounter: 0).verified == 1)
        #expect(
            verifier.inspectAssertion(first, clientDataHash: clientDataHash, publicKey: publicKey, appID: device.appID, previousCounter: 1).firstFailure?.check
                == .counter)
    }
}
