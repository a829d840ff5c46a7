import ChatterTestSupport
import Crypto
import Foundation
import Synchronization
import Testing

@testable import ChatterKit
@testable import chatter

/// An install attesting its App Attest key through ChatterKit against a live chatterd, with a simulated device in
/// place of `DCAppAttestService` (`SystemAppAttest` is the shell over the real one, type-checked against the stand-in).
@Suite struct AppAttestationTests {
    /// `DCAppAttestService` as Apple documents its behaviour, over `SimulatedAppAttest`: keys by identifier, and the
    /// failures a test asks for.
    final class SimulatedProvider: AppAttestProvider {
        let device: SimulatedAppAttest
        let isSupported: Bool
        let now: @Sendable () -> Date
        private let state = Mutex<
            (keys: [String: SimulatedAppAttest.Key], attested: Set<String>, failures: [AppAttestProblem], generated: Int, counters: [String: UInt32])
        >(([:], [], [], 0, [:]))

        init(_ device: SimulatedAppAttest, supported: Bool = true, now: @escaping @Sendable () -> Date) {
            self.device = device
            isSupported = supported
            self.now = now
        }

        /// The next attestations fail with `problems`, one each.
        func fail(_ problems: AppAttestProblem...) { state.withLock { $0.failures += problems } }
        var generated: Int { state.withLock { $0.generated } }

        func generateKey() async throws -> String {
            let key = SimulatedAppAttest.Key()
            let id = Data(key.keyID).base64EncodedString()
            state.withLock {
                $0.keys[id] = key
                $0.generated += 1
            }
            return id
        }

        func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
            let (key, failure) = state.withLock { state in (state.keys[keyID], state.failures.isEmpty ? nil : state.failures.removeFirst()) }
            if let failure { throw failure }
            // A key is attested once: Apple answers `invalidKey` for one attested before, or one it does not know.
            guard let key, state.withLock({ $0.attested.insert(keyID).inserted }) else { throw AppAttestProblem.invalidKey }
            return Data(try device.attestation(of: key, clientDataHash: Array(clientDataHash), now: now()))
        }

