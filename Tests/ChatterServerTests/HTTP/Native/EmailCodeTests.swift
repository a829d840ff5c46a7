import ChatterWire
import Crypto
import Foundation
import NIOPosix
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Password-less sign-in with emailed codes, over real HTTP and their limits.
@Suite struct EmailCodeTests {
    @Test func codeSignsInAndWorksOnce() async throws {
        try await Harness.run { h async throws in
            let code = try await h.requestCode("Ada@Example.com")
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            let response = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code))
            #expect(response.status == .ok)
            let session = try h.decode(SessionResponse.self, response)
            #expect(session.user.email == "ada@example.com")
            #expect(session.user.emailVerified)
            #expect(session.user.methods == ["email"])
            #expect(session.user.displayName == "ada", "a new account is named after its address")
            let again = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code))
            #expect(again.status == .unauthorized)
            #expect(try h.error(again).error == "invalid_code")
        }
    }

    @Test func codeExpiresAfterTenMinutes() async throws {
        try await Harness.run { h async throws in
            let code = try await h.requestCode("ada@example.com")
            h.clock.advance(by: 600)
            let response = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code))
            #expect(response.status == .unauthorized)
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func fiveWrongGuessesKillTheCode() async throws {
        try await Harness.run { h async throws in
            let code = try await h.requestCode("ada@example.com")
            let wrong = code == "000000" ? "000001" : "000000"
            for _ in 0..<5 {
                let guess = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: wrong))
                #expect(guess.status == .unauthorized)
            }
            // The right code no longer works: the guesses used it up.
            let right = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code))
            #expect(right.status == .unauthorized)
            #expect(try await h.store.userCount() == 0)
            #expect(try await h.store.sessionCount() == 0)
        }
    }

    @Test func resendWaitsForTheCooldown() async throws {
        try await Harness.run { h async throws in
            _ = try await h.requestCode("ada@example.com")
            let early = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com"))
            #expect(early.status == .tooManyRequests)
            #expect(Int(early.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(h.mail.count(to: "ada@example.com") == 1)
            h.clock.advance(by: 60)
            let first = h.mail.lastCode(to: "ada@example.com")
            let second = try await h.requestCode("ada@example.com")
            #expect(h.mail.count(to: "ada@example.com") == 2)
            // Asking again cancels nothing (a stranger could ask): the first code still works, once, and takes the second with it.
            let old = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: try #require(first)))
            #expect(old.status == .ok)
            if first != second {
                let newer = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: second))
                #expect(newer.status == .unauthorized)
            }
        }
    }

    @Test func perAddressLimitHolds() async throws {
        try await Harness.run { h async throws in
            for _ in 0..<5 {
                _ = try await h.requestCode("ada@example.com")
                h.clock.advance(by: 61)
            }
            let sixth = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com"))
            #expect(sixth.status == .tooManyRequests)
        }
    }

    @Test func perIPLimitHolds() async throws {
        try await Harness.run { h async throws in
            for index in 0..<20 { _ = try await h.requestCode("user\(index)@example.com") }
            let next = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "one-more@example.com"))
            #expect(next.status == .tooManyRequests)
        }
    }

    @Test func answerIsTheSameWithOrWithoutAnAccount() async throws {
        try await Harness.run { h async throws in
            _ = try await h.nativeSignIn(email: "known@example.com")
            let known = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "known@example.com"))
            let unknown = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "nobody@example.com"))
            #expect(known.status == unknown.status)
            #expect(String(buffer: known.body) == String(buffer: unknown.body))
            #expect(h.mail.count(to: "known@example.com") == 1)
            #expect(h.mail.count(to: "nobody@example.com") == 1)
        }
    }

    /// Threat model, Email codes: a code is kept only as an HMAC of its address and itself, under a key derived
    /// from the sealing key outside the database, so it is never in the database as it was sent, redeemed for
    /// another address it matches nothing, and someone who reads the database cannot find a live code by
    /// trying all 10^6 (the unkeyed hash they would try, SHA-256 of the address and the code, was stored before).
    @Test func aCodeIsStoredOnlyAsAKeyedHashBoundToItsAddress() async throws {
        try await Harness.run { h async throws in
            let code = try await h.requestCode("ada@example.com")
            let db = try SQLiteConnection.open(path: h.databasePath)
            let rows = try await db.query("SELECT * FROM email_codes")
            try await db.close()
            try #require(rows.count == 1)
            let stored = rows[0].column("code_hash")?.blob ?? []
            #expect(stored.count == 32)
            #expect(stored != Array(SHA256.hash(data: Array("ada@example.com\n\(code)".utf8))), "trying all 10^6 unkeyed finds nothing")
            let one = try SecretBox(key: [UInt8](repeating: 1, count: 32)).emailCodes
            let two = try SecretBox(key: [UInt8](repeating: 2, count: 32)).emailCodes
            #expect(one.hash(code, email: "ada@example.com") != two.hash(code, email: "ada@example.com"), "the key decides the hash")
            #expect(one.hash(code, email: "ada@example.com") == one.hash(code, email: "ada@example.com"))
            for (name, value) in zip(rows[0].columns.names, rows[0].values) {
                let text = value.string ?? value.blob.map { String(decoding: $0, as: UTF8.self) } ?? ""
                #expect(!text.contains(code), "\(name) holds the code as sent")
            }
            _ = try await h.requestCode("bob@example.com")
            let crossed = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "bob@example.com", code: code))
            #expect(crossed.status == .unauthorized, "ada's code is not bob's")
            #expect(try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code)).status == .ok)
        }
    }

    /// A transport's deliveries counted: how many were attempted and how many failed.
    final class CountedMail: MailTransport {
        let inner: any MailTransport
        let counts = Mutex((attempted: 0, failed: 0))
        init(inner: any MailTransport) { self.inner = inner }
        func send(_ message: MailMessage) async throws {
            counts.withLock { $0.attempted += 1 }
            do { try await inner.send(message) } catch {
                counts.withLock { $0.failed += 1 }
                throw error
            }
        }
    }

    /// Threat model, Mail: a delivery that fails (here a real SMTP transport whose server refuses the
    /// connection) leaves the answer the one a delivered code gets, so it tells the client nothing about the
    /// mailbox. (The failure's log line is not checked here.)
    @Test func aFailedDeliveryLeavesTheAnswerAsItIs() async throws {
        let answers = Mutex<[String]>([])
        try await Harness.run { h async throws in
            let answer = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com"))
            answers.withLock { $0.append("\(answer.status.code) \(String(buffer: answer.body))") }
            #expect(h.mail.count(to: "ada@example.com") == 1, "delivered")
        }
        let listener = try SilentListener(listening: false)
        defer { listener.close() }
        let refusing = CountedMail(inner: try SMTPMailFailureTests.transport(port: listener.port, group: .singleton))
        try await Harness.run(mailTransport: refusing) { h async throws in
            let answer = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com"))
            answers.withLock { $0.append("\(answer.status.code) \(String(buffer: answer.body))") }
        }
        let counts = refusing.counts.withLock { $0 }
        #expect(counts.attempted == 1 && counts.failed == 1, "the delivery was tried and failed: \(counts)")
        let both = answers.withLock { $0 }
        #expect(both.count == 2 && both[0] == both[1] && both[0].hasPrefix("2"), "\(both)")
    }

    @Test func verifiedAddressJoinsTheGoogleAccountWithThatVerifiedEmail() async throws {
        try await Harness.run { h async throws in
            let google = try await h.nativeSignIn(email: "ada@example.com")
            let code = try await h.requestCode("ada@example.com")
            let viaCode = try h.decode(SessionResponse.self, try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code)))
            #expect(viaCode.user.id == google.user.id)
            #expect(viaCode.user.methods == ["email", "google"])
        }
    }

    @Test(arguments: ["not-an-email", "a@b", "@example.com", "a b@example.com"])
    func malformedAddressesAreRefused(address: String) async throws {
        try await Harness.run { h async throws in
            let response = try await h.post(NativePath.emailCode, EmailCodeRequest(email: address))
            #expect(response.status == .badRequest)
            #expect(h.mail.messages.isEmpty)
        }
    }
}
