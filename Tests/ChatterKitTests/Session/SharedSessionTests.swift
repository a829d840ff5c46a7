import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// One process's client over the file store in `directory`, taking turns through `lock` (by default a lock
/// file beside it).
private func shared(_ server: LiveServer, directory: String, transport: any HTTPTransport, lock: String? = nil) -> ChatterClient {
    ChatterClient(
        api: server.api(transport: transport), store: FileStore(directory: directory),
        coordinator: FileLockCoordinator(path: lock ?? directory + "/session.lock"), now: server.clock.function)
}

/// An app and its extensions (here: clients with their own memory, and real `chatter` processes) sharing one
/// stored session take turns refreshing it, and adopt what another stored, so none presents a retired
/// refresh token and chatterd never sees reuse (issue "ChatterKit on a real iPhone", item 3).
@Suite struct SharedSessionTests {
    /// Two session managers over one directory: two processes as far as the session is concerned.
    func pair(_ server: LiveServer, directory: String, now: @escaping @Sendable () -> Date) -> (ChatterClient, ChatterClient, CountingTransport) {
        let counter = CountingTransport()
        return (shared(server, directory: directory, transport: counter), shared(server, directory: directory, transport: counter), counter)
    }

    @Test func twoProcessesWithAnExpiringTokenRefreshOnceBetweenThem() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let (app, widget, counter) = pair(server, directory: directory, now: server.clock.function)
                try await app.signInByEmail(on: server)
                #expect(try await widget.me().email == "ada@example.com", "the widget reads the app's session")
                server.clock.advance(by: 301)

                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<40 { group.addTask { _ = try await (index.isMultiple(of: 2) ? app : widget).me() } }
                    try await group.waitForAll()
                }
                #expect(counter.count(NativePath.refresh) == 1, "one refresh for both processes")
                #expect(await app.sessions.currentSession == widget.sessions.currentSession)
                #expect(try await server.store.auditEvents(userID: nil).contains { $0.event == "refresh_reused" } == false)
            }
        }
    }

    @Test func aProcessWhoseTokenAnotherRetiredAdoptsTheStoredOne() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let (app, widget, counter) = pair(server, directory: directory, now: server.clock.function)
                try await app.signInByEmail(on: server)
                _ = try await widget.me()
                // The app refreshes; the widget still holds the access token that refresh retired.
                try await app.sessions.refresh()
                #expect(try await widget.me().email == "ada@example.com", "a 401 for the retired token reads the stored session")
                #expect(counter.count(NativePath.refresh) == 1)
                // And a refresh the widget starts itself uses the app's refresh token, not its retired one.
                try await widget.sessions.refresh()
                #expect(try await app.me().email == "ada@example.com")
                #expect(counter.count(NativePath.refresh) == 2)
                #expect(try await server.store.auditEvents(userID: nil).contains { $0.event == "refresh_reused" } == false)
            }
        }
    }

    @Test func signingOutInOneProcessSignsOutTheOther() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let (app, widget, _) = pair(server, directory: directory, now: server.clock.function)
                try await app.signInByEmail(on: server)
                _ = try await widget.me()
                try await app.sessions.signOut()
                server.clock.advance(by: 301)
                await #expect(throws: ChatterError.signedOut(.userRequested)) { try await widget.me() }
                #expect(await widget.sessions.currentSession == nil)
            }
        }
    }

    @Test func aRefreshThatFailsIsNeverSentAgainOutsideItsTurn() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let switchable = SwitchableTransport()
                let counter = CountingTransport(switchable)
                let app = shared(server, directory: directory, transport: counter)
                try await app.signInByEmail(on: server)
                server.clock.advance(by: 301)
                switchable.setDown(true)
                await #expect(throws: ChatterError.self) { try await app.me() }
                #expect(counter.count(NativePath.refresh) == 1, "the failed refresh is not run a second time")
            }
        }
    }

    @Test func withoutItsTurnNoRefreshIsSentButASignInStillLands() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let counter = CountingTransport()
                // A lock file no process can create (an app group container that does not exist, say).
                let client = shared(server, directory: directory, transport: counter, lock: "/proc/no-such-directory/session.lock")
                let session = try await client.signInByEmail(on: server)
                #expect(try await storedSession(in: FileStore(directory: directory))?.sessionID == session.sessionID)
                server.clock.advance(by: 301)
                do {
                    _ = try await client.me()
                    Issue.record("refreshed without its turn")
                } catch ChatterError.storage(.unavailable) {
                } catch {
                    Issue.record("\(error)")
                }
                #expect(counter.count(NativePath.refresh) == 0)
                #expect(await client.sessions.currentSession == session, "still signed in")
            }
        }
    }

    @Test func aProcessStillHoldingAnEndedSessionAdoptsTheNewSignInInsteadOfDeletingIt() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let (app, widget, _) = pair(server, directory: directory, now: server.clock.function)
                try await app.signInByEmail(on: server)
                for _ in 0..<3 { try await app.sessions.refresh() }  // the old session's generation runs ahead
                _ = try await widget.me()
                // The user signs out and in again in the app: a new session, counted from the start.
                try await app.sessions.signOut()
                let fresh = try await app.signInByEmail(on: server)
                // The widget's token belongs to the session that ended; it must not delete the new one.
                #expect(try await widget.me().email == "ada@example.com")
                #expect(await widget.sessions.currentSession?.sessionID == fresh.sessionID)
                #expect(try await storedSession(in: FileStore(directory: directory))?.sessionID == fresh.sessionID)
                #expect(try await app.me().email == "ada@example.com")
            }
        }
    }

    /// Real processes: four shells run `chatter whoami` back to back over one file store, for 15 seconds here
    /// and a minute in CI's long step (`CHATTER_SHARED_SESSION_SECONDS`). Access tokens are "expiring" two
    /// seconds after each refresh, so the processes race to refresh all along.
    @Test(.timeLimit(.minutes(3))) func fourProcessesShareOneSession() async throws {
        let chatter = builtProduct("chatter")
        guard FileManager.default.isExecutableFile(atPath: chatter) else {
            print("skipped: the chatter executable is not built beside the tests (\(chatter))")
            return
        }
        let seconds = Int(ProcessInfo.processInfo.environment["CHATTER_SHARED_SESSION_SECONDS"] ?? "") ?? 15
        // Started at the real time: the processes date their DPoP proofs by the system's clock.
        try await LiveServer.run(clock: TestClock(Date()), accessLifetime: 62) { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                let login = await cli.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server))
                #expect(login.exitCode == 0, "\(login.errors)")
                // chatterd's clock follows the real one, as the processes' clocks do: set to it, not advanced by
                // the sleeps, which a loaded machine stretches (the processes' proofs would then run ahead of it).
                let ticking = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(100))
                        server.clock.set(Date())
                    }
                }
                defer { ticking.cancel() }
                let script = """
                    end=$(( $(date +%s) + \(seconds) ))
                    while [ "$(date +%s)" -lt "$end" ]; do
                      # With --json a failure is reported on stdout: kept with the exit status and stderr.
                      if out=$("\(chatter)" whoami --json 2>"$CHATTER_HOME/err-$$"); then echo ok; else echo "failed (exit $?): $out $(cat "$CHATTER_HOME/err-$$")"; fi
                    done
                    """
                let outcomes = try await withThrowingTaskGroup(of: ChildProcess.Outcome.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            try await ChildProcess.run(
                                "/usr/bin/env",
                                [
                                    "CHATTER_HOME=\(home)", "CHATTER_SERVER=\(server.baseURL.absoluteString)", "CHATTER_STORE=file", "HOME=\(home)", "/bin/sh",
                                    "-c", script,
                                ],
                                timeout: .seconds(seconds + 60))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let lines = outcomes.flatMap { String(decoding: $0.output, as: UTF8.self).split(separator: "\n") }
                let failures = lines.filter { $0 != "ok" }
                let directory =
                    home + "/sessions/"
                    + (try #require(try FileManager.default.contentsOfDirectory(atPath: home + "/sessions").first { !$0.hasSuffix(".lock") }))
                let stored = try #require(try await storedSession(in: FileStore(directory: directory)))
                let events = try await server.store.auditEvents(userID: nil).map(\.event)
                print(
                    "shared session: \(outcomes.count) processes, \(lines.count) runs of chatter whoami in \(seconds) s, \(failures.count) failed,"
                        + " \(stored.generation ?? 0) writes of the session, reuse detected: \(events.filter { $0 == "refresh_reused" }.count)")
                #expect(outcomes.allSatisfy { $0.status == 0 && !$0.timedOut })
                #expect(failures.isEmpty, "\(failures.prefix(3))")
                // A run takes up to 2 s on a loaded 2-core machine; each process still runs several times.
                #expect(lines.count >= max(1, seconds / 8) * outcomes.count, "the processes kept running")
                #expect((stored.generation ?? 0) >= seconds / 4, "refreshed all along")
                #expect(!events.contains("refresh_reused"))
                let last = await cli.run(["whoami"])
                #expect(last.exitCode == 0, "the session never ended: \(last.errors)")
            }
        }
    }
}

