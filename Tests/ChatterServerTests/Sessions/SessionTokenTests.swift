import ChatterTestSupport
import ChatterWire
import Foundation
import SQLiteNIO
import Testing

@testable import ChatterServer

/// Session tokens carry a tag under the database's key, so a token chatterd never issued is refused
/// before any lookup.
@Suite struct SessionTokenTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aTaggedTokenIsRecognizedAndNothingElseIs() {
        let key = SessionTokenKey(key: SessionTokenKey.newKey(), untaggedUntil: .distantPast)
        let token = SessionToken.generate(signedWith: key)
        #expect(token.secret.count == 43)
        #expect(key.isTagged(token.secret))
        #expect(!SessionTokenKey(key: SessionTokenKey.newKey(), untaggedUntil: .distantPast).isTagged(token.secret), "another database's key")
        #expect(!key.isTagged(SessionToken.generate().secret), "an untagged random token")
        for position in [0, 20, 42] {
            var changed = Array(token.secret)
            changed[position] = changed[position] == "A" ? "B" : "A"
            #expect(!key.isTagged(String(changed)), "one character changed at \(position)")
        }
        for garbage in ["", "x", String(token.secret.dropLast()), token.secret + "A", String(repeating: "!", count: 43), "é" + token.secret.dropFirst(2)] {
            #expect(!key.isTagged(garbage))
        }
    }

    @Test(arguments: StoreBackend.available)
    func anUntaggedTokenIsRefusedWithoutALookup(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(IdentityClaims(key: .email("ada@example.com")), fallbackName: "Ada", at: now)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { [now] in now })
            // Sessions whose tokens were never tagged: the store finds them, the service does not ask it.
            let access = SessionToken.generate(), refresh = SessionToken.generate()
            try await store.createSession(NewSession(
                userID: user.id, method: "email", accessHash: access.hash, accessExpiresAt: now.addingTimeInterval(900), refreshHash: refresh.hash,
                createdAt: now, absoluteExpiresAt: now.addingTimeInterval(86400), client: ClientInfo()))
            guard case .valid = try await store.session(accessHash: access.hash, at: now) else {
                Issue.record("the store should find the session")
                return
            }
            #expect(try await sessions.authenticate(access.secret) == .unknown)
            guard case .invalid = try await sessions.refresh(refresh.secret, profile: { _, _ in throw CancellationError() }) else {
                Issue.record("an untagged refresh token was accepted")
                return
            }
            // The refused refresh did not reach the store: the token is still the session's current one.
            let rotation = Rotation(
                presentedHash: refresh.hash, newAccessHash: SessionToken.generate().hash, newRefreshHash: SessionToken.generate().hash,
                accessLifetime: 900, idleLifetime: 86400, graceWindow: 10, retryBox: [1], now: now.addingTimeInterval(1))
            guard case .rotated = try await store.rotate(rotation) else {
                Issue.record("the refused refresh changed the session")
                return
            }
            // Tokens the service issues are tagged, and work.
            let started = try await sessions.start(
                user: user, method: "email", client: ClientInfo(),
                profile: UserProfile(id: user.id.uuidString, displayName: "Ada", email: nil, emailVerified: false, name: nil, methods: []))
            guard case .valid = try await sessions.authenticate(started.accessToken) else {
                Issue.record("a tagged token was refused")
                return
            }
        }
    }

    /// A database with sessions from before tokens were tagged: their untagged tokens keep working until
    /// the last of those sessions would have expired anyway, then untagged tokens are refused unread.
    @Test func sessionsFromBeforeTaggingWorkUntilTheLastExpires() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/old.sqlite"
            let db = try await SQLiteConnection.open(storage: .file(path: path))
            for sql in SQLiteMigrations.all[0..<3].joined() { _ = try await db.query(sql) }
            _ = try await db.query("PRAGMA user_version = 3")
            let userID = UUID(), access = SessionToken.generate(), lastExpiry = now.addingTimeInterval(3600)
            _ = try await db.query("INSERT INTO users (id, display_name, created_at) VALUES (?, 'Ada', 0)", [.uuid(userID)])
            for (hash, expiry) in [(access.hash, lastExpiry), (SessionToken.generate().hash, now.addingTimeInterval(60))] {
                _ = try await db.query(
                    """
                    INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, created_at, last_used_at, absolute_expires_at)
                    VALUES (?, ?, 'google', ?, ?, ?, ?, ?)
                    """, [.uuid(UUID()), .uuid(userID), .bytes(hash), .time(expiry), .time(now), .time(now), .time(expiry)])
            }
            try await db.close()

            let store = try await SQLiteStore.open(path: path)
            #expect(store.tokenKey.untaggedUntil == lastExpiry)
            let clock = TestClock(now)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { clock.now })
            guard case .valid = try await sessions.authenticate(access.secret) else {
                Issue.record("a session from before tagging was refused")
                return
            }
            clock.advance(by: 3600)
            #expect(!store.tokenKey.mayHaveIssued(access.secret, at: clock.now))
            try await store.close()

            // The key is made once: reopening keeps it, and a new database never accepts untagged tokens.
            let again = try await SQLiteStore.open(path: path)
            #expect(again.tokenKey.untaggedUntil == lastExpiry)
            #expect(again.tokenKey.isTagged(SessionToken.generate(signedWith: store.tokenKey).secret))
            try await again.close()
            let fresh = try await SQLiteStore.open(path: dir + "/new.sqlite")
            #expect(fresh.tokenKey.untaggedUntil == Date(timeIntervalSince1970: 0))
            try await fresh.close()
        }
    }
}

/// A rotation's answer is kept sealed for the grace retry: only the token that was presented opens it.
@Suite struct RetryPairTests {
    @Test func onlyThePresentedTokenOpensTheSealedPair() throws {
        let presented = SessionToken.generate().secret, other = SessionToken.generate().secret
        let pair = RetryPair(accessToken: SessionToken.generate().secret, refreshToken: SessionToken.generate().secret)
        let box = try RetryPair.seal(pair, with: presented)
        #expect(RetryPair.open(box, with: presented) == pair)
        #expect(RetryPair.open(box, with: other) == nil)
        var tampered = box
        tampered[tampered.count / 2] ^= 1
        #expect(RetryPair.open(tampered, with: presented) == nil)
        #expect(RetryPair.open(Array(box.prefix(20)), with: presented) == nil)
        #expect(try RetryPair.seal(pair, with: presented) != box, "each seal takes a fresh nonce")
    }
}
