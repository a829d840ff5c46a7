import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterKit
@testable import chatter

/// Sessions bound to the device's key (DPoP, issue 47), through ChatterKit against a live chatterd, with the software
/// key the `chatter` tool uses (`SoftwareDPoPKeys`; an app's Secure Enclave key differs only in where it lives).
@Suite struct DeviceKeyTests {
    /// The key factory, counting the keys it makes.
    final class CountingKeys: DPoPKeyFactory {
        let made = Mutex(0)
        func make() throws -> (key: any DPoPKey, stored: Data) {
            made.withLock { $0 += 1 }
            return try SoftwareDPoPKeys().make()
        }
        func restore(_ stored: Data) throws -> any DPoPKey { try SoftwareDPoPKeys().restore(stored) }
    }

    /// A request with `token` as someone else would send it: as a bearer token, or with proofs of their own key.
    func steal(_ token: String, on server: LiveServer, ownKey: Bool) async throws -> ChatterError? {
        var api = server.api()
        if ownKey { api.dpop = DPoPProofs(store: MemoryStore(), keys: SoftwareDPoPKeys(), now: server.clock.function) }
        do {
            let _: UserProfile = try await api.send("GET", NativePath.me, bearer: token)
            return nil
        } catch let error as ChatterError {
            return error
        }
    }

