import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Session tokens carry a tag under the database's key, so a token chatterd never issued is refused
/// before any lookup.
@Suite(.tags(.bothDatabases)) struct SessionTokenTests {
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

    @Test func aRefreshTokenNamesItsSessionUnderTheTag() {
        let key = SessionTokenKey(key: SessionTokenKey.newKey(), untaggedUntil: .distantPast)
        let id = UUID()
        let token = SessionToken.generate(naming: id, as: .refresh, signedWith: key)
        #expect(token.secret.count == 64)
        #expect(key.session(namedBy: token.secret, as: .refresh) == id)
        #expect(key.session(namedBy: token.secret, as: .access) == nil, "the tag covers the kind")
        #expect(
            key.session(namedBy: SessionToken.generate(naming: id, as: .access, signedWith: key).secret, as: .refresh) == nil,
            "an access token is no refresh token")
        #expect(SessionToken.generate(naming: id, as: .refresh, signedWith: key).secret != token.secret, "each token has its own random bits")
        #expect(
            SessionTokenKey(key: SessionTokenKey.newKey(), untaggedUntil: .distantPast).session(namedBy: token.secret, as: .refresh) == nil,
            "another database's key")
        #expect(!key.isTagged(token.secret), "not an unnamed token")
        #expect(key.session(namedBy: SessionToken.generate(signedWith: key).secret, as: .refresh) == nil, "an unnamed token names no session")
        for position in [0, 21, 22, 42, 63] {
            var changed = Array(token.secret)
            changed[position] = changed[position] == "A" ? "B" : "A"
            #expect(key.session(namedBy: String(changed), as: .refresh) == nil, "one character changed at \(position)")
        }
        for garbage in ["", String(token.secret.dropLast()), token.secret + "A", String(repeating: "!", count: 64), "é" + token.secret.dropFirst(2)] {
            #expect(key.session(namedBy: garbage, as: .refresh) == nil)
        }
    }

    /// The tag covers the session's id: a holder of one session's refresh token cannot make it name another
    /// session, which would otherwise be taken for a reused token of that session and end it.
    @Test(arguments: StoreBackend.available)
    func aRefreshTokenCannotBeMadeToNameAnotherSession(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(IdentityClaims(key: .email("ada@example.com")), fallbackName: "Ada", at: now, mayCreate: true)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { [now] in now })
            let profile = UserProfile(id: user.id.uuidString, displayName: "Ada", email: nil, emailVerified: false, name: nil, methods: [])
            let mine = try await sessions.start(user: user, method: .email, client: ClientInfo(), profile: profile)
            let victim = try await sessions.start(user: user, method: .email, client: ClientInfo(), profile: profile)
            // 48 bytes are 64 characters without padding, so base64url is base64 with two letters swapped.
            let decode = { (token: String) in
                Array(Data(base64Encoded: token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")) ?? Data())
            }
            let forged = (Data(decode(victim.refreshToken).prefix(16) + decode(mine.refreshToken).dropFirst(16)).base64EncodedString())
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(forged.count == 64 && forged != victim.refreshToken)
            guard case .invalid = try await sessions.refresh(forged, profile: { _, _ in profile }) else {
                Issue.record("a token naming another session was accepted")
                return
            }
            for (name, started) in [("mine", mine), ("victim", victim)] {
                guard case .valid = try await sessions.authenticate(started.accessToken) else {
                    Issue.record("\(name): the session was ended")
                    continue
                }
                guard case .refreshed(let next) = try await sessions.refresh(started.refreshToken, profile: { _, _ in profile }) else {
                    Issue.record("\(name): its own refresh token no longer rotates")
                    continue
                }
                #expect(next.sessionID == started.sessionID && store.tokenKey.session(namedBy: next.refreshToken, as: .refresh)?.text == started.sessionID)
            }
        }
    }

    /// A native session's access token names it too; chatterIDs do not. A named access token is the
    /// session's current one or nothing: swapping in another session's id, or presenting it after a
    /// rotation, finds no session, and changes none.
    @Test(arguments: StoreBackend.available)
    func accessTokensNameTheirNativeSession(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(IdentityClaims(key: .email("ada@example.com")), fallbackName: "Ada", at: now, mayCreate: true)
            let clock = TestClock(now)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { clock.now })
            let profile = UserProfile(id: user.id.uuidString, displayName: "Ada", email: nil, emailVerified: false, name: nil, methods: [])
            let mine = try await sessions.start(user: user, method: .email, client: ClientInfo(), profile: profile)
            let other = try await sessions.start(user: user, method: .email, client: ClientInfo(), profile: profile)
            #expect(mine.accessToken.count == 64 && store.tokenKey.session(namedBy: mine.accessToken, as: .access)?.text == mine.sessionID)
            let chatterID = try await sessions.startUnrefreshable(user: user, method: .google, lifetime: 3600, client: ClientInfo())
            #expect(chatterID.secret.count == 43)
            guard case .valid = try await sessions.authenticate(chatterID.secret) else {
                Issue.record("an unnamed chatterID was refused")
                return
            }
            guard case .valid(let found) = try await sessions.authenticate(mine.accessToken) else {
                Issue.record("a named access token was refused")
                return
            }
            #expect(found.sessionID.text == mine.sessionID)
            let decode = { (token: String) in
                Array(Data(base64Encoded: token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")) ?? Data())
            }
            let forged = (Data(decode(other.accessToken).prefix(16) + decode(mine.accessToken).dropFirst(16)).base64EncodedString())
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(try await sessions.authenticate(forged) == .unknown)
            clock.advance(by: 1)
            guard case .refreshed(let next) = try await sessions.refresh(mine.refreshToken, profile: { _, _ in profile }) else {
                Issue.record("the session did not refresh")
                return
            }
            #expect(store.tokenKey.session(namedBy: next.accessToken, as: .access)?.text == mine.sessionID)
            #expect(try await sessions.authenticate(mine.accessToken) == .unknown, "the rotated-away access token")
            for token in [next.accessToken, other.accessToken] {
                guard case .valid = try await sessions.authenticate(token) else {
                    Issue.record("a current access token was refused")
                    continue
                }
            }
        }
    }

    /// A refresh token from before tokens named their session still rotates, once found by its hash, into
    /// one that does; presented again later it is reuse, and the session ends.
    @Test func anUnnamedRefreshTokenRotatesIntoANamedOne() async throws {
        try await withTemporaryDirectory { dir in
            let store = try await SQLiteStore.open(path: dir + "/chatterd.sqlite")
            let user = try await store.signIn(IdentityClaims(key: .email("ada@example.com")), fallbackName: "Ada", at: now, mayCreate: true)
            let clock = TestClock(now)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { clock.now })
            let unnamed = SessionToken.generate(signedWith: store.tokenKey)
            let id = UUID()
            try await store.createSession(
                NewSession(
                    id: id, userID: user.id, method: "email", accessHash: SessionToken.generate().hash, accessExpiresAt: now.addingTimeInterval(900),
                    refreshHash: unnamed.hash, createdAt: now, absoluteExpiresAt: now.addingTimeInterval(86400), client: ClientInfo()))
            // As migration 7 leaves a session that had a refresh token.
            _ = try await store.write("UPDATE sessions SET refresh_unnamed = 1 WHERE id = ?", [.uuid(id)])
            let profile = UserProfile(id: user.id.uuidString, displayName: "Ada", email: nil, emailVerified: false, name: nil, methods: [])
            guard case .refreshed(let rotated) = try await sessions.refresh(unnamed.secret, profile: { _, _ in profile }) else {
                Issue.record("the unnamed token did not rotate")
                return
            }
            #expect(rotated.sessionID == id.text && store.tokenKey.session(namedBy: rotated.refreshToken, as: .refresh) == id)
            clock.advance(by: 60)
            guard case .reused = try await sessions.refresh(unnamed.secret, profile: { _, _ in profile }) else {
                Issue.record("the unnamed token's reuse was not caught")
                return
            }
            #expect(try await store.sessionCount() == 0)
            try await store.close()
        }
    }

    @Test(arguments: StoreBackend.available)
    func anUntaggedTokenIsRefusedWithoutALookup(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(IdentityClaims(key: .email("ada@example.com")), fallbackName: "Ada", at: now, mayCreate: true)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { [now] in now })
            // Sessions whose tokens were never tagged: the store finds them, the service does not ask it.
            let access = SessionToken.generate()
            let refresh = SessionToken.generate()
            let id = UUID()
            try await store.createSession(
                NewSession(
                    id: id, userID: user.id, method: "email", accessHash: access.hash, accessExpiresAt: now.addingTimeInterval(900), refreshHash: refresh.hash,
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
                presentedHash: refresh.hash, sessionID: id, newAccessHash: SessionToken.generate().hash, newRefreshHash: SessionToken.generate().hash,
                accessLifetime: 900, idleLifetime: 86400, graceWindow: 10, retryBox: [1], now: now.addingTimeInterval(1))
            guard case .rotated = try await store.rotate(rotation) else {
                Issue.record("the refused refresh changed the session")
                return
            }
            // Tokens the service issues are tagged, and work.
            let started = try await sessions.start(
                user: user, method: .email, client: ClientInfo(),
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
            let db = try SQLiteConnection.open(path: path)
            for sql in SQLiteMigrations.all[0..<3].joined() { _ = try await db.query(sql) }
            _ = try await db.query("PRAGMA user_version = 3")
            let userID = UUID()
            let access = SessionToken.generate()
            let lastExpiry = now.addingTimeInterval(3600)
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
        let presented = SessionToken.generate().secret
        let other = SessionToken.generate().secret
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
