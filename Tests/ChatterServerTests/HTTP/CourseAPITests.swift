import ChatterTestSupport
import ChatterWire
import Foundation
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The course API end to end, over real HTTP, against a real SQLite file.
@Suite struct CourseAPITests {
    @Test func signInPostAndRead() async throws {
        try await Harness.run { h async throws in
            #expect(try await h.timeline() == [])
            let session = try await h.signIn()
            #expect(session.username == "Ada Lovelace")
            #expect(session.lifetime == 86400)
            #expect(session.chatterID.count == 43, "256 bits, base64url")

            let posted = try await h.post("/postauth", PostAuthRequest(chatterID: session.chatterID, message: "Hello, Chatter"))
            #expect(posted.status == .ok)
            #expect(String(buffer: posted.body) == "{}")

            let rows = try await h.timeline()
            #expect(rows.count == 1)
            #expect(rows.first?.name == "Ada Lovelace")
            #expect(rows.first?.message == "Hello, Chatter")
            #expect(UUID(uuidString: rows.first?.id ?? "") != nil)
            let time = try Date(rows.first?.time ?? "", strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            #expect(abs(time.timeIntervalSince(h.clock.now)) < 0.001, "time is the post's moment, in ISO 8601")
        }
    }

    @Test func getChattsIsAnArrayOfArraysOldestFirst() async throws {
        try await Harness.run { h async throws in
            let session = try await h.signIn()
            for text in ["first", "second", "third"] {
                _ = try await h.post("/postauth", PostAuthRequest(chatterID: session.chatterID, message: text))
                h.clock.advance(by: 1)
            }
            let response = try await h.get("/getchatts")
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let raw = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String]]
            #expect(raw?.map { $0[1] } == ["first", "second", "third"])
            #expect(raw?.allSatisfy { $0.count == 4 && $0[0] == "Ada Lovelace" } == true)
        }
    }

    @Test func trailingSlashesAreAccepted() async throws {
        try await Harness.run { h async throws in
            #expect(try await h.get("/getchatts/").status == .ok)
            let token = try h.issuer.sign(TestIssuer.claims(now: h.clock.now))
            let added = try await h.post("/adduser/", AddUserRequest(clientID: TestIssuer.clientID, idToken: token))
            #expect(added.status == .ok)
            let session = try h.decode(AddUserResponse.self, added)
            #expect(try await h.post("/postauth/", PostAuthRequest(chatterID: session.chatterID, message: "x")).status == .ok)
        }
    }

    @Test func chattNameIsTheSessionsUserNeverTheClients() async throws {
        try await Harness.run { h async throws in
            let session = try await h.signIn(name: "Ada Lovelace")
            // A client adding a "name" field does not change whose chatt it is.
            let response = try await h.post("/postauth", json: #"{"chatterID":"\#(session.chatterID)","message":"hi","name":"Mallory"}"#)
            #expect(response.status == .ok)
            #expect(try await h.timeline().map(\.name) == ["Ada Lovelace"])
        }
    }

    @Test func missingGoogleNameBecomesProfileNA() async throws {
        try await Harness.run { h async throws in
            #expect(try await h.signIn(subject: "2", name: nil).username == "Profile NA")
        }
    }

    @Test func longGoogleNameIsShortenedNotRefused() async throws {
        try await Harness.run { h async throws in
            let long = String(repeating: "Bartholomew ", count: 10)
            let username = try await h.signIn(name: long).username
            #expect(username.count == Limits.nameCharacters)
            #expect(username.hasSuffix("…"))
        }
    }

    @Test func signingInTwiceKeepsOneUser() async throws {
        try await Harness.run { h async throws in
            let first = try await h.signIn()
            let second = try await h.signIn()
            #expect(first.chatterID != second.chatterID)
            #expect(try await h.store.userCount() == 1)
            #expect(try await h.store.sessionCount() == 2)
        }
    }

    @Test func onlyTheHashOfAChatterIDIsStored() async throws {
        try await Harness.run { h async throws in
            let session = try await h.signIn()
            let raw = try SQLiteConnection.open(path: h.databasePath)
            let rows = try? await raw.query("SELECT access_hash FROM sessions")
            try await raw.close()
            let stored = try #require(rows?.first?.column("access_hash")?.blob)
            #expect(Array(stored) == SessionToken.hash(session.chatterID))
            #expect(!Array(stored).elementsEqual(Array(session.chatterID.utf8)))
        }
    }

    @Test func expiredChatterIDIsRefusedAndPurged() async throws {
        try await Harness.run(configure: { $0.sessionLifetime = 600 }) { h async throws in
            let session = try await h.signIn()
            #expect(session.lifetime == 600)
            h.clock.advance(by: 600)
            let before = try await h.counts()
            let response = try await h.post("/postauth", PostAuthRequest(chatterID: session.chatterID, message: "late"))
            #expect(response.status == .unauthorized)
            #expect(try h.decode(ErrorBody.self, response).error == "expired_session")
            #expect(try await h.store.sessionCount() == before[1] - 1, "the expired session is deleted")
            #expect(try await h.store.chattCount() == before[2])
        }
    }

    @Test func anonymousPostingWorksOnlyWhenEnabled() async throws {
        try await Harness.run(configure: { $0.allowAnonymousPosting = true }) { h async throws in
            let response = try await h.post("/postchatt", PostChattRequest(name: "guest", message: "hi"))
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == "{}")
            #expect(try await h.timeline().map(\.name) == ["guest"])
        }
    }

    @Test func wrongAudienceNamesTheAudienceItSaw() async throws {
        try await Harness.run { h async throws in
            let token = try h.issuer.sign(TestIssuer.claims(audience: "other.apps.googleusercontent.com", now: h.clock.now))
            let response = try await h.post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: token))
            #expect(response.status == .unauthorized)
            let body = try h.decode(ErrorBody.self, response)
            #expect(body.check == "wrong_audience")
            #expect(body.audience == ["other.apps.googleusercontent.com"])
            #expect(body.message.contains("other.apps.googleusercontent.com"))
        }
    }

    @Test(arguments: [
        ("expired", TokenCheck.expiry), ("future", .notBefore), ("issuer", .issuer), ("stranger", .key), ("tampered", .signature),
    ])
    func adduserSaysWhichCheckFailed(kind: String, expected: TokenCheck) async throws {
        try await Harness.run { h async throws in
            var claims = TestIssuer.claims(now: h.clock.now)
            var signer = h.issuer
            switch kind {
            case "expired": claims["exp"] = Int(h.clock.now.timeIntervalSince1970)
            case "future": claims["nbf"] = Int(h.clock.now.timeIntervalSince1970) + 3600
            case "issuer": claims["iss"] = "https://accounts.example.com"
            case "stranger": signer = try TestIssuer(kid: "stranger")
            default: break
            }
            var token = try signer.sign(claims)
            if kind == "tampered" {
                var parts = token.split(separator: ".").map(String.init)
                parts[1] = TestIssuer.segment(TestIssuer.claims(subject: "someone-else", now: h.clock.now))
                token = parts.joined(separator: ".")
            }
            let response = try await h.post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: token))
            #expect(response.status == .unauthorized)
            #expect(try h.decode(ErrorBody.self, response).check == expected.rawValue)
            #expect(try await h.counts() == [0, 0, 0])
        }
    }

    @Test func restartKeepsUsersSessionsAndChatts() async throws {
        try await withTemporaryDirectory { dir in
            let clock = TestClock()
            let issuer = try TestIssuer()
            let session = SessionBox()
            try await Harness.run(in: dir, clock: clock, issuer: issuer) { h async throws in
                let added = try await h.signIn()
                session.set(added.chatterID)
                #expect(try await h.post("/postauth", PostAuthRequest(chatterID: added.chatterID, message: "before")).status == .ok)
            }
            try await Harness.run(in: dir, clock: clock, issuer: issuer) { h async throws in
                #expect(try await h.post("/postauth", PostAuthRequest(chatterID: session.get(), message: "after")).status == .ok)
                #expect(try await h.timeline().map(\.message) == ["before", "after"])
                #expect(try await h.store.userCount() == 1)
                #expect(try await h.signIn().username == "Ada Lovelace")
                #expect(try await h.store.userCount() == 1)
            }
        }
    }
}

final class SessionBox: @unchecked Sendable {
    private var value = ""
    private let lock = NSLock()
    func set(_ v: String) { lock.withLock { value = v } }
    func get() -> String { lock.withLock { value } }
}