    @Test func aSessionSignedInWithTheKeyWorksOnlyWithIt() async throws {
        try await LiveServer.run(accessLifetime: 300, requireDPoP: true) { server in
            let store = MemoryStore()
            let client = server.client(store: store, deviceKeys: SoftwareDPoPKeys())
            try await client.signInByEmail(on: server)
            #expect(try await client.me().email == "ada@example.com")
            server.clock.advance(by: 301)
            #expect(try await client.me().email == "ada@example.com", "refreshed with a proof, then used with one")

            let stored = try #require(try await storedSession(in: store))
            for ownKey in [false, true] {
                let refused = try await steal(stored.accessToken, on: server, ownKey: ownKey)
                guard case .server(401, let body) = refused else {
                    Issue.record("the access token worked \(ownKey ? "with another key" : "as a bearer token"): \(String(describing: refused))")
                    continue
                }
                #expect(body?.code == .invalidDPoPProof && body?.check == "session_key")
            }
            // The refresh token with a thief's key: refused, and the owner's session goes on untouched.
            var thief = server.api()
            thief.dpop = DPoPProofs(store: MemoryStore(), keys: SoftwareDPoPKeys(), now: server.clock.function)
            let refresh = try #require(stored.refreshToken)
            await #expect(throws: ChatterError.self) {
                let _: SessionResponse = try await thief.send("POST", NativePath.refresh, body: RefreshRequest(refreshToken: refresh))
            }
            server.clock.advance(by: 301)
            #expect(try await client.me().email == "ada@example.com")
        }
    }

    @Test func theServersNonceIsLearnedOnceAndEachRequestSentOnce() async throws {
        try await LiveServer.run(dpopNonces: true) { server in
            let counter = CountingTransport()
            let client = server.client(transport: counter, deviceKeys: SoftwareDPoPKeys())
            try await client.signInByEmail(on: server)
            // The first request learns the nonce (RFC 9449 §8) and is sent again once; later ones carry it.
            #expect(counter.count(NativePath.emailCode) == 2)
            #expect(counter.count(NativePath.emailVerify) == 1)
            for _ in 0..<3 { _ = try await client.me() }
            #expect(counter.count(NativePath.me) == 3)
            // A nonce that has gone stale (two five-minute steps on) is replaced the same way, once per request.
            server.clock.advance(by: 900)
            _ = try await client.me()
            #expect(counter.count(NativePath.refresh) == 2, "the refresh learned the new nonce")
            #expect(counter.count(NativePath.me) == 4)
        }
    }

    @Test func theKeyIsMadeOnceAcrossProcessesAndKeptInTheStore() async throws {
        try await withTemporaryDirectory { directory in
            let keys = CountingKeys()
            let lock = FileLockCoordinator(path: directory + "/session.lock")
            // Two "processes" (an app and its extension) share one store and lock, each with its own proofs.
            let app = DPoPProofs(store: FileStore(directory: directory), coordinator: lock, keys: keys)
            let widget = DPoPProofs(store: FileStore(directory: directory), coordinator: lock, keys: keys)
            let thumbprints = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<40 { group.addTask { try await (index.isMultiple(of: 2) ? app : widget).thumbprint() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(thumbprints.count == 1)
            #expect(keys.made.withLock { $0 } == 1)
            // The next launch restores it.
            let relaunched = DPoPProofs(store: FileStore(directory: directory), coordinator: lock, keys: keys)
            #expect(try await relaunched.thumbprint() == thumbprints.first)
            #expect(keys.made.withLock { $0 } == 1)
        }
    }

    @Test func aSessionWhoseKeyIsLostSignsOutAndSigningInAgainBindsTheNewKey() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = MemoryStore()
            try await server.client(store: store, deviceKeys: SoftwareDPoPKeys()).signInByEmail(on: server)
            // A restore to another device (or a reset keychain) keeps the session but not the key.
            try await store.delete(StoreKey.dpopKey)
            let relaunched = server.client(store: store, deviceKeys: SoftwareDPoPKeys())
            let events = EventLog(await relaunched.sessions.events())
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await relaunched.me() }
            #expect(await events.waitFor(1).contains(.signedOut(.revoked)))
            #expect(try await store.read(StoreKey.session) == nil)

            // The way forward: sign in again, bound to the new key.
            try await relaunched.signInByEmail(on: server)
            #expect(try await relaunched.me().email == "ada@example.com")
        }
    }

    @Test func aClientWithoutAKeyIsRefusedABoundSessionButSignsNobodyOut() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            // An extension set up without device keys, sharing the app's store.
            let store = MemoryStore()
            try await server.client(store: store, deviceKeys: SoftwareDPoPKeys()).signInByEmail(on: server)
            let keyless = server.client(store: store)
            do {
                _ = try await keyless.me()
                Issue.record("a bound session's token worked without its key")
            } catch ChatterError.server(401, let body) {
                #expect(body?.check == "session_key")
            }
            #expect(try await store.read(StoreKey.session) != nil, "the session stays for the app that holds the key")
            #expect(try await server.client(store: store, deviceKeys: SoftwareDPoPKeys()).me().email == "ada@example.com")
        }
    }

    @Test func aLostKeyFoundAtRefreshSignsOutToo() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = MemoryStore()
            try await server.client(store: store, deviceKeys: SoftwareDPoPKeys()).signInByEmail(on: server)
            try await store.delete(StoreKey.dpopKey)
            server.clock.advance(by: 301)
            let relaunched = server.client(store: store, deviceKeys: SoftwareDPoPKeys())
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await relaunched.me() }
            #expect(try await store.read(StoreKey.session) == nil)
        }
    }

    @Test func aBearerSessionIsBoundByItsFirstRefreshWithAKey() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            // Signed in by an app version without a key; the update that adds one keeps the session.
            let store = MemoryStore()
            try await server.client(store: store).signInByEmail(on: server)
            let before = try #require(try await storedSession(in: store))
            #expect(try await steal(before.accessToken, on: server, ownKey: false) == nil, "unbound, a bearer token works")

            let updated = server.client(store: store, deviceKeys: SoftwareDPoPKeys())
            server.clock.advance(by: 301)
            #expect(try await updated.me().email == "ada@example.com")
            let after = try #require(try await storedSession(in: store))
            #expect(after.accessToken != before.accessToken)
            guard case .server(401, _) = try await steal(after.accessToken, on: server, ownKey: false) else {
                Issue.record("the refreshed session's token still works as a bearer token")
                return
            }
        }
    }

    @Test func theCourseAPIIsSentNoProof() async throws {
        try await LiveServer.run(courseOnly: true) { server in
            let recorder = RecordingTransport()
            let client = server.client(transport: recorder, deviceKeys: SoftwareDPoPKeys())
            _ = try await client.courseChatts()
            #expect(recorder.requests.withLock { $0.allSatisfy { $0.headers["DPoP"] == nil } && !$0.isEmpty })
        }
    }

    @Test func theTerminalClientsSessionIsBound() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                let login = await cli.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server))
                #expect(login.exitCode == 0, "\(login.errors)")
                #expect(await cli.run(["whoami"]).exitCode == 0)
                let store = await CommandContext.makeStore(try Settings.resolve(try GlobalOptions.parse([]), environment: cli.environment))
                let session = try #require(try await storedSession(in: store))
                guard case .server(401, _) = try await steal(session.accessToken, on: server, ownKey: false) else {
                    Issue.record("the terminal client's token works without its key")
                    return
                }
            }
        }
    }
}

/// Keeps every request it passes on.
final class RecordingTransport: HTTPTransport {
    let inner: any HTTPTransport = URLSessionTransport()
    let requests = Mutex<[TransportRequest]>([])

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        requests.withLock { $0.append(request) }
        return try await inner.send(request)
    }
}
