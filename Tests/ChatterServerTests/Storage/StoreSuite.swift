import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The storage behaviour every backend must show. Each test runs against every implementation that can
/// run here: SQLite always, PostgreSQL when a test server is named (see `PostgresTestDatabase`).
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    /// `CHATTER_TEST_BACKENDS` (`postgres`, `sqlite`, or both comma-separated) narrows it: CI's services pass
    /// runs the PostgreSQL cases alone, since the newcomer's pass before it ran SQLite's.
    static let available: [StoreBackend] = {
        let here: [StoreBackend] = PostgresTestDatabase.url == nil ? [.sqlite] : [.sqlite, .postgres]
        guard let names = ProcessInfo.processInfo.environment["CHATTER_TEST_BACKENDS"] else { return here }
        let chosen = names.split(separator: ",").compactMap { StoreBackend(rawValue: String($0)) }
        return here.filter(chosen.contains)
    }()

    var testDescription: String { rawValue }

    /// A new, empty database for one test (SQLite's file in `directory`), removed afterwards.
    func withLocation<T>(in directory: String, _ body: (DatabaseLocation) async throws -> T) async throws -> T {
        switch self {
        case .sqlite: try await body(.sqlite(path: directory + "/test.sqlite"))
        case .postgres: try await PostgresTestDatabase.withSchema { try await body(.postgres($0)) }
        }
    }

    func withStore<T: Sendable>(_ body: (any ChatterStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { dir in
            try await withLocation(in: dir) { location in
                let store = try await location.open(logger: PostgresTestDatabase.logger)
                return try await withRunning(store) { try await body(store) }
            }
        }
    }
}

extension ChatterStore {
    func signIn(_ key: IdentityKey, _ name: String? = "Ada", email: String? = nil, verified: Bool = false, parts: NameParts? = nil) async throws -> User {
        try await signIn(
            IdentityClaims(key: key, displayName: name, name: parts, email: email, emailVerified: verified), fallbackName: "Profile NA",
            at: Date(timeIntervalSince1970: 1_800_000_000), mayCreate: true)
    }
}

