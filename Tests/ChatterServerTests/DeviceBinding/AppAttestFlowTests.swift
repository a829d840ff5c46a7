import ChatterTestSupport
import ChatterWire
import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// An install attests its App Attest key over a challenge chatterd issued, on each database. The attestations come
/// from `SimulatedAppAttest`, under the test's authority (chatterd is told to trust it): a real device cannot attest
/// a challenge issued during a test; the verifier's checks are held to real devices' objects in `AppAttestVectorTests`.
@Suite(.tags(.bothDatabases)) struct AppAttestFlowTests {
    static func run(
        backend: StoreBackend, device: SimulatedAppAttest, development: Bool = false, _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        try await Harness.run(
            backend: backend, appAttestRoot: device.root,
            configure: {
                $0.appAttestAppIDs = ["OTHER12345.com.example.other", device.appID]
                $0.appAttestDevelopment = development
            }, body)
    }

    func newChallenge(_ h: Harness) async throws -> String {
        let response = try await h.post(NativePath.appAttestChallenge, json: "")
        #expect(response.status == .ok)
        let answer = try h.decode(AppAttestChallengeResponse.self, response)
        #expect(answer.expiresIn == 300)
        return answer.challenge
    }

    func attest(
        _ h: Harness, _ device: SimulatedAppAttest, _ key: SimulatedAppAttest.Key, challenge: String, over covered: String? = nil,
        keyID: [UInt8]? = nil, appID: String? = nil, environment: AppAttestEnvironment? = nil
    ) async throws -> LiveResponse {
        let object = try device.attestation(
            of: key, clientDataHash: AppAttestVerifier.clientDataHash(Array((covered ?? challenge).utf8)), now: h.clock.now, appID: appID,
            environment: environment)
        return try await h.post(
            NativePath.appAttestKeys,
            AppAttestKeyRequest(keyId: Data(keyID ?? key.keyID).base64EncodedString(), attestation: Base64URL.encode(object), challenge: challenge))
    }

    @Test(arguments: StoreBackend.available)
    func anInstallAttestsItsKeyOnceOverAChallenge(backend: StoreBackend) async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: backend, device: device) { h in
            let key = SimulatedAppAttest.Key()
            let challenge = try await newChallenge(h)
            let attested = try await attest(h, device, key, challenge: challenge)
            #expect(attested.status == .created)
            let answer = try h.decode(AppAttestKeyResponse.self, attested)
            #expect(answer == AppAttestKeyResponse(keyId: Base64URL.encode(key.keyID), appId: device.appID, environment: "production"))
            let stored = try #require(try await h.store.appAttestKey(id: key.keyID))
            #expect(stored.publicKey == Array(key.privateKey.publicKey.x963Representation) && stored.counter == 0)

            // The same request again: its challenge is spent.
            let replayed = try await attest(h, device, key, challenge: challenge)
            #expect(replayed.status == .badRequest)
            #expect(try h.decode(ErrorBody.self, replayed).check == "challenge")
            // The same key over a new challenge: a key is attested once.
            let again = try await attest(h, device, key, challenge: try await newChallenge(h))
            #expect(again.status == .conflict)
            #expect(try h.decode(ErrorBody.self, again).check == "attested")
        }
    }

    @Test(arguments: StoreBackend.available)
    func attestationsThatFailACheckAreRefusedAndKeepNothing(backend: StoreBackend) async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: backend, device: device) { h in
            let key = SimulatedAppAttest.Key()
            var refusals: [(String, LiveResponse)] = []
            refusals.append(("another app", try await attest(h, device, key, challenge: try await newChallenge(h), appID: "ABCDE12345.com.example.impostor")))
            refusals.append(("over another challenge", try await attest(h, device, key, challenge: try await newChallenge(h), over: try await newChallenge(h))))
            refusals.append(("a development key", try await attest(h, device, key, challenge: try await newChallenge(h), environment: .development)))
            refusals.append(("an unknown challenge", try await attest(h, device, key, challenge: Base64URL.encode(SecureRandom.bytes(32)))))
            refusals.append(
                ("another key's ID", try await attest(h, device, key, challenge: try await newChallenge(h), keyID: SimulatedAppAttest.Key().keyID)))
            refusals.append(
                (
                    "not base64",
                    try await h.post(NativePath.appAttestKeys, AppAttestKeyRequest(keyId: "!", attestation: "!", challenge: try await newChallenge(h)))
                )
            )
            let keyID = Base64URL.encode(key.keyID)
            refusals.append(
                (
                    "an attestation that is not base64",
                    try await h.post(NativePath.appAttestKeys, AppAttestKeyRequest(keyId: keyID, attestation: "!", challenge: try await newChallenge(h)))
                ))
            refusals.append(
                (
                    "an attestation over 16 KB",
                    try await h.post(
                        NativePath.appAttestKeys,
                        AppAttestKeyRequest(keyId: keyID, attestation: String(repeating: "A", count: 24_000), challenge: try await newChallenge(h)))
                ))
            // A refused attestation spent its challenge: the genuine attestation cannot follow with it.
            let spent = try await newChallenge(h)
            refusals.append(("another app, first", try await attest(h, device, key, challenge: spent, appID: "ABCDE12345.com.example.impostor")))
            refusals.append(("then the genuine one with its challenge", try await attest(h, device, key, challenge: spent)))
            let checks = try refusals.map { what, response in
                #expect(response.status == .badRequest, "\(what)")
                return try h.decode(ErrorBody.self, response).check ?? ""
            }
            #expect(checks == ["app_id", "nonce", "environment", "challenge", "key_id", "key_id", "format", "format", "app_id", "challenge"])
            #expect(try await h.store.appAttestKey(id: key.keyID) == nil)
        }
        // Under Apple's root (as chatterd runs), the test's authority is no chain.
        try await Harness.run(backend: backend, configure: { $0.appAttestAppIDs = [device.appID] }) { h in
            let response = try await attest(h, device, SimulatedAppAttest.Key(), challenge: try await newChallenge(h))
            #expect(response.status == .badRequest)
            #expect(try h.decode(ErrorBody.self, response).check == "chain")
        }
    }

    @Test(arguments: StoreBackend.available)
    func developmentKeysOnlyWhenTheOperatorAcceptsThem(backend: StoreBackend) async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: backend, device: device, development: true) { h in
            let attested = try await attest(h, device, SimulatedAppAttest.Key(), challenge: try await newChallenge(h), environment: .development)
            #expect(attested.status == .created)
            #expect(try h.decode(AppAttestKeyResponse.self, attested).environment == "development")
        }
    }

    @Test(arguments: StoreBackend.available)
    func oneChallengeAttestsOneKeyAmongManyAtOnce(backend: StoreBackend) async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: backend, device: device) { h in
            let challenge = try await newChallenge(h)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<20 { group.addTask { try await attest(h, device, SimulatedAppAttest.Key(), challenge: challenge).status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 1)
            #expect(statuses.filter { $0 == .badRequest }.count == 19)
        }
    }

    @Test func challengesAreCountedPerNetworkAndNeedAnApp() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: .sqlite, device: device) { h in
            for _ in 0..<AppAttestService.challengesPerNetwork { _ = try await newChallenge(h) }
            let refused = try await h.post(NativePath.appAttestChallenge, json: "")
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] != nil)
        }
        try await Harness.run { h in
            #expect(try await h.post(NativePath.appAttestChallenge, json: "").status == .notFound)
            let key = try await h.post(NativePath.appAttestKeys, AppAttestKeyRequest(keyId: "a", attestation: "b", challenge: "c"))
            #expect(key.status == .notFound)
        }
    }
}
