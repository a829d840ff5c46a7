import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// What only a database shared by several instances can show: stores opened side by side on one schema,
/// as several chatterd processes would.
@Suite(.enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.unavailable), .tags(.bothDatabases))
struct PostgresStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Opens `count` stores on one new schema at once and runs `body` while all of them serve.
    func withInstances(_ count: Int, _ body: @Sendable ([PostgresStore]) async throws -> Void) async throws {
        try await PostgresTestDatabase.withSchema { location in
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for _ in 0..<count { group.addTask { try await PostgresStore.open(location, logger: PostgresTestDatabase.logger) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await withRunningAll(stores[...]) { try await body(stores) }
        }
    }

    private func withRunningAll(_ stores: ArraySlice<PostgresStore>, _ body: () async throws -> Void) async throws {
        guard let first = stores.first else { return try await body() }
        try await withRunning(first) { try await withRunningAll(stores.dropFirst(), body) }
    }

    @Test func instancesStartingAtOnceApplyEachMigrationOnce() async throws {
        try await withInstances(6) { stores in
            #expect(try await stores[0].count("schema_migrations") == PostgresMigrations.all.count)
            let versions = try await stores[0].rows("SELECT version FROM schema_migrations ORDER BY version").map { try $0.value("version", as: Int.self) }
            #expect(versions == Array(1...PostgresMigrations.all.count))
            let token = SessionToken.generate(signedWith: stores[0].tokenKey)
            #expect(stores.allSatisfy { $0.tokenKey.isTagged(token.secret) }, "one session token key for every instance")
        }
    }

    /// Every commit waits for the server's WAL flush, whatever the server's own default.
    @Test func commitsAreSynchronous() async throws {
        try await withInstances(1) { stores in
            let row = try #require(try await stores[0].rows("SHOW synchronous_commit").first)
            #expect(try row.value("synchronous_commit", as: String.self) == "on")
        }
    }

    /// A passkey sign-in's writes commit without waiting for the flush, and only they: the setting ends
    /// with their own transactions, so no pooled connection keeps it for the statements that follow.
    @Test func passkeySignInWritesLeaveEveryConnectionSynchronous() async throws {
        try await withInstances(1) { stores in
            let store = stores[0]
            let user = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "ada"))
            let passkey = PasskeyRecord(
                credentialID: [7, 7], userID: user.id, publicKey: [1], signCount: 0, aaguid: [UInt8](repeating: 0, count: 16), backupEligible: true,
                backedUp: true, transports: [], attestationFormat: "none", name: "Phone", createdAt: now)
            _ = try await store.insertPasskey(passkey)
            _ = try await store.passkeyUserHandle(userID: user.id, candidate: [1, 2, 3])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let hash = [UInt8(index), 9]
                        try await store.storePasskeyChallenge(
                            PasskeyChallenge(hash: hash, purpose: .signIn, userVerification: .required, expiresAt: now.addingTimeInterval(60)))
                        let lookup = try await store.takePasskeyChallenge(hash: hash, readingOwnerOf: [7, 7], at: now)
                        #expect(lookup.challenge != nil && lookup.owner != nil)
                        #expect(try await store.recordPasskeyUse(credentialID: [7, 7], signCount: 0, backedUp: true, at: now))
                    }
                }
                try await group.waitForAll()
            }
            let settings = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<40 {
                    group.addTask { try #require(try await store.rows("SHOW synchronous_commit").first).value("synchronous_commit", as: String.self) }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(settings == ["on"])
        }
    }

    @Test func aSessionMadeOnOneInstanceIsAcceptedByAnotherAtOnce() async throws {
        try await withInstances(2) { stores in
            let (a, b) = (stores[0], stores[1])
            let user = try await a.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "1"))
            // B looks the token up first while it is unknown: a remembered "no" must not outlive the session's creation.
            let access = SessionToken.generate()
            #expect(try await b.session(accessHash: access.hash, at: now) == .unknown)
            try await a.createSession(newSession(user, access: access))
            guard case .valid(let found) = try await b.session(accessHash: access.hash, at: now) else {
                Issue.record("another instance's new session was refused")
                return
            }
            #expect(found.user.id == user.id)
        }
    }

    @Test func aRevocationOnOneInstanceIsRefusedByAnotherWithinASecond() async throws {
        try await withInstances(2) { stores in
            let (a, b) = (stores[0], stores[1])
            let user = try await a.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "1"))
            let access = SessionToken.generate()
            let made = newSession(user, access: access)
            try await a.createSession(made)
            // B has it cached now.
            guard case .valid = try await b.session(accessHash: access.hash, at: now) else {
                Issue.record("session not found")
                return
            }
            #expect(try await a.revokeSession(id: made.id, userID: user.id))
            let revoked = ContinuousClock.now
            var refused: Duration?
            while ContinuousClock.now - revoked < .seconds(2) {
                if try await b.session(accessHash: access.hash, at: now) == .unknown {
                    refused = ContinuousClock.now - revoked
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let seen = try #require(refused, "another instance kept accepting a revoked session for 2 s")
            #expect(seen <= PostgresStore.sessionCacheAge + .milliseconds(100))
            #expect(seen < .seconds(1))
        }
    }

    @Test func aRotatedTokenReplayedAtAnotherInstanceIsReuse() async throws {
        try await withInstances(2) { stores in
            let (a, b) = (stores[0], stores[1])
            let user = try await a.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "1"))
            let access = SessionToken.generate()
            let refresh = SessionToken.generate()
            var made = newSession(user, access: access)
            made.refreshHash = refresh.hash
            try await a.createSession(made)
            func rotation(at offset: Double) -> Rotation {
                Rotation(
                    presentedHash: refresh.hash, sessionID: made.id, newAccessHash: SessionToken.generate().hash, newRefreshHash: SessionToken.generate().hash,
                    accessLifetime: 900, idleLifetime: 30 * 86400, graceWindow: 30, retryBox: [1], now: now.addingTimeInterval(offset))
            }
            guard case .rotated = try await a.rotate(rotation(at: 1)) else {
                Issue.record("rotation failed")
                return
            }
            // Past the grace window, on the other instance.
            #expect(try await b.rotate(rotation(at: 120)) == .reused(sessionID: made.id, userID: user.id))
            #expect(try await a.sessionCount() == 0, "reuse ends the family on every instance")
        }
    }

    @Test func aPostOrADeletionOnOneInstanceShowsInAnothersTimelineAtOnce() async throws {
        try await withInstances(2) { stores in
            let (a, b) = (Timeline(store: stores[0]), Timeline(store: stores[1]))
            let user = try await stores[0].signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "1"))
            func names(_ timeline: Timeline) async throws -> [String] {
                let rows = try JSONDecoder().decode([[String?]].self, from: Data((try await timeline.courseJSON()).readableBytesView))
                return rows.compactMap { $0[1] }
            }
            func newest(_ timeline: Timeline) async throws -> Int {
                try JSONDecoder().decode(ChattPage.self, from: Data((try await timeline.pageJSON(before: nil, limit: Timeline.defaultPage)).readableBytesView))
                    .chatts.count
            }
            // What the timeline page lists (kept, like the two answers above).
            func listed(_ timeline: Timeline) async throws -> [String] {
                try await timeline.chatts(before: nil, limit: Timeline.defaultPage).map(\.message)
            }
            #expect(try await names(b).isEmpty)
            #expect(try await newest(b) == 0)
            #expect(try await listed(b).isEmpty)
            for n in 1...3 {
                try await a.post(try Timeline.Draft(message: "post \(n)"), by: user)
                #expect(try await names(b) == (1...n).map { "post \($0)" }, "instance B's cached timeline missed A's post")
                #expect(try await newest(b) == n)
                #expect(try await listed(b) == (1...n).reversed().map { "post \($0)" }, "instance B's page missed A's post")
            }
            try await stores[0].deleteUser(id: user.id)
            #expect(try await names(b).isEmpty, "instance B still shows the deleted account's posts")
            #expect(try await newest(b) == 0)
            #expect(try await listed(b).isEmpty)
        }
    }

    func newSession(_ user: User, access: SessionToken) -> NewSession {
        NewSession(
            userID: user.id, method: "google", accessHash: access.hash, accessExpiresAt: now.addingTimeInterval(900), refreshHash: nil,
            createdAt: now, absoluteExpiresAt: now.addingTimeInterval(90 * 86400), client: ClientInfo())
    }
}