@Suite(.tags(.bothDatabases)) struct StoreSuite {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let ada = IdentityKey(issuer: "https://accounts.google.com", subject: "1")
    let appleAda = IdentityKey(issuer: "https://appleid.apple.com", subject: "001.abc")

    func session(for user: User, refreshable: Bool = true, lifetime: Double = 900) -> (NewSession, access: SessionToken, refresh: SessionToken) {
        let access = SessionToken.generate()
        let refresh = SessionToken.generate()
        let new = NewSession(
            userID: user.id, method: "google", accessHash: access.hash, accessExpiresAt: now.addingTimeInterval(lifetime),
            refreshHash: refreshable ? refresh.hash : nil, createdAt: now, absoluteExpiresAt: now.addingTimeInterval(90 * 86400),
            client: ClientInfo(ip: "127.0.0.1", userAgent: "test"))
        return (new, access, refresh)
    }

    /// `session`: the one the presented token names (the store trusts it: only a tagged token can name one).
    func rotation(_ presented: SessionToken, of session: UUID, at offset: Double, grace: Double = 30) -> (Rotation, access: SessionToken, refresh: SessionToken)
    {
        let access = SessionToken.generate()
        let refresh = SessionToken.generate()
        return (
            Rotation(
                presentedHash: presented.hash, sessionID: session, newAccessHash: access.hash, newRefreshHash: refresh.hash, accessLifetime: 900,
                idleLifetime: 30 * 86400, graceWindow: grace, retryBox: [1, 2, 3], now: now.addingTimeInterval(offset)), access, refresh
        )
    }

    func lifetimes(idle: Double) -> SessionService.Lifetimes {
        var lifetimes = SessionService.Lifetimes()
        lifetimes.idle = idle
        return lifetimes
    }

    @Test(arguments: StoreBackend.available)
    func anOpenedStoreHasEveryMigrationThisChatterdKnows(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let version = try await store.schemaVersion()
            #expect(version.applied == version.known && version.known >= 3, "\(version)")
        }
    }

    @Test(arguments: StoreBackend.available)
    func aChattWhoseIdIsStoredIsLeftOutAtOnceOrLater(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let author = try await store.signIn(ada)
            let id = UUID()
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            try await store.addChatt(Chatt(id: id, name: "Ada", message: "first", time: now, userID: author.id))
            try await store.addChatt(Chatt(id: id, name: "Ada", message: "again", time: now, userID: author.id))
            // Many at once share batches: a repeat in the same statement as its first is left out too.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await store.addChatt(Chatt(id: index % 2 == 0 ? id : UUID(), name: "Ada", message: "m\(index)", time: now, userID: author.id))
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.chattCount() == 21, "the first and the 20 new ids")
            #expect(try await store.allChatts().filter { $0.id == id }.map(\.message) == ["first"], "the stored chatt is unchanged")
        }
    }

    @Test(arguments: StoreBackend.available)
    func signInCreatesOneUserPerIdentity(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let first = try await store.signIn(ada)
            let again = try await store.signIn(ada)
            #expect(first.id == again.id)
            #expect(try await store.userCount() == 1)
            let other = try await store.signIn(IdentityKey(issuer: "https://appleid.apple.com", subject: "1"), nil)
            #expect(other.id != first.id, "the same subject at another issuer is another person")
            #expect(other.displayName == "Profile NA")
        }
    }

    @Test(arguments: StoreBackend.available)
    func signInFollowsRenamesButKeepsNameWhenNoneIsGiven(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.signIn(ada, "Ada")
            #expect(try await store.signIn(ada, "Ada King").displayName == "Ada King")
            let nameless = try await store.signIn(ada, nil)
            #expect(nameless.displayName == "Ada King")
            #expect(try await store.user(id: nameless.id)?.displayName == "Ada King")
        }
    }

    @Test(arguments: StoreBackend.available)
    func namePartsAreKeptAndNeverErased(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let parts = NameParts(givenName: "Ada", familyName: "Lovelace", middleName: "Augusta", nickname: "Ada", namePrefix: "Lady", nameSuffix: "II")
            _ = try await store.signIn(appleAda, "Ada Lovelace", parts: parts)
            let again = try await store.signIn(appleAda, nil, parts: NameParts(givenName: ""))
            #expect(again.name == parts)
            #expect(again.displayName == "Ada Lovelace")
        }
    }

    @Test(arguments: StoreBackend.available)
    func identitiesLinkOnlyWhenBothEmailsAreVerified(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let google = try await store.signIn(ada, email: "ada@example.com", verified: true)
            let unverified = try await store.signIn(appleAda, email: "ada@example.com", verified: false)
            #expect(unverified.id != google.id, "an unverified email must not take over an account")
            let code = try await store.signIn(.email("ada@example.com"), nil, email: "ada@example.com", verified: true)
            #expect(code.id == google.id, "a proven address joins the account with the same verified address")
            #expect(Set(try await store.identities(of: google.id).map(\.key.issuer)) == ["https://accounts.google.com", IdentityKey.emailIssuer])
            // An unverified identity's email does not attract verified newcomers either.
            let other = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "2"), email: "eve@example.com", verified: false)
            let eve = try await store.signIn(.email("eve@example.com"), nil, email: "eve@example.com", verified: true)
            #expect(eve.id != other.id)
        }
    }

    @Test(arguments: StoreBackend.available)
    func linkingSkipsAnAccountWithAnotherSubjectOfTheIssuerAndPrefersTheOldest(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let first = try await store.signIn(ada, email: "ada@example.com", verified: true)
            // The address was reassigned: another Google account holding it is another person.
            let second = try await store.signIn(
                IdentityClaims(key: IdentityKey(issuer: ada.issuer, subject: "2"), displayName: "Ada 2", email: "ada@example.com", emailVerified: true),
                fallbackName: "Profile NA", at: now.addingTimeInterval(10), mayCreate: true)
            #expect(second.id != first.id)
            // A proven address that two accounts hold joins the one whose identity is older.
            let code = try await store.signIn(
                IdentityClaims(key: .email("ada@example.com"), email: "ada@example.com", emailVerified: true), fallbackName: "Profile NA",
                at: now.addingTimeInterval(20), mayCreate: true)
            #expect(code.id == first.id)
            #expect(try await store.userCount() == 2)
        }
    }

    @Test(arguments: StoreBackend.available)
    func fiftyFirstSignInsOfOneIdentityAtOnceMakeOneUser(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let key = ada
            let ids = try await withThrowingTaskGroup(of: UUID.self) { group in
                for _ in 0..<50 { group.addTask { try await store.signIn(key, email: "ada@example.com", verified: true).id } }
                return try await group.reduce(into: Set<UUID>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            #expect(try await store.userCount() == 1)
            #expect(try await store.identities(of: try #require(ids.first)).count == 1)
        }
    }

    @Test(arguments: StoreBackend.available)
    func anAccountSummaryListsIdentitiesOldestFirstAndWhetherThereIsAPassword(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada, email: "ada@example.com", verified: true)
            _ = try await store.signIn(
                IdentityClaims(key: .email("ada@example.com"), email: "ada@example.com", emailVerified: true), fallbackName: "Profile NA",
                at: now.addingTimeInterval(5), mayCreate: true)
            #expect(try await store.accountSummary(userID: user.id).hasPassword == false)
            try await store.setPasswordHash("hash", userID: user.id, at: now)
            let summary = try await store.accountSummary(userID: user.id)
            #expect(summary.hasPassword)
            #expect(summary.identities.map(\.key) == [ada, .email("ada@example.com")])
            #expect(try await store.accountSummary(userID: UUID()) == AccountSummary(identities: [], hasPassword: false))
        }
    }

    @Test(arguments: StoreBackend.available)
    func accessTokensAreFoundByHashAndExpire(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let (course, token, _) = session(for: user, refreshable: false, lifetime: 60)
            try await store.createSession(course)
            guard case .valid(let found) = try await store.session(accessHash: token.hash, at: now.addingTimeInterval(59)) else {
                Issue.record("a live session was not found")
                return
            }
            #expect(found.sessionID == course.id)
            #expect(found.user == user)
            #expect(try await store.session(accessHash: SessionToken.generate().hash, at: now) == .unknown)
            #expect(try await store.session(accessHash: token.hash, at: now.addingTimeInterval(60)) == .expired)
            #expect(try await store.sessionCount() == 0, "an expired unrefreshable session is purged when presented")

            let (native, access, _) = session(for: user)
            try await store.createSession(native)
            #expect(try await store.session(accessHash: access.hash, at: now.addingTimeInterval(900)) == .expired)
            #expect(try await store.sessionCount() == 1, "a refreshable session survives its access token")
        }
    }

    /// An access token that names its session is found with that session, and only with its current hash;
    /// a rotation that names the new one keeps it found. (The id is the token's own: a token naming another
    /// session is another token, with another hash, which `SessionTokenTests` shows is refused.)
    @Test(arguments: StoreBackend.available)
    func namedAccessTokensAreFoundWithTheirSession(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            var (native, access, refresh) = session(for: user)
            native.accessTokenNamed = true
            try await store.createSession(native)
            guard case .valid(let found) = try await store.session(accessHash: access.hash, naming: native.id, at: now.addingTimeInterval(1)) else {
                Issue.record("a named access token was not found")
                return
            }
            #expect(found.sessionID == native.id && found.user == user)
            #expect(try await store.session(accessHash: SessionToken.generate().hash, naming: native.id, at: now.addingTimeInterval(1)) == .unknown)
            #expect(try await store.session(accessHash: access.hash, naming: native.id, at: now.addingTimeInterval(900)) == .expired)

            var (r, newAccess, _) = rotation(refresh, of: native.id, at: 2)
            r.accessTokenNamed = true
            guard case .rotated = try await store.rotate(r) else {
                Issue.record("not rotated")
                return
            }
            #expect(try await store.session(accessHash: access.hash, naming: native.id, at: now.addingTimeInterval(3)) == .unknown, "the retired access token")
            guard case .valid = try await store.session(accessHash: newAccess.hash, naming: native.id, at: now.addingTimeInterval(3)) else {
                Issue.record("the rotated access token was not found")
                return
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func refreshRotatesAndRetiredTokensRevokeTheFamily(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let (new, oldAccess, first) = session(for: user)
            try await store.createSession(new)

            let (r1, access1, second) = rotation(first, of: new.id, at: 10)
            guard case .rotated(let rotated) = try await store.rotate(r1) else {
                Issue.record("not rotated")
                return
            }
            #expect(rotated.sessionID == new.id && rotated.user == user)
            // The rotation reads what the answer shows of the account: the identity ada signed in with.
            #expect(rotated.account.identities.map(\.key) == [ada] && !rotated.account.hasPassword)
            #expect(try await store.session(accessHash: oldAccess.hash, at: now.addingTimeInterval(11)) == .unknown)
            guard case .valid = try await store.session(accessHash: access1.hash, at: now.addingTimeInterval(11)) else {
                Issue.record("new access token unknown")
                return
            }

            // Within the grace window the retired token replays the rotation; after it, it revokes everything.
            guard case .retry(_, _, let box, _, _, _) = try await store.rotate(rotation(first, of: new.id, at: 20).0) else {
                Issue.record("no retry")
                return
            }
            #expect(box == [1, 2, 3])
            #expect(try await store.rotate(rotation(first, of: new.id, at: 41).0) == .reused(sessionID: new.id, userID: user.id))
            #expect(try await store.sessionCount() == 0)
            #expect(try await store.rotate(rotation(second, of: new.id, at: 42).0) == .unknown, "the family is gone, current token included")
        }
    }

    /// A session bound to a DPoP key rotates only with that key: another key or none changes nothing (not
    /// expiry, not reuse), at the current token and at a retired one; an unbound session is bound by the
    /// first rotation that names a key; lookups report the binding.
    @Test(arguments: StoreBackend.available)
    func aBoundSessionRotatesOnlyWithItsKey(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            var (new, access, first) = session(for: user)
            new.client.boundKey = "key-A"
            try await store.createSession(new)
            guard case .valid(let found) = try await store.session(accessHash: access.hash, at: now) else {
                Issue.record("bound session not found")
                return
            }
            #expect(found.boundKey == "key-A")
            for key in [nil, "key-B"] {
                var (r, _, _) = rotation(first, of: new.id, at: 10)
                r.boundKey = key
                #expect(try await store.rotate(r) == .wrongKey, "\(key ?? "no key")")
            }
            var (r1, access1, _) = rotation(first, of: new.id, at: 10)
            r1.boundKey = "key-A"
            guard case .rotated(let rotated) = try await store.rotate(r1) else {
                Issue.record("the key's own rotation did not rotate")
                return
            }
            #expect(rotated.boundKey == "key-A")
            guard case .valid(let after) = try await store.session(accessHash: access1.hash, at: now.addingTimeInterval(11)) else {
                Issue.record("rotated token unknown")
                return
            }
            #expect(after.boundKey == "key-A")
            // The retired token, outside the grace window, by another key: refused, the session stays.
            var (late, _, _) = rotation(first, of: new.id, at: 60)
            late.boundKey = "key-B"
            #expect(try await store.rotate(late) == .wrongKey)
            #expect(try await store.sessionCount() == 1)
            late.boundKey = "key-A"
            #expect(try await store.rotate(late) == .reused(sessionID: new.id, userID: user.id))

            let (plain, _, token) = session(for: user)
            try await store.createSession(plain)
            var (binding, bearer, _) = rotation(token, of: plain.id, at: 5)
            binding.boundKey = "key-C"
            guard case .rotated(let bound) = try await store.rotate(binding) else {
                Issue.record("an unbound session did not rotate with a key")
                return
            }
            #expect(bound.boundKey == "key-C")
            guard case .valid(let later) = try await store.session(accessHash: bearer.hash, at: now.addingTimeInterval(6)) else {
                Issue.record("rotated token unknown")
                return
            }
            #expect(later.boundKey == "key-C")
        }
    }

    /// A DPoP proof is taken once while it could be accepted, by one of many presenting it at once, and may
    /// be recorded again only once its time is past.
    @Test(arguments: StoreBackend.available)
    func aProofIsUsedOnceAmongManyAtOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let proof = Array(repeating: UInt8(7), count: 32)
            let until = now.addingTimeInterval(120)
            let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 { group.addTask { try await store.useProof(proof, until: until, at: now) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(taken == 1)
            #expect(try await store.useProof(proof, until: until, at: now.addingTimeInterval(119)) == false)
            #expect(try await store.useProof(proof, until: now.addingTimeInterval(300), at: now.addingTimeInterval(120)) == true)
            #expect(try await store.useProof(Array(repeating: 8, count: 32), until: until, at: now) == true)
            try await store.purgeStaleRecords(StaleCutoffs(now: now.addingTimeInterval(301), counters: now, deviceTokens: now, audit: nil))
            #expect(try await store.useProof(proof, until: now.addingTimeInterval(400), at: now.addingTimeInterval(10)) == true, "purged once past")
        }
    }

    /// Rotations arriving together are applied together: each still gets its own session, user and account,
    /// and a token presented twice in the same burst rotates once.
    @Test(arguments: StoreBackend.available)
    func concurrentRotationsEachRotateTheirOwnSession(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            var started: [(user: User, session: NewSession, refresh: SessionToken)] = []
            for index in 0..<40 {
                let user = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "batch-\(index)"), "User \(index)")
                let (new, _, refresh) = session(for: user)
                try await store.createSession(new)
                started.append((user, new, refresh))
            }
            let (twice, twiceSession) = (started[0].refresh, started[0].session.id)
            let outcomes = try await withThrowingTaskGroup(of: (Int, RotationOutcome, SessionToken).self) { group in
                for (index, s) in started.enumerated() {
                    group.addTask {
                        let (r, access, _) = rotation(s.refresh, of: s.session.id, at: 5)
                        return (index, try await store.rotate(r), access)
                    }
                }
                group.addTask {
                    let (r, access, _) = rotation(twice, of: twiceSession, at: 5)
                    return (-1, try await store.rotate(r), access)
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var rotatedSessions: Set<UUID> = []
            for (index, outcome, access) in outcomes {
                guard case .rotated(let rotated) = outcome else {
                    // Only the second presentation of `twice` may lose, and it is then its rotation's retry.
                    guard case .retry(let id, _, _, _, _, _) = outcome, index == -1 || index == 0 else {
                        Issue.record("rotation \(index): \(outcome)")
                        continue
                    }
                    #expect(id == started[0].session.id)
                    continue
                }
                let expected = index == -1 ? started[0] : started[index]
                #expect(rotated.sessionID == expected.session.id && rotated.user == expected.user)
                #expect(rotated.account.identities.map(\.key.subject) == [expected.user.id == started[0].user.id ? "batch-0" : "batch-\(index)"])
                #expect(rotatedSessions.insert(rotated.sessionID).inserted, "a session rotated twice")
                guard case .valid = try await store.session(accessHash: access.hash, at: now.addingTimeInterval(6)) else {
                    Issue.record("rotation \(index): its new access token is unknown")
                    continue
                }
            }
            #expect(rotatedSessions.count == 40)
            #expect(try await store.sessionCount() == 40)
        }
    }

    @Test(arguments: StoreBackend.available)
    func olderRetiredTokensNeverReplay(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let (new, _, first) = session(for: user)
            try await store.createSession(new)
            let (r1, _, second) = rotation(first, of: new.id, at: 1)
            _ = try await store.rotate(r1)
            _ = try await store.rotate(rotation(second, of: new.id, at: 2).0)
            // `first` was retired two rotations ago: even inside the window it is reuse.
            #expect(try await store.rotate(rotation(first, of: new.id, at: 3).0) == .reused(sessionID: new.id, userID: user.id))
        }
    }

    @Test(arguments: StoreBackend.available)
    func idleAndAbsoluteLifetimesEndSessions(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let (new, _, refresh) = session(for: user)
            try await store.createSession(new)
            #expect(try await store.rotate(rotation(refresh, of: new.id, at: 30 * 86400).0) == .expired(userID: user.id))
            #expect(try await store.sessionCount() == 0)

            var late = session(for: user)
            late.0.absoluteExpiresAt = now.addingTimeInterval(100)
            try await store.createSession(late.0)
            #expect(try await store.rotate(rotation(late.refresh, of: late.0.id, at: 100).0) == .expired(userID: user.id))
        }
    }

    @Test(arguments: StoreBackend.available)
    func revokingAndListingSessions(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let mallory = try await store.signIn(IdentityKey(issuer: "x", subject: "m"))
            let sessions = [session(for: user).0, session(for: user).0, session(for: user).0]
            for s in sessions { try await store.createSession(s) }
            #expect(
                try await store.sessions(of: user.id).map(\.id).sorted { $0.uuidString < $1.uuidString }
                    == sessions.map(\.id).sorted { $0.uuidString < $1.uuidString })
            #expect(try await store.revokeSession(id: sessions[0].id, userID: mallory.id) == false, "only the owner can revoke")
            #expect(try await store.revokeSession(id: sessions[0].id, userID: user.id))
            #expect(try await store.revokeSessions(of: user.id, except: sessions[1].id) == 1)
            #expect(try await store.sessions(of: user.id).map(\.id) == [sessions[1].id])
        }
    }

    @Test(arguments: StoreBackend.available)
    func purgeRemovesOnlyExpiredSessions(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            for lifetime in [10.0, 20, 30] { try await store.createSession(session(for: user, refreshable: false, lifetime: lifetime).0) }
            try await store.createSession(session(for: user).0)
            #expect(try await store.purgeExpiredSessions(at: now.addingTimeInterval(20), lifetimes: lifetimes(idle: 86400)) == 2)
            #expect(try await store.sessionCount() == 2)
            #expect(try await store.purgeExpiredSessions(at: now.addingTimeInterval(86400), lifetimes: lifetimes(idle: 86400)) == 2)
        }
    }

    func code(_ hash: UInt8, sentAt offset: Double = 0) -> EmailCodeRecord {
        EmailCodeRecord(codeHash: [hash], expiresAt: now.addingTimeInterval(600), guesses: 0, sentAt: now.addingTimeInterval(offset))
    }

    @Test(arguments: StoreBackend.available)
    func emailCodesCountGuessesBeforeComparingAndWorkOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let first = try await store.storeEmailCode(code(1), for: "a@example.com", scope: "address", cooldown: 60)
            let tooSoon = try await store.storeEmailCode(code(9, sentAt: 20), for: "a@example.com", scope: "address", cooldown: 60)
            let ownScope = try await store.storeEmailCode(code(2, sentAt: 20), for: "a@example.com", scope: "device:d", cooldown: 60)
            #expect(first == nil)
            #expect(tooSoon == 40, "cooldown")
            #expect(ownScope == nil, "a device's codes have their own cooldown")
            #expect(try await store.emailCodes(for: "a@example.com").map(\.codeHash) == [[1], [2]], "a second code does not replace the first")
            for _ in 1...3 { #expect(try await store.takeGuess(for: "a@example.com", maximumGuesses: 3, at: now) == [[1], [2]]) }
            #expect(try await store.takeGuess(for: "a@example.com", maximumGuesses: 3, at: now).isEmpty, "each code had its 3 guesses")
            #expect(try await store.emailCodes(for: "a@example.com").map(\.guesses) == [3, 3])
            #expect(try await store.takeGuess(for: "b@example.com", maximumGuesses: 3, at: now).isEmpty)
            let afterCooldown = try await store.storeEmailCode(code(3, sentAt: 61), for: "a@example.com", scope: "address", cooldown: 60)
            #expect(afterCooldown == nil)
            #expect(try await store.takeGuess(for: "a@example.com", maximumGuesses: 3, at: now.addingTimeInterval(600)).isEmpty, "expired")
            #expect(try await store.consumeEmailCode(for: "a@example.com", codeHash: [9]) == false)
            #expect(try await store.consumeEmailCode(for: "a@example.com", codeHash: [3]) == true)
            #expect(try await store.consumeEmailCode(for: "a@example.com", codeHash: [3]) == false, "single use")
            #expect(try await store.emailCodes(for: "a@example.com").isEmpty, "a used code takes the address's other codes with it")
        }
    }

    @Test(arguments: StoreBackend.available)
    func deviceTokensAndNotificationsAreRemembered(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.storeDeviceToken(hash: [4], email: "a@example.com", at: now, keeping: 5)
            #expect(try await store.deviceTokenEmail(hash: [4], issuedAfter: .distantPast) == "a@example.com")
            #expect(try await store.deviceTokenEmail(hash: [5], issuedAfter: .distantPast) == nil)
            #expect(try await store.markNotificationSeen(jti: "j1", expiresAt: now.addingTimeInterval(60)) == true)
            #expect(try await store.markNotificationSeen(jti: "j1", expiresAt: now.addingTimeInterval(60)) == false)
            try await store.purgeStaleRecords(.before(now.addingTimeInterval(61)))
            #expect(try await store.markNotificationSeen(jti: "j1", expiresAt: now.addingTimeInterval(120)) == true, "forgotten once expired")
        }
    }

    @Test(arguments: StoreBackend.available)
    func rateLimitWindows(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            for expected in 1...3 { #expect(try await store.hit("k", window: 60, at: now) == expected) }
            #expect(try await store.count("k", window: 60, at: now.addingTimeInterval(59)) == 3)
            #expect(try await store.count("k", window: 60, at: now.addingTimeInterval(60)) == 0)
            #expect(try await store.hit("k", window: 60, at: now.addingTimeInterval(60)) == 1, "a new window starts over")
            try await store.release("k")
            #expect(try await store.count("k", window: 60, at: now.addingTimeInterval(61)) == 0, "a hit handed back")
            try await store.release("k")
            #expect(try await store.hit("k", window: 60, at: now.addingTimeInterval(62)) == 1, "never below zero")
        }
    }

    @Test(arguments: StoreBackend.available)
    func staleRecordsArePurged(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.hit("old", window: 60, at: now)
            _ = try await store.hit("new", window: 60, at: now.addingTimeInterval(100))
            _ = try await store.storeEmailCode(
                EmailCodeRecord(codeHash: [1], expiresAt: now, guesses: 0, sentAt: now), for: "a@example.com", scope: "address", cooldown: 60)
            try await store.purgeStaleRecords(.before(now.addingTimeInterval(50)))
            #expect(try await store.count("old", window: 1000, at: now.addingTimeInterval(100)) == 0)
            #expect(try await store.count("new", window: 1000, at: now.addingTimeInterval(100)) == 1)
            #expect(try await store.emailCodes(for: "a@example.com").isEmpty)
        }
    }

    @Test(arguments: StoreBackend.available)
    func handoffsWorkOnceAndExpire(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            try await store.storeHandoff(codeHash: [9], userID: user.id, expiresAt: now.addingTimeInterval(60))
            #expect(try await store.redeemHandoff(codeHash: [9], at: now) == user.id)
            #expect(try await store.redeemHandoff(codeHash: [9], at: now) == nil)
            try await store.storeHandoff(codeHash: [8], userID: user.id, expiresAt: now.addingTimeInterval(60))
            #expect(try await store.redeemHandoff(codeHash: [8], at: now.addingTimeInterval(60)) == nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func deletingAUserLeavesNoRowBehind(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada, email: "ada@example.com", verified: true)
            _ = try await store.signIn(.email("ada@example.com"), email: "ada@example.com", verified: true)
            try await store.setPasswordHash("hash", userID: user.id, at: now)
            let (new, _, refresh) = session(for: user)
            try await store.createSession(new)
            _ = try await store.rotate(rotation(refresh, of: new.id, at: 1).0)
            try await store.addChatt(Chatt(name: "Ada", message: "bye", time: now, userID: user.id))
            _ = try await store.storeEmailCode(
                EmailCodeRecord(codeHash: [1], expiresAt: now, guesses: 0, sentAt: now), for: "ada@example.com", scope: "address", cooldown: 60)
            try await store.storeHandoff(codeHash: [7], userID: user.id, expiresAt: now.addingTimeInterval(60))
            let bystander = try await store.signIn(IdentityKey(issuer: "x", subject: "b"))
            try await store.addChatt(Chatt(name: "B", message: "stays", time: now, userID: bystander.id))

            try await store.deleteUser(id: user.id)
            #expect(try await store.user(id: user.id) == nil)
            #expect(try await store.identities(of: user.id).isEmpty)
            #expect(try await store.passwordHash(userID: user.id) == nil)
            #expect(try await store.sessions(of: user.id).isEmpty)
            #expect(try await store.emailCodes(for: "ada@example.com").isEmpty)
            #expect(try await store.redeemHandoff(codeHash: [7], at: now) == nil)
            #expect(try await store.allChatts().map(\.message) == ["stays"])
            #expect(try await store.userCount() == 1)
        }
    }

    @Test(arguments: StoreBackend.available)
    func deletingTheLastIdentityDeletesTheUser(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(appleAda)
            #expect(try await store.deleteIdentity(appleAda) == user.id)
            #expect(try await store.user(id: user.id) == nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func chattsComeBackOldestFirstAndPageNewestFirst(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let chatts = (0..<5).map { Chatt(name: "n\($0)", message: "m\($0)", time: now.addingTimeInterval(Double($0)), userID: $0 == 0 ? nil : user.id) }
            for chatt in chatts { try await store.addChatt(chatt) }
            #expect(try await store.allChatts() == chatts)
            #expect(try await store.chattCount() == 5)
            #expect(try await store.chatts(before: nil, limit: 2) == [chatts[4], chatts[3]])
            #expect(try await store.chatts(before: chatts[3].id, limit: 2) == [chatts[2], chatts[1]])
            #expect(try await store.chatts(before: chatts[1].id, limit: 2) == [chatts[0]])
        }
    }

    @Test(arguments: StoreBackend.available)
    func auditEventsAreKept(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let event = AuditEvent(at: now, event: "sign_in", userID: user.id, method: "google", client: ClientInfo(ip: "10.0.0.1", userAgent: "UA"))
            try await store.record(event)
            try await store.record(AuditEvent(at: now, event: "sign_in_failed"))
            #expect(try await store.auditEvents(userID: user.id) == [event])
            #expect(try await store.auditEvents(userID: nil).count == 2)
        }
    }

    @Test(arguments: StoreBackend.available)
    func concurrentSignInWritesAllCommit(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let made = (0..<200).map { _ in session(for: user) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (new, _, _) in made {
                    group.addTask {
                        try await store.createSession(new)
                        try await store.record(AuditEvent(at: now, event: "sign_in", userID: user.id, method: "google"))
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.sessionCount() == 200)
            #expect(try await store.auditEvents(userID: user.id).count == 200)
            for (_, access, _) in made.prefix(20) {
                guard case .valid = try await store.session(accessHash: access.hash, at: now) else {
                    Issue.record("a session written in a batch cannot be found")
                    return
                }
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func aFailingWriteFailsOnlyItsOwnCaller(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let ghost = User(id: UUID(), displayName: "Nobody", name: nil)
            // Submitted together, so the session of a user who does not exist shares a batch with good ones.
            let outcomes = await withTaskGroup(of: (Bool, Bool).self) { group in
                for i in 0..<100 {
                    let bad = i == 50
                    let new = session(for: bad ? ghost : user).0
                    group.addTask { (bad, (try? await store.createSession(new)) != nil) }
                }
                return await group.reduce(into: [(Bool, Bool)]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0.0 }.allSatisfy { !$0.1 }, "the session of a missing user was stored")
            #expect(outcomes.filter { !$0.0 }.allSatisfy { $0.1 }, "a good session failed with the bad one")
            #expect(try await store.sessionCount() == 99)
        }
    }

    /// Whatever a backend remembers between lookups, a change must show in the very next one.
    /// Posts made at once are written in batches; a post whose author is gone fails alone, as `userGone`.
    @Test(arguments: StoreBackend.available)
    func aPostByADeletedAuthorFailsAloneInItsBatch(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let ghost = UUID()
            let outcomes = await withTaskGroup(of: (Bool, (any Error)?).self) { group in
                for i in 0..<100 {
                    let bad = i == 50
                    let chatt = Chatt(name: "Ada", message: "post \(i)", time: now, userID: bad ? ghost : user.id)
                    group.addTask {
                        do {
                            try await store.addChatt(chatt)
                            return (bad, nil)
                        } catch { return (bad, error) }
                    }
                }
                return await group.reduce(into: [(Bool, (any Error)?)]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0.0 }.allSatisfy { ($0.1 as? StoreError) == .userGone }, "the ghost's post was not refused as userGone")
            #expect(outcomes.filter { !$0.0 }.allSatisfy { $0.1 == nil }, "a good post failed with the bad one")
            #expect(try await store.chattCount() == 99)
        }
    }

    @Test(arguments: StoreBackend.available)
    func everyChangeShowsInTheNextLookupAfterARecentOne(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada, "Ada")
            func started() async throws -> (NewSession, access: SessionToken, refresh: SessionToken) {
                let made = session(for: user)
                try await store.createSession(made.0)
                guard case .valid = try await store.session(accessHash: made.access.hash, at: now) else {
                    throw StoreError.corruptRow("a new session was not found")
                }
                return made
            }
            func lookup(_ token: SessionToken) async throws -> SessionLookup { try await store.session(accessHash: token.hash, at: now) }

            let renamed = try await started()
            _ = try await store.signIn(ada, "Ada King")
            guard case .valid(let found) = try await lookup(renamed.access) else {
                Issue.record("renaming ended the session")
                return
            }
            #expect(found.user.displayName == "Ada King")

            let one = try await started()
            #expect(try await store.revokeSession(id: one.0.id, userID: user.id))
            #expect(try await lookup(one.access) == .unknown)

            let all = try await started()
            _ = try await store.revokeSessions(of: user.id, except: nil)
            #expect(try await lookup(all.access) == .unknown)

            let byMethod = try await started()
            _ = try await store.revokeSessions(of: user.id, method: "google")
            #expect(try await lookup(byMethod.access) == .unknown)

            let rotated = try await started()
            let (rotation, newAccess, _) = self.rotation(rotated.refresh, of: rotated.0.id, at: 1)
            guard case .rotated = try await store.rotate(rotation) else {
                Issue.record("rotation failed")
                return
            }
            #expect(try await lookup(rotated.access) == .unknown, "the retired access token still works")
            guard case .valid = try await lookup(newAccess) else {
                Issue.record("the rotated access token does not work")
                return
            }

            let purged = try await started()
            _ = try await store.purgeExpiredSessions(at: now.addingTimeInterval(91 * 86400), lifetimes: lifetimes(idle: 30 * 86400))
            #expect(try await lookup(purged.access) == .unknown)

            let unlinked = try await started()
            _ = try await store.deleteIdentity(ada)
            #expect(try await lookup(unlinked.access) == .unknown, "the user went with their last identity")
        }
    }
}