/// The turn is not held across a refresh's request (a suspended app holding a lock in its app group's container is
/// killed, 0xdead10cc, as `performExpiringActivity` ending before the request does would leave it): a lease in the
/// store says a refresh is under way, and the other process waits for what it stores.
@Suite struct RefreshLeaseTests {
    @Test func noLockIsHeldWhileTheRequestIsOutAndTheOtherProcessWaitsForItsAnswer() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let lock = directory + "/session.lock"
                let gate = GateTransport(path: NativePath.refresh)
                let counter = CountingTransport(gate)
                let app = ChatterClient(
                    api: server.api(transport: counter), store: FileStore(directory: directory), coordinator: FileLockCoordinator(path: lock),
                    now: server.clock.function)
                let widget = ChatterClient(
                    api: server.api(transport: counter), store: FileStore(directory: directory), coordinator: FileLockCoordinator(path: lock),
                    now: server.clock.function)
                try await app.signInByEmail(on: server)
                _ = try await widget.me()
                server.clock.advance(by: 301)

                let refreshing = Task { try await app.sessions.refresh() }
                #expect(await eventually { gate.waiting == 1 }, "the app's refresh request is out")
                // Anyone can take the turn now: the app holds no lock across its request.
                let free = try await FileLockCoordinator(path: lock, timeout: .milliseconds(200)).exclusively { true }
                #expect(free)
                #expect(try await FileStore(directory: directory).read(StoreKey.refreshLease) != nil, "the lease says a refresh is under way")
                // The widget, needing a refresh too, waits for the app's answer instead of sending its own.
                let widgetRefresh = Task { try await widget.sessions.refresh() }
                try await Task.sleep(for: .milliseconds(100))
                #expect(gate.waiting == 1, "no second refresh request")
                gate.open()
                _ = try await refreshing.value
                _ = try await widgetRefresh.value
                #expect(counter.count(NativePath.refresh) == 1)
                #expect(await app.sessions.currentSession == widget.sessions.currentSession)
                #expect(try await FileStore(directory: directory).read(StoreKey.refreshLease) == nil, "given back")
                #expect(try await server.store.auditEvents(userID: nil).contains { $0.event == "refresh_reused" } == false)
            }
        }
    }

    /// The app's refresh has reached chatterd, retiring the widget's access token, and its answer is held at `gate`;
    /// the widget's `reading` (`me()`) has been refused. `body` goes on from there.
    private func refusedWhileTheAppRefreshes(
        _ body:
            @Sendable (
                _ server: LiveServer, _ directory: String, _ app: ChatterClient, _ widget: ChatterClient, _ seen: CountingTransport,
                _ gate: GateTransport, _ refreshing: Task<AuthSession, any Error>, _ reading: Task<UserProfile, any Error>
            ) async throws -> Void
    ) async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let gate = GateTransport(path: NativePath.refresh, holdingAnswers: true)
                let app = shared(server, directory: directory, transport: gate)
                let seen = CountingTransport()
                let widget = shared(server, directory: directory, transport: seen)
                try await app.signInByEmail(on: server)
                _ = try await widget.me()

                let refreshing = Task { try await app.sessions.refresh() }
                #expect(await eventually { gate.waiting == 1 }, "the server rotated; the app has not heard yet")
                let reading = Task { try await widget.me() }
                #expect(await eventually { seen.answered(NativePath.me) == 2 }, "the widget's token was refused")
                try await body(server, directory, app, widget, seen, gate, refreshing, reading)
            }
        }
    }

    /// The other process's refresh retires this one's access token on the server before its answer is stored: the
    /// 401 for that token says nothing about the session while the lease is held (seen as `chatter whoami`
    /// printing "signed out" twice in 781 runs of `fourProcessesShareOneSession`, and deleting the stored session
    /// until the refreshing process stored it again).
    @Test func aTokenRefusedWhileAnotherProcessRefreshesWaitsForItsAnswerInsteadOfSigningOut() async throws {
        try await refusedWhileTheAppRefreshes { server, directory, app, widget, seen, gate, refreshing, reading in
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await FileStore(directory: directory).read(StoreKey.session) != nil, "the widget deleted nothing")
            #expect(seen.count(NativePath.me) == 2, "nor asked again before the app's answer is stored")
            gate.open()
            _ = try await refreshing.value
            #expect(try await reading.value.email == "ada@example.com", "the widget adopted the app's answer")
            #expect(await widget.sessions.currentSession == app.sessions.currentSession)
            #expect(try await server.store.auditEvents(userID: nil).contains { $0.event == "refresh_reused" } == false)
        }
    }

    /// A caller that gives up (a view gone, its task cancelled) while waiting for the other's answer leaves the
    /// session as it is: nothing deleted, no sign-out told.
    @Test func aCancelledCallerWaitingForAnotherProcessesRefreshLeavesTheSessionAlone() async throws {
        try await refusedWhileTheAppRefreshes { _, directory, _, widget, _, gate, refreshing, reading in
            let events = EventLog(await widget.sessions.events())
            reading.cancel()
            await #expect(throws: CancellationError.self) { try await reading.value }
            #expect(await widget.sessions.currentSession != nil)
            #expect(try await FileStore(directory: directory).read(StoreKey.session) != nil)
            try await Task.sleep(for: .milliseconds(50))
            #expect(!events.all.contains { if case .signedOut = $0 { true } else { false } })
            gate.open()
            _ = try await refreshing.value
            #expect(try await widget.me().email == "ada@example.com")
        }
    }

    /// Without a lease, a refused token still ends the session here: the wait is for a refresh under way only.
    @Test func aTokenRefusedWithNoRefreshUnderWayStillSignsOut() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let app = shared(server, directory: directory, transport: URLSessionTransport())
                try await app.signInByEmail(on: server)
                let laptop = server.client()
                try await laptop.signInByEmail(on: server)
                #expect(try await laptop.sessions.signOut(all: true))
                await #expect(throws: ChatterError.signedOut(.revoked)) { try await app.me() }
                #expect(try await FileStore(directory: directory).read(StoreKey.session) == nil)
            }
        }
    }

    @Test func aLeaseHeldElsewhereIsWaitedForUntilItEndsOrIsGivenBack() async throws {
        try await LiveServer.run(accessLifetime: 300) { server in
            try await withTemporaryDirectory { directory in
                let counter = CountingTransport()
                let store = FileStore(directory: directory)
                let app = ChatterClient(
                    api: server.api(transport: counter), store: store, coordinator: FileLockCoordinator(path: directory + "/session.lock"),
                    now: server.clock.function)
                try await app.signInByEmail(on: server)
                server.clock.advance(by: 301)

                // Another process (suspended mid-refresh, say) holds a lease: the app waits rather than refresh too.
                try await RefreshLease(owner: UUID(), until: Date().addingTimeInterval(RefreshLease.lifetime)).write(to: store)
                let refreshing = Task { try await app.sessions.refresh() }
                try await Task.sleep(for: .milliseconds(150))
                #expect(counter.count(NativePath.refresh) == 0, "waiting for the holder's answer")
                // The holder gives up without storing anything (its request failed): the app refreshes itself.
                try await store.delete(StoreKey.refreshLease)
                _ = try await refreshing.value
                #expect(counter.count(NativePath.refresh) == 1)

                // A lease of a process that has ended (a `chatter` command interrupted mid-refresh) is no reason to wait.
                let ended = Process()
                ended.executableURL = URL(fileURLWithPath: "/bin/true")
                try ended.run()
                ended.waitUntilExit()
                server.clock.advance(by: 301)
                try await RefreshLease(owner: UUID(), until: Date().addingTimeInterval(RefreshLease.lifetime), process: ended.processIdentifier).write(
                    to: store)
                _ = try await app.sessions.refresh()
                #expect(counter.count(NativePath.refresh) == 2)

                // A lease claiming an hour (a clock set back since) is no reason to wait either.
                server.clock.advance(by: 301)
                try await RefreshLease(owner: UUID(), until: Date().addingTimeInterval(3600)).write(to: store)
                _ = try await app.sessions.refresh()
                #expect(counter.count(NativePath.refresh) == 3)

                // A lease past its end (its process was killed) is no reason to wait.
                server.clock.advance(by: 301)
                try await RefreshLease(owner: UUID(), until: Date().addingTimeInterval(-1)).write(to: store)
                _ = try await app.sessions.refresh()
                #expect(counter.count(NativePath.refresh) == 4)
                #expect(await RefreshLease.read(from: store) == nil, "the app's own lease given back")
            }
        }
    }
}
