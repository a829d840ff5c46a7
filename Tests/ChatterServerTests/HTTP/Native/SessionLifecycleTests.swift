import ChatterWire
import Foundation
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Refresh rotation, reuse detection, revocation, sign-out and account deletion over real HTTP.
@Suite struct SessionLifecycleTests {
    func refresh(_ h: Harness, _ token: String) async throws -> (status: Int, session: SessionResponse?, error: String?) {
        let response = try await h.post(NativePath.refresh, RefreshRequest(refreshToken: token))
        if response.status == .ok { return (200, try h.decode(SessionResponse.self, response), nil) }
        return (response.status.code, nil, try h.error(response).error)
    }

    @Test func accessTokenAuthenticatesAndExpires() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            #expect(session.tokenType == "Bearer")
            #expect(session.expiresIn == 900)
            let me = try await h.get(NativePath.me, bearer: session.accessToken)
            #expect(me.status == .ok)
            #expect(try h.decode(UserProfile.self, me).displayName == "Ada Lovelace")
            h.clock.advance(by: 900)
            let expired = try await h.get(NativePath.me, bearer: session.accessToken)
            #expect(expired.status == .unauthorized)
            #expect(try h.error(expired).error == AuthErrorCode.accessTokenExpired)
            #expect(expired.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            // Refreshing brings it back.
            let renewed = try await refresh(h, session.refreshToken)
            #expect(renewed.status == 200)
            #expect(try await h.get(NativePath.me, bearer: renewed.session?.accessToken).status == .ok)
        }
    }

    @Test func refreshRotatesBothTokens() async throws {
        try await Harness.run { h async throws in
            let first = try await h.nativeSignIn()
            let second = try #require(try await refresh(h, first.refreshToken).session)
            #expect(second.refreshToken != first.refreshToken)
            #expect(second.accessToken != first.accessToken)
            #expect(second.sessionID == first.sessionID)
            #expect(try await h.get(NativePath.me, bearer: first.accessToken).status == .unauthorized, "the old access token is retired")
            let third = try #require(try await refresh(h, second.refreshToken).session)
            #expect(try await h.get(NativePath.me, bearer: third.accessToken).status == .ok)
        }
    }

    @Test func retryWithinTheGraceWindowGetsTheSamePair() async throws {
        try await Harness.run { h async throws in
            let first = try await h.nativeSignIn()
            let rotated = try #require(try await refresh(h, first.refreshToken).session)
            h.clock.advance(by: 10)
            // The client never saw `rotated` (lost response) and retries with the old token.
            let retried = try #require(try await refresh(h, first.refreshToken).session)
            #expect(retried.accessToken == rotated.accessToken)
            #expect(retried.refreshToken == rotated.refreshToken)
            #expect(try await h.get(NativePath.me, bearer: retried.accessToken).status == .ok)
            // Once: whoever presents the retired token next is treated as a thief, and the family ends.
            let second = try await refresh(h, first.refreshToken)
            #expect(second.error == AuthErrorCode.refreshTokenReused)
            #expect(try await h.get(NativePath.me, bearer: retried.accessToken).status == .unauthorized)
        }
    }

    @Test func reuseOutsideTheGraceWindowRevokesTheFamily() async throws {
        try await Harness.run { h async throws in
            let first = try await h.nativeSignIn()
            let rotated = try #require(try await refresh(h, first.refreshToken).session)
            h.clock.advance(by: 11)
            let reuse = try await refresh(h, first.refreshToken)
            #expect(reuse.status == 401)
            #expect(reuse.error == AuthErrorCode.refreshTokenReused)
            // The thief's replay also killed the legitimate holder's newer tokens.
            #expect(try await h.get(NativePath.me, bearer: rotated.accessToken).status == .unauthorized)
            #expect(try await refresh(h, rotated.refreshToken).error == AuthErrorCode.invalidRefreshToken)
            #expect(try await h.store.auditEvents(userID: nil).contains { $0.event == "refresh_reused" })
        }
    }

    @Test func forgedRefreshTokenChangesNothing() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            let before = try await h.counts()
            let forged = try await refresh(h, SessionToken.generate().secret)
            #expect(forged.status == 401 && forged.error == AuthErrorCode.invalidRefreshToken)
            #expect(try await h.counts() == before)
            #expect(try await h.get(NativePath.me, bearer: session.accessToken).status == .ok)
        }
    }

    @Test func idleSessionsEnd() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            h.clock.advance(by: 30 * 24 * 3600)
            #expect(try await refresh(h, session.refreshToken).error == AuthErrorCode.invalidRefreshToken)
        }
    }

    @Test func listAndRevokeSessionsVisibleImmediately() async throws {
        try await Harness.run { h async throws in
            let phone = try await h.nativeSignIn()
            let laptop = try await h.nativeSignIn()
            let listed = try h.decode([SessionInfo].self, try await h.get(NativePath.sessions, bearer: laptop.accessToken))
            #expect(listed.count == 2)
            #expect(listed.first { $0.current }?.id == laptop.sessionID)
            #expect(listed.allSatisfy { $0.userAgent == Harness.userAgent })
            #expect(try await h.delete(NativePath.sessions + "/" + phone.sessionID, bearer: laptop.accessToken).status == .noContent)
            #expect(try await h.get(NativePath.me, bearer: phone.accessToken).status == .unauthorized)
            #expect(try await refresh(h, phone.refreshToken).status == 401)
            #expect(try await h.delete(NativePath.sessions + "/" + phone.sessionID, bearer: laptop.accessToken).status == .notFound)
        }
    }

    @Test func someoneElsesSessionCannotBeRevoked() async throws {
        try await Harness.run { h async throws in
            let ada = try await h.nativeSignIn(subject: "1")
            let eve = try await h.nativeSignIn(subject: "2")
            #expect(try await h.delete(NativePath.sessions + "/" + ada.sessionID, bearer: eve.accessToken).status == .notFound)
            #expect(try await h.get(NativePath.me, bearer: ada.accessToken).status == .ok)
        }
    }

    @Test func signOutThisDeviceOrAll() async throws {
        try await Harness.run { h async throws in
            let a = try await h.nativeSignIn()
            let b = try await h.nativeSignIn()
            let c = try await h.nativeSignIn()
            #expect(try await h.post(NativePath.signOut, json: "{}", bearer: a.accessToken).status == .noContent, "all defaults to false")
            #expect(try await h.get(NativePath.me, bearer: a.accessToken).status == .unauthorized)
            #expect(try await h.get(NativePath.me, bearer: b.accessToken).status == .ok)
            #expect(try await h.post(NativePath.signOut, SignOutRequest(all: true), bearer: b.accessToken).status == .noContent)
            #expect(try await h.get(NativePath.me, bearer: c.accessToken).status == .unauthorized)
            #expect(try await h.store.sessionCount() == 0)
        }
    }

    @Test func deletingTheAccountLeavesNoRowBehind() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn(email: "ada@example.com")
            _ = try await h.post(NativePath.chatts, NewChattRequest(message: "hello"), bearer: session.accessToken)
            _ = try await h.post(NativePath.webSession, json: "", bearer: session.accessToken)
            #expect(try await h.delete(NativePath.me, bearer: session.accessToken).status == .noContent)
            #expect(try await h.counts() == [0, 0, 0])
            #expect(try await h.get(NativePath.me, bearer: session.accessToken).status == .unauthorized)
            let raw = try await SQLiteRowCounter.counts(path: h.databasePath)
            // The audit log is kept, and the server's own token key is no one's data.
            #expect(raw.filter { !["audit_events", "session_token_key"].contains($0.key) && $0.value != 0 }.isEmpty, "rows left: \(raw)")
            #expect(try await h.store.auditEvents(userID: nil).contains { $0.event == "account_deleted" })
        }
    }

    @Test func courseChatterIDIsAnAccessTokenOfTheSameSystem() async throws {
        try await Harness.run { h async throws in
            let course = try await h.signIn()
            let me = try await h.get(NativePath.me, bearer: course.chatterID)
            #expect(me.status == .ok)
            #expect(try h.decode(UserProfile.self, me).displayName == course.username)
            let native = try await h.nativeSignIn()
            #expect(try await h.post("/postauth", PostAuthRequest(chatterID: native.accessToken, message: "from native")).status == .ok)
            #expect(try await h.timeline().map(\.message) == ["from native"])
        }
    }

    @Test func missingOrMalformedCredentials() async throws {
        try await Harness.run { h async throws in
            #expect(try await h.get(NativePath.me).status == .unauthorized)
            let basic = try await h.client.execute(uri: NativePath.me, method: .get, headers: [.authorization: "Basic YTpi"])
            #expect(basic.status == .unauthorized)
            #expect(try await h.get(NativePath.me, bearer: "garbage").status == .unauthorized)
        }
    }

    @Test func nativeTimelinePagesNewestFirst() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            for index in 0..<5 {
                let posted = try await h.post(NativePath.chatts, NewChattRequest(message: "m\(index)"), bearer: session.accessToken)
                #expect(posted.status == .created)
            }
            let first = try h.decode(ChattPage.self, try await h.get(NativePath.chatts + "?limit=2"))
            #expect(first.chatts.map(\.message) == ["m4", "m3"])
            let second = try h.decode(ChattPage.self, try await h.get(NativePath.chatts + "?limit=2&before=\(first.next ?? "")"))
            #expect(second.chatts.map(\.message) == ["m2", "m1"])
            // The default page is kept between posts; a post must show in the next read.
            let newest = try h.decode(ChattPage.self, try await h.get(NativePath.chatts))
            #expect(newest.chatts.map(\.message) == ["m4", "m3", "m2", "m1", "m0"])
            #expect(newest.next == nil)
            _ = try await h.post(NativePath.chatts, NewChattRequest(message: "m5"), bearer: session.accessToken)
            #expect(try h.decode(ChattPage.self, try await h.get(NativePath.chatts)).chatts.first?.message == "m5")
            #expect(try await h.get(NativePath.chatts + "?limit=0").status == .badRequest)
            #expect(try await h.get(NativePath.chatts + "?before=nope").status == .badRequest)
            #expect(try await h.post(NativePath.chatts, NewChattRequest(message: "anonymous")).status == .unauthorized)
        }
    }
}

/// Row counts of every table, read straight from the file.
enum SQLiteRowCounter {
    static func counts(path: String) async throws -> [String: Int] {
        let db = try SQLiteConnection.open(path: path)
        var result: [String: Int] = [:]
        do {
            let tables = try await db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            for table in tables.compactMap({ $0.column("name")?.string }) {
                result[table] = try await db.query("SELECT count(*) AS n FROM \(table)").first?.column("n")?.integer ?? 0
            }
        } catch {
            try await db.close()
            throw error
        }
        try await db.close()
        return result
    }
}
