import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterKit

/// Refresh before expiry and on 401, de-duplicated, store-first, against a live server.
@Suite struct RefreshTests {
    @Test func fiftyConcurrentRequestsWithAnExpiringTokenShareOneRefresh() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let counter = CountingTransport()
            let client = server.client(transport: counter)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)

            let emails = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<50 { group.addTask { try await client.me().email } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(emails.count == 50 && emails.allSatisfy { $0 == "ada@example.com" })
            #expect(counter.count(NativePath.refresh) == 1)
        }
    }

    @Test func fiftyConcurrent401sThatSayExpiredShareOneRefresh() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            // The device's clock lags the server's, so the client believes the token is still good.
            let deviceClock = TestClock(server.clock.now)
            let counter = CountingTransport()
            let client = server.client(transport: counter, now: deviceClock.function)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { _ = try await client.me() } }
                try await group.waitForAll()
            }
            #expect(counter.count(NativePath.refresh) == 1)
            #expect(counter.count(NativePath.me) >= 51, "each request, then its retry after the refresh")
        }
    }

    @Test func a401ForTheOldTokenWhileARefreshIsUnderWayWaitsForIt() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let deviceClock = TestClock(server.clock.now)
            let counter = CountingTransport()
            let held = HoldResponses(path: NativePath.refresh, counter)
            let store = MemoryStore()
            let client = server.client(store: store, transport: held, now: deviceClock.function)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)

            // The first request starts the refresh; the server rotates, but its answer is held back.
            let first = Task { try await client.me() }
            #expect(await eventually { held.holding == 1 })
            // A second request still carries the retired token, and the server refuses it.
            let second = Task { try await client.me() }
            #expect(await eventually { counter.count(NativePath.me) == 2 })
            try await Task.sleep(for: .milliseconds(200))
            held.release()

            #expect(try await first.value.email == "ada@example.com")
            #expect(try await second.value.email == "ada@example.com", "the 401 during the refresh did not sign the user out")
            #expect(store.keys.contains(StoreKey.session))
            #expect(counter.count(NativePath.refresh) == 1)
        }
    }

    @Test func aRefreshAnsweredAfterANewSignInDoesNotReplaceIt() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let held = HoldResponses(path: NativePath.refresh, URLSessionTransport())
            let store = MemoryStore()
            let client = server.client(store: store, transport: held)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)

            let refresh = Task { try await client.sessions.refresh() }
            #expect(await eventually { held.holding == 1 })
            // Meanwhile the user signs in again, as someone else.
            let grace = try await client.signInByEmail("grace@example.com", on: server)
            held.release()
            _ = try? await refresh.value

            #expect(await client.sessions.currentSession?.user?.email == "grace@example.com")
            #expect(try await storedSession(in: store)?.user?.email == "grace@example.com")
            #expect(grace.user?.email == "grace@example.com")
        }
    }

    @Test func refreshedSessionIsStoredAndAnnounced() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            let events = EventLog(await client.sessions.events())
            await client.sessions.start()
            try await client.signInByEmail(on: server)
            let before = try #require(await storedSession(in: store))

            server.clock.advance(by: 301)
            _ = try await client.me()
            let after = try #require(await storedSession(in: store))
            #expect(after.refreshToken != before.refreshToken)
            #expect(after.accessToken != before.accessToken)
            #expect(after.accessExpiresAt == server.clock.now.addingTimeInterval(300))

            let seen = await events.waitFor(3)
            #expect(seen.count == 3)
            #expect(seen.first == .initialSession(.signedOut))
            if case .signedIn(let session) = seen[1] { #expect(session.user?.email == "ada@example.com") } else { Issue.record("\(seen)") }
            if case .refreshed(let session) = seen[2] { #expect(session.accessExpiresAt == after.accessExpiresAt) } else { Issue.record("\(seen)") }
        }
    }

    @Test func rotatedTokenIsStoredEvenWhenTheRetriedRequestThenFails() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = MemoryStore()
            let deviceClock = TestClock(server.clock.now)
            let switchable = SwitchableTransport()
            // The network drops right after the refresh answer, before the retried request.
            let client = server.client(store: store, transport: DropAfterRefresh(switchable), now: deviceClock.function)
            try await client.signInByEmail(on: server)
            let original = try #require(await storedSession(in: store))
            server.clock.advance(by: 301)

            await #expect(throws: ChatterError.network(URLError(.cannotConnectToHost).localizedDescription)) { try await client.me() }
            let kept = try #require(await storedSession(in: store))
            #expect(kept.refreshToken != original.refreshToken)

            // The next launch uses the stored (rotated) token: the server accepts it, no reuse is detected.
            deviceClock.set(server.clock.now)
            let next = server.client(store: store)
            await next.sessions.start()
            try await next.sessions.refresh()
            #expect(try await next.me().email == "ada@example.com")
        }
    }

    @Test func aCancelledCallerDoesNotAbandonTheRefresh() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = MemoryStore()
            let counter = CountingTransport()
            let gate = GateTransport(path: NativePath.refresh, counter)
            let client = server.client(store: store, transport: gate)
            try await client.signInByEmail(on: server)
            let original = try #require(await storedSession(in: store))
            server.clock.advance(by: 301)

            let caller = Task { try await client.me() }
            #expect(await eventually { gate.waiting == 1 })
            caller.cancel()
            gate.open()
            _ = await caller.result

            // The refresh finished and was stored although its only caller went away.
            #expect(await eventually { (try? await storedSession(in: store))?.refreshToken != original.refreshToken })
            #expect(try await client.me().email == "ada@example.com")
            #expect(counter.count(NativePath.refresh) == 1)
        }
    }

    @Test func aReusedRefreshTokenSignsOutWithThatReason() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            try await client.signInByEmail(on: server)
            // A copy of the stored tokens, as a thief (or a restored backup) would have.
            let copy = MemoryStore([StoreKey.session: try #require(await store.read(StoreKey.session))])
            try await client.sessions.refresh()
            // Past the server's grace window, in which a retried refresh gets the same answer again.
            server.clock.advance(by: 31)

            let stale = server.client(store: copy)
            let events = EventLog(await stale.sessions.events())
            await stale.sessions.start()
            await #expect(throws: ChatterError.signedOut(.refreshTokenReused)) { try await stale.sessions.refresh() }
            #expect(copy.keys.isEmpty)
            #expect(await events.waitFor(2).last == .signedOut(.refreshTokenReused))
            // The server revoked the whole session, so the honest client is out too.
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await client.me() }
            #expect(store.keys.contains(StoreKey.session) == false)
        }
    }

    @Test func aNetworkErrorDuringRefreshKeepsTheSession() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = MemoryStore()
            let switchable = SwitchableTransport()
            let client = server.client(store: store, transport: switchable)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)

            switchable.setDown(true)
            await #expect(throws: ChatterError.self) { try await client.me() }
            #expect(store.keys.contains(StoreKey.session))
            if case .expiring = await client.sessions.state {} else { Issue.record("state \(await client.sessions.state)") }

            switchable.setDown(false)
            #expect(try await client.me().email == "ada@example.com")
        }
    }

    @Test func aRefreshThatCannotBeStoredIsKeptInMemoryAndSavedLater() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = ScriptedStore()
            let counter = CountingTransport()
            let client = server.client(store: store, transport: counter)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)

            store.failWrites(.failed("disk full"))
            #expect(try await client.me().email == "ada@example.com")
            #expect(await client.sessions.storageProblem == .failed("disk full"))
            #expect(store.writeAttempts >= 3, "tried again before giving up")
            // The session stored before holds a refresh token the server has retired: it is gone, so a restart
            // now finds no session instead of presenting that token and having the server end the session as reuse.
            #expect(try await storedSession(in: store) == nil)

            store.failWrites(nil)
            _ = try await client.me()
            let saved = try #require(await storedSession(in: store))
            #expect(saved.accessExpiresAt == server.clock.now.addingTimeInterval(300), "the refreshed session, saved on the next use")
            #expect(counter.count(NativePath.refresh) == 1)
        }
    }

    @Test func comingToTheForegroundRefreshesRetryingANetworkThatIsNotBackYet() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let switchable = SwitchableTransport()
            let counter = CountingTransport(switchable)
            let client = server.client(transport: counter)
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 301)
            // Back from the background before the network is.
            switchable.setDown(true)
            let foreground = Task { await AuthState(sessions: client.sessions).appBecameActive() }
            #expect(await eventually { counter.count(NativePath.refresh) == 1 })
            switchable.setDown(false)
            await foreground.value
            #expect(counter.count(NativePath.refresh) == 2, "tried again after a second")
            guard case .valid = await client.sessions.state else {
                Issue.record("not refreshed: \(await client.sessions.state)")
                return
            }
            // Nothing to do while the token is good.
            await client.sessions.refreshIfNeeded()
            #expect(counter.count(NativePath.refresh) == 2)
        }
    }

    @Test func noRefreshWhileStorageCannotTakeTheRotatedTokens() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            let store = MemoryStore()
            let counter = CountingTransport()
            let client = server.client(store: store, transport: counter)
            try await client.signInByEmail(on: server)
            let before = try #require(await storedSession(in: store))
            server.clock.advance(by: 301)

            // Locked (say a when-unlocked item while the phone is in a pocket): a pair rotated now would live only
            // in memory, and die with the app.
            store.setFailure(.unavailable("locked"))
            await #expect(throws: ChatterError.storage(.unavailable("locked"))) { try await client.me() }
            #expect(counter.count(NativePath.refresh) == 0)

            store.setFailure(nil)
            #expect(try await storedSession(in: store) == before, "nothing changed while locked")
            #expect(try await client.me().email == "ada@example.com")
            #expect(counter.count(NativePath.refresh) == 1)
        }
    }
}

/// Takes the network down as soon as a refresh answer has come back.
final class DropAfterRefresh: HTTPTransport {
    let inner: SwitchableTransport
    init(_ inner: SwitchableTransport) { self.inner = inner }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response = try await inner.send(request)
        if request.url.path == NativePath.refresh { inner.setDown(true) }
        return response
    }
}

/// Sends requests at once but holds the answers for one path until released.
final class HoldResponses: HTTPTransport {
    let inner: any HTTPTransport
    let path: String
    private let state = Mutex<(holding: Int, released: Bool)>((0, false))

    init(path: String, _ inner: any HTTPTransport) {
        self.path = path
        self.inner = inner
    }

    var holding: Int { state.withLock { $0.holding } }
    func release() { state.withLock { $0.released = true } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response = try await inner.send(request)
        if request.url.path == path {
            state.withLock { $0.holding += 1 }
            while !state.withLock({ $0.released }) { try await Task.sleep(for: .milliseconds(5)) }
        }
        return response
    }
}
