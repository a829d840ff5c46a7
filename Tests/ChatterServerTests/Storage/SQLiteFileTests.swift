import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// What only a file-backed database shows: persistence, WAL mode, versioned migrations.
@Suite struct SQLiteFileTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func everythingSurvivesAReopen() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            let token = SessionToken.generate()
            var store = try await SQLiteStore.open(path: path)
            let user = try await store.signIn(IdentityKey(issuer: "i", subject: "s"), "Ada")
            try await store.createSession(
                NewSession(
                    userID: user.id, method: "google", accessHash: token.hash, accessExpiresAt: now.addingTimeInterval(3600), refreshHash: nil,
                    createdAt: now, absoluteExpiresAt: now.addingTimeInterval(3600), client: ClientInfo()))
            let chatt = Chatt(name: "Ada", message: "hello", time: now, userID: user.id)
            try await store.addChatt(chatt)
            try await store.close()

            store = try await SQLiteStore.open(path: path)
            #expect(try await store.user(id: user.id) == user)
            guard case .valid(let session) = try await store.session(accessHash: token.hash, at: now) else {
                Issue.record("session lost across a reopen")
                return
            }
            #expect(session.user == user)
            #expect(try await store.allChatts() == [chatt])
            try await store.close()
        }
    }

    /// SQLite commits with synchronous=NORMAL (safe from a crash of chatterd); what must also survive a
    /// power loss is fsynced before the call returns.
    @Test func endingSessionsAndChangingCredentialsAreFsyncedAndNothingElseIs() async throws {
        try await withTemporaryDirectory { dir in
            let store = try await SQLiteStore.open(path: dir + "/chatterd.sqlite")
            func syncs(_ write: () async throws -> Void) async throws -> Int {
                let before = store.walSync.syncs
                try await write()
                return store.walSync.syncs - before
            }
            func started(_ user: User, refresh: SessionToken? = nil) async throws -> NewSession {
                let new = NewSession(
                    userID: user.id, method: "google", accessHash: SessionToken.generate().hash, accessExpiresAt: now.addingTimeInterval(900),
                    refreshHash: refresh?.hash, createdAt: now, absoluteExpiresAt: now.addingTimeInterval(86400), client: ClientInfo())
                try await store.createSession(new)
                return new
            }
            var user = User(id: UUID(), displayName: "")
            #expect(try await syncs { user = try await store.signIn(IdentityKey(issuer: "i", subject: "s"), "Ada") } == 0)
            #expect(try await syncs { _ = try await started(user) } == 0)
            #expect(try await syncs { try await store.addChatt(Chatt(name: "Ada", message: "hi", time: now, userID: user.id)) } == 0)
            #expect(try await syncs { _ = try await store.hit("k", window: 60, at: now) } == 0)

            let one = try await started(user)
            #expect(try await syncs { _ = try await store.revokeSession(id: one.id, userID: user.id) } == 1)
            _ = try await started(user)
            #expect(try await syncs { _ = try await store.revokeSessions(of: user.id, except: nil) } == 1)
            _ = try await started(user)
            #expect(try await syncs { _ = try await store.revokeSessions(of: user.id, method: "google") } == 1)
            #expect(try await syncs { try await store.setPasswordHash("hash", userID: user.id, at: now) } == 1)

            let refresh = SessionToken.generate()
            let refreshable = try await started(user, refresh: refresh)
            func rotation(at offset: Double) -> Rotation {
                Rotation(
                    presentedHash: refresh.hash, sessionID: refreshable.id, newAccessHash: SessionToken.generate().hash,
                    newRefreshHash: SessionToken.generate().hash,
                    accessLifetime: 900, idleLifetime: 86400, graceWindow: 10, retryBox: [1], now: now.addingTimeInterval(offset))
            }
            #expect(try await syncs { _ = try await store.rotate(rotation(at: 1)) } == 0)
            #expect(try await syncs { _ = try await store.rotate(rotation(at: 60)) } == 1, "reuse deletes the family")
            #expect(try await syncs { try await store.deleteUser(id: user.id) } == 1)
            try await store.close()
        }
    }

    @Test func opensInWALModeAndMigratesOnce() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            try await SQLiteStore.open(path: path).close()
            try await SQLiteStore.open(path: path).close()  // re-running the migrations is a no-op
            let raw = try SQLiteConnection.open(path: path)
            #expect(try await raw.query("PRAGMA journal_mode").first?.column("journal_mode")?.string == "wal")
            #expect(try await raw.query("PRAGMA user_version").first?.column("user_version")?.integer == SQLiteMigrations.all.count)
            try await raw.close()
        }
    }

    /// A session refreshed before migration 3 keeps its chain: after the upgrade a rotation still retires
    /// the token it replaces (now by the trigger), so presenting that token later is caught as reuse.
    @Test func sessionsFromBeforeTheRotationTriggerStillCatchReuse() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/old.sqlite"
            let db = try SQLiteConnection.open(path: path)
            for sql in SQLiteMigrations.all[0] + SQLiteMigrations.all[1] { _ = try await db.query(sql) }
            _ = try await db.query("PRAGMA user_version = 2")
            let userID = UUID()
            let sessionID = UUID()
            let refresh = SessionToken.generate()
            _ = try await db.query("INSERT INTO users (id, display_name, created_at) VALUES (?, 'Ada', 0)", [.uuid(userID)])
            _ = try await db.query(
                """
                INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, refresh_hash, created_at, last_used_at, absolute_expires_at)
                VALUES (?, ?, 'google', ?, ?, ?, ?, ?, ?)
                """,
                [
                    .uuid(sessionID), .uuid(userID), .bytes(SessionToken.generate().hash), .time(now), .bytes(refresh.hash), .time(now), .time(now),
                    .time(now.addingTimeInterval(86400)),
                ])
            try await db.close()

            let store = try await SQLiteStore.open(path: path)
            // The token names no session: the session is the one it is the current token of, while it is.
            #expect(try await store.sessionID(unnamedRefreshHash: refresh.hash) == sessionID)
            func rotation(at offset: Double) async throws -> Rotation {
                Rotation(
                    presentedHash: refresh.hash, sessionID: try await store.sessionID(unnamedRefreshHash: refresh.hash),
                    newAccessHash: SessionToken.generate().hash, newRefreshHash: SessionToken.generate().hash,
                    accessLifetime: 900, idleLifetime: 86400, graceWindow: 10, retryBox: [1], now: now.addingTimeInterval(offset))
            }
            guard case .rotated(let rotated) = try await store.rotate(rotation(at: 1)) else {
                Issue.record("the old session did not rotate")
                return
            }
            #expect(rotated.sessionID == sessionID)
            #expect(try await store.sessionID(unnamedRefreshHash: refresh.hash) == nil, "rotated, the session no longer holds it")
            #expect(try await store.rotate(rotation(at: 60)) == .reused(sessionID: sessionID, userID: userID))
            #expect(try await store.sessionCount() == 0)
            try await store.close()
        }
    }

    /// Migration 5 rebuilt the retired-token table: a token retired before it is still caught as reuse.
    @Test func tokensRetiredBeforeMigration5StillCatchReuse() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/old.sqlite"
            let db = try SQLiteConnection.open(path: path)
            for sql in SQLiteMigrations.all[0..<4].joined() { _ = try await db.query(sql) }
            _ = try await db.query("PRAGMA user_version = 4")
            let userID = UUID()
            let sessionID = UUID()
            let retired = SessionToken.generate()
            let current = SessionToken.generate()
            _ = try await db.query("INSERT INTO users (id, display_name, created_at) VALUES (?, 'Ada', 0)", [.uuid(userID)])
            _ = try await db.query(
                """
                INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, refresh_hash, created_at, last_used_at, absolute_expires_at)
                VALUES (?, ?, 'google', ?, ?, ?, ?, ?, ?)
                """,
                [
                    .uuid(sessionID), .uuid(userID), .bytes(SessionToken.generate().hash), .time(now), .bytes(retired.hash), .time(now), .time(now),
                    .time(now.addingTimeInterval(86400)),
                ])
            // A rotation under schema 4: its trigger keeps the replaced token.
            _ = try await db.query(
                "UPDATE sessions SET refresh_hash = ?, rotated_at = ?, last_used_at = ? WHERE id = ?",
                [.bytes(current.hash), .time(now), .time(now), .uuid(sessionID)])
            try await db.close()

            let store = try await SQLiteStore.open(path: path)
            let reuse = Rotation(
                presentedHash: retired.hash, newAccessHash: SessionToken.generate().hash, newRefreshHash: SessionToken.generate().hash,
                accessLifetime: 900, idleLifetime: 86400, graceWindow: 10, retryBox: [1], now: now.addingTimeInterval(60))
            #expect(try await store.rotate(reuse) == .reused(sessionID: sessionID, userID: userID))
            #expect(try await store.sessionCount() == 0)
            try await store.close()
        }
    }

    /// Retired tokens no longer go with their session (no index by session to cascade through): the purge
    /// removes those of sessions that have ended once they are older than a session lives, and keeps those
    /// of a session still alive.
    @Test func purgeForgetsRetiredTokensOfEndedSessionsOnly() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            let store = try await SQLiteStore.open(path: path)
            let user = try await store.signIn(IdentityKey(issuer: "i", subject: "s"), "Ada")
            var retired: [SessionToken] = []
            var sessionIDs: [UUID] = []
            for _ in 0..<2 {
                let first = SessionToken.generate()
                let session = NewSession(
                    userID: user.id, method: "google", accessHash: SessionToken.generate().hash, accessExpiresAt: now.addingTimeInterval(900),
                    refreshHash: first.hash, createdAt: now, absoluteExpiresAt: now.addingTimeInterval(90 * 86400), client: ClientInfo())
                try await store.createSession(session)
                // As a session from before refresh tokens named theirs (migration 7): only such tokens are kept.
                _ = try await store.write("UPDATE sessions SET refresh_unnamed = 1 WHERE id = ?", [.uuid(session.id)])
                let rotation = Rotation(
                    presentedHash: first.hash, sessionID: try await store.sessionID(unnamedRefreshHash: first.hash),
                    newAccessHash: SessionToken.generate().hash, newRefreshHash: SessionToken.generate().hash,
                    accessLifetime: 900, idleLifetime: 30 * 86400, graceWindow: 10, retryBox: [1], now: now.addingTimeInterval(1))
                guard case .rotated = try await store.rotate(rotation) else {
                    Issue.record("not rotated")
                    return
                }
                retired.append(first)
                sessionIDs.append(session.id)
            }
            #expect(try await store.revokeSession(id: sessionIDs[0], userID: user.id))
            let raw = try SQLiteConnection.open(path: path)
            func retiredCount() async throws -> Int? {
                try await raw.query("SELECT count(*) AS n FROM retired_refresh_tokens").first?.column("n")?.integer
            }
            #expect(try await retiredCount() == 2)
            var lifetimes = SessionService.Lifetimes()
            lifetimes.absolute = 3600
            // Within a lifetime of their retirement both are kept; after it, only the live session's.
            _ = try await store.purgeExpiredSessions(at: now.addingTimeInterval(1800), lifetimes: lifetimes)
            #expect(try await retiredCount() == 2)
            _ = try await store.purgeExpiredSessions(at: now.addingTimeInterval(7200), lifetimes: lifetimes)
            #expect(try await retiredCount() == 1)
            #expect(try await store.sessionCount() == 1)
            let reuse = Rotation(
                presentedHash: retired[1].hash, newAccessHash: SessionToken.generate().hash, newRefreshHash: SessionToken.generate().hash,
                accessLifetime: 900, idleLifetime: 30 * 86400, graceWindow: 10, retryBox: [1], now: now.addingTimeInterval(7200))
            #expect(try await store.rotate(reuse) == .reused(sessionID: sessionIDs[1], userID: user.id))
            try await raw.close()
            try await store.close()
        }
    }

    /// A row another program damaged (SQLite keeps any text in a TEXT column). sqlite-nio steps the statement
    /// to its end whatever the callback does, so every row that reads is handed over and the damage is thrown
    /// once the statement is done: an error, not a silently shorter list and not a trap.
    @Test func aChattThatDoesNotReadIsThrownOnceTheOtherRowsAreHandedOver() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            let store = try await SQLiteStore.open(path: path)
            let chatts = (0..<3).map { Chatt(name: "Ada", message: "m\($0)", time: now.addingTimeInterval(Double($0)), userID: nil) }
            for chatt in chatts { try await store.addChatt(chatt) }
            let raw = try SQLiteConnection.open(path: path)
            _ = try await raw.query("UPDATE chatts SET id = 'not-a-uuid' WHERE id = ?", [.text(chatts[1].id.text)])
            try await raw.close()

            let handed = Collected<Chatt>()
            await #expect(throws: StoreError.corruptRow("id is not a UUID")) { try await store.forEachChatt { handed.append($0) } }
            #expect(handed.values == [chatts[0], chatts[2]], "the rows that read were handed over, in order")
            await #expect(throws: StoreError.corruptRow("id is not a UUID")) { try await store.allChatts() }
            try await store.close()
        }
    }

    @Test func newerSchemaIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            try await SQLiteStore.open(path: path).close()
            let raw = try SQLiteConnection.open(path: path)
            _ = try await raw.query("PRAGMA user_version = 99")
            try await raw.close()
            await #expect(throws: StoreError.newerSchema(found: 99, supported: SQLiteMigrations.all.count)) {
                try await SQLiteStore.open(path: path)
            }
        }
    }

    @Test func commitsLeaveTheWALToTheCheckpointer() async throws {
        try await withTemporaryDirectory { dir in
            // An hour between background checkpoints: within this test only commits could checkpoint.
            let store = try await SQLiteStore.open(path: dir + "/chatterd.sqlite", checkpointInterval: .seconds(3600))
            let message = String(repeating: "x", count: 1000)
            // ~6 MB of chatts, past SQLite's default automatic checkpoint at 1,000 pages (4 MB).
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<6000 {
                    group.addTask { try await store.addChatt(Chatt(name: "n\(i)", message: message, time: now, userID: nil)) }
                }
                try await group.waitForAll()
            }
            let progress = try await store.checkpointer.checkpoint()
            #expect(progress.walFrames > 1000, "a commit checkpointed and restarted the WAL")
            #expect(progress.checkpointed == progress.walFrames)
            #expect(try await store.chattCount() == 6000)
            try await store.close()
        }
    }

    /// Passive checkpoints alone never catch up while commits keep coming, so the WAL would never start
    /// over; past its limit the checkpointer pauses writes and makes it.
    @Test func aLongWALStartsOverWhileWritesAndReadsGoOn() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            // An hour between background checkpoints, so only the calls below checkpoint.
            let store = try await SQLiteStore.open(path: path, checkpointInterval: .seconds(3600), walRestartFrames: 1024)
            let message = String(repeating: "x", count: 1000)
            let reading = Task { while !Task.isCancelled { _ = try? await store.chattCount() } }
            let writing = Task {
                var n = 0
                while !Task.isCancelled {
                    try? await store.addChatt(Chatt(name: "w\(n)", message: message, time: now, userID: nil))
                    n += 1
                }
            }
            // ~6 MB more: past the 1,024 frames (4 MiB) allowed here.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<6000 {
                    group.addTask { try await store.addChatt(Chatt(name: "a\(i)", message: message, time: now, userID: nil)) }
                }
                try await group.waitForAll()
            }
            let walBytes = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            #expect(walBytes > 1024 * 4096, "the WAL never reached the limit, so this test shows nothing")
            _ = try await store.checkpointer.checkpoint()
            writing.cancel()
            await writing.value
            reading.cancel()
            await reading.value
            for i in 0..<10 { try await store.addChatt(Chatt(name: "b\(i)", message: message, time: now, userID: nil)) }
            let later = try await store.checkpointer.checkpoint()
            // (A WAL that starts over keeps its file but is written from the start again.)
            #expect(later.walFrames < 1024, "the WAL kept growing instead of starting over")
            try await store.close()
        }
    }
}