        func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data {
            // The Secure Enclave counts a key's assertions: each shows one more.
            let (key, counter) = state.withLock { state -> (SimulatedAppAttest.Key?, UInt32) in
                state.counters[keyID, default: 0] += 1
                return (state.keys[keyID], state.counters[keyID, default: 0])
            }
            guard let key else { throw AppAttestProblem.invalidKey }
            return Data(try device.assertion(by: key, clientDataHash: Array(clientDataHash), counter: counter))
        }
    }

    @Test func anInstallIsAttestedOnceAndRemembersIt() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await LiveServer.run(appAttest: device) { server in
            let counter = CountingTransport()
            let store = MemoryStore()
            let provider = SimulatedProvider(device, now: server.clock.function)
            let attestation = AppAttestation(api: server.api(transport: counter), store: store, provider: provider)
            guard case .attested(let keyID) = await attestation.attest() else {
                Issue.record("not attested")
                return
            }
            let kept = try await server.store.appAttestKey(id: try #require(Data(base64Encoded: keyID).map(Array.init)))
            #expect(kept?.appID == device.appID)
            #expect(await attestation.attest() == .attested(keyID: keyID), "remembered")
            #expect(counter.count(NativePath.appAttestChallenge) == 1 && counter.count(NativePath.appAttestKeys) == 1)
            #expect(provider.generated == 1)
        }
    }

    @Test func appleUnavailableIsTriedAgainWithTheSameKeyAndALostKeyIsReplaced() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await LiveServer.run(appAttest: device) { server in
            let provider = SimulatedProvider(device, now: server.clock.function)
            let attestation = AppAttestation(api: server.api(), store: MemoryStore(), provider: provider)
            provider.fail(.serverUnavailable)
            #expect(await attestation.attest() == .retryLater)
            guard case .attested = await attestation.attest() else {
                Issue.record("not attested on the second try")
                return
            }
            #expect(provider.generated == 1, "Apple asks to retry with the same key")

            let lost = AppAttestation(api: server.api(), store: MemoryStore(), provider: provider)
            provider.fail(.invalidKey)
            #expect(await lost.attest() == .retryLater)
            guard case .attested = await lost.attest() else {
                Issue.record("not attested with a new key")
                return
            }
            #expect(provider.generated == 3, "the invalid key replaced")
        }
    }

    @Test func aKeyAppleAttestedButChatterdNeverKeptIsReplaced() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await LiveServer.run(appAttest: device) { server in
            let keys = SwitchableTransport(only: NativePath.appAttestKeys)
            let provider = SimulatedProvider(device, now: server.clock.function)
            let attestation = AppAttestation(api: server.api(transport: keys), store: MemoryStore(), provider: provider)
            // Apple attests the key, then the answer to chatterd is lost: the key cannot be attested again.
            keys.setDown(true)
            #expect(await attestation.attest() == .retryLater)
            keys.setDown(false)
            guard case .attested(let keyID) = await attestation.attest() else {
                Issue.record("not attested with a new key")
                return
            }
            #expect(provider.generated == 2, "a new key, as the spent one would be refused")
            let id = Array(try #require(Data(base64Encoded: keyID)))
            #expect(try await server.store.appAttestKey(id: id) != nil)
        }
    }

    @Test func anExpiredChallengeIsTriedAgainLater() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await LiveServer.run(appAttest: device) { server in
            // The app was suspended between the challenge and the attestation.
            let provider = SimulatedProvider(device, now: server.clock.function)
            let slow = DelayedPath(NativePath.appAttestKeys) { server.clock.advance(by: 301) }
            #expect(await AppAttestation(api: server.api(transport: slow), store: MemoryStore(), provider: provider).attest() == .retryLater)
        }
    }

    @Test func unsupportedDevicesAndServersGoOnWithout() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await LiveServer.run { server in
            let counter = CountingTransport()
            let simulator = SimulatedProvider(device, supported: false, now: server.clock.function)
            #expect(await AppAttestation(api: server.api(transport: counter), store: MemoryStore(), provider: simulator).attest() == .unsupported)
            #expect(counter.count(NativePath.appAttestChallenge) == 0, "an unsupported device asks nothing")
            let supported = SimulatedProvider(device, now: server.clock.function)
            #expect(await AppAttestation(api: server.api(), store: MemoryStore(), provider: supported).attest() == .unsupported, "404: no app here")
            let featureless = SimulatedProvider(device, now: server.clock.function)
            featureless.fail(.featureUnsupported)
            #expect(await AppAttestation(api: server.api(), store: MemoryStore(), provider: featureless).attest() == .unsupported)
        }
    }

    @Test func anAttestationTheServerRefusesSaysWhy() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        // Another authority than the one chatterd trusts: the chain is refused.
        let impostor = try SimulatedAppAttest(now: TestClock().now)
        try await LiveServer.run(appAttest: device) { server in
            let state = await AppAttestation(api: server.api(), store: MemoryStore(), provider: SimulatedProvider(impostor, now: server.clock.function))
                .attest()
            guard case .refused(let message) = state else {
                Issue.record("not refused: \(state)")
                return
            }
            #expect(message.contains("Apple App Attestation Root CA"))
        }
    }

    /// A client given App Attest attests its install at the first sign-in and vouches for every sign-in after: the
    /// session list shows the app, and a server that creates accounts only for attested installs lets it sign up.
    @Test func aClientWithAppAttestVouchesForEachSignIn() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await LiveServer.run(appAttest: device, appAttestSignUp: true) { server in
            let provider = SimulatedProvider(device, now: server.clock.function)
            let plain = server.client(deviceKeys: SoftwareDPoPKeys())
            do {
                try await plain.signInByEmail(on: server)
                Issue.record("an account without the app's attestation")
            } catch ChatterError.server(403, let body) {
                #expect(body?.code == .appAttestRequired)
            }

            let store = MemoryStore()
            let client = server.client(store: store, deviceKeys: SoftwareDPoPKeys(), appAttest: provider)
            try await client.signInByEmail(on: server)
            #expect(try await client.activeSessions().map(\.attestedApp) == [device.appID])
            try await client.sessions.signOut()
            try await client.signInByEmail(on: server)
            #expect(try await client.activeSessions().map(\.attestedApp) == [device.appID], "the second sign-in vouched for too")
            #expect(provider.generated == 1, "attested once")
            let state = await AppAttestation(api: server.api(), store: store, provider: provider).attest()
            let keyID = try #require(state.keyID.flatMap { Data(base64Encoded: $0) })
            #expect(try await server.store.appAttestKey(id: Array(keyID))?.counter == 2, "one assertion per sign-in")
        }
    }

    /// A server that no longer knows the install's key (its database was replaced) refuses the assertion; the client
    /// attests a new key and signs in, vouched for, in the same call.
    @Test func aKeyTheServerForgotIsReplacedAtTheNextSignIn() async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        let store = MemoryStore()
        let clock = TestClock()
        let provider = SimulatedProvider(device, now: clock.function)
        try await LiveServer.run(clock: clock, appAttest: device) { server in
            try await server.client(store: store, deviceKeys: SoftwareDPoPKeys(), appAttest: provider).signInByEmail(on: server)
        }
        try await LiveServer.run(clock: clock, appAttest: device) { server in
            let client = server.client(store: store, deviceKeys: SoftwareDPoPKeys(), appAttest: provider)
            try await client.sessions.signOut()
            try await client.signInByEmail(on: server)
            #expect(try await client.activeSessions().map(\.attestedApp) == [device.appID])
            #expect(provider.generated == 2, "a new key for the server that forgot the first")
        }
    }
}

/// Runs `before` ahead of each request to one path.
final class DelayedPath: HTTPTransport {
    let path: String
    let before: @Sendable () -> Void
    let inner = URLSessionTransport()

    init(_ path: String, before: @escaping @Sendable () -> Void) {
        self.path = path
        self.before = before
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.path == path { before() }
        return try await inner.send(request)
    }
}

extension AppAttestState {
    var keyID: String? {
        if case .attested(let keyID) = self { keyID } else { nil }
    }
}
