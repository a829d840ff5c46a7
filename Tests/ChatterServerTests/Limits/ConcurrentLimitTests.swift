import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Every limit and single-use secret holds when many requests arrive at once: each test sends at least
/// 100 requests together over real HTTP and asserts on counts.
@Suite(.tags(.bothDatabases)) struct ConcurrentLimitTests {
    static let password = "correct horse battery staple"

    @Test(arguments: StoreBackend.available) func aCodeIsComparedAtMostFiveTimesHoweverManyGuessesArrive(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let code = try await h.requestCode("ada@example.com")
            let wrong = (0..<200).map { String(format: "%06d", $0) }.filter { $0 != code }.prefix(199)
            let guesses = Array(wrong) + [code]
            let answers = try await h.parallel(guesses.count) { index in
                try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: guesses[index]))
            }
            #expect(answers.count(.ok) + answers.count(.unauthorized) == guesses.count)
            #expect(answers.count(.ok) <= 1)
            // Either the right code was among the five compared and was used, or the five guesses are spent.
            let left = try await h.store.emailCodes(for: "ada@example.com")
            if answers.count(.ok) == 1 {
                #expect(left.isEmpty)
            } else {
                #expect(left.map(\.guesses) == [5])
                let late = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code))
                #expect(late.status == .unauthorized, "the right code after five guesses is refused")
            }
            #expect(try await h.store.sessionCount() == answers.count(.ok))
        }
    }

    @Test(arguments: StoreBackend.available) func oneCodeRedeemedByAHundredRequestsMakesOneSession(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let code = try await h.requestCode("ada@example.com")
            let answers = try await h.parallel(100) { _ in
                try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code))
            }
            #expect(answers.count(.ok) == 1)
            #expect(answers.count(.unauthorized) == 99)
            #expect(try await h.store.sessionCount() == 1)
            #expect(try await h.store.userCount() == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func aHundredCodeRequestsAtOnceSendOneCode(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend, configure: { $0.trustedProxies = ["127.0.0.1", "::1"] }) { h async throws in
            let answers = try await h.parallel(100) { index in
                try await h.post(NativePath.emailCode, json: #"{"email":"ada@example.com"}"#, headers: [Self.forwardedFor: "198.51.100.\(index + 1)"])
            }
            #expect(answers.count(.accepted) == 1, "one code per cooldown")
            #expect(answers.count(.tooManyRequests) == 99)
            #expect(h.mail.count(to: "ada@example.com") == 1)
            #expect(try await h.store.emailCodes(for: "ada@example.com").count == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func aHundredWrongPasswordsAtOnceEvaluateAtMostTheLimit(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            _ = try await h.passwordSignUp("ada@example.com", password: Self.password)
            let answers = try await h.parallel(100) { index in
                try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: "ada@example.com", password: "wrong guess \(index)"))
            }
            let evaluated = answers.count(.unauthorized)
            #expect(evaluated == SignInThrottle.Limits().perAccount)
            #expect(answers.count(.tooManyRequests) == 100 - evaluated)
            let failures = try await h.store.auditEvents(userID: nil).filter { $0.event == "sign_in_failed" && $0.method == "password" }
            #expect(failures.count == evaluated, "every evaluated guess, and only those, is audited")
        }
    }

    @Test(arguments: StoreBackend.available) func aWebHandoffLinkWorksOnceUnderConcurrency(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await h.nativeSignIn()
            let link = try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: session.accessToken))
            let answers = try await h.parallel(100) { _ in try await h.openInApp(link.url) }
            #expect(answers.count(.seeOther) == 1)
            #expect(answers.count(.unauthorized) == 99)
            #expect(try await h.store.sessionCount() == 2, "the native session and one web session")
        }
    }

    @Test(arguments: StoreBackend.available) func aHundredRefreshesOfOneTokenRotateOnceAndRetryOnce(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await h.nativeSignIn()
            let answers = try await h.parallel(100) { _ in try await h.post(NativePath.refresh, RefreshRequest(refreshToken: session.refreshToken)) }
            let pairs = try answers.filter { $0.status == .ok }.map { try h.decode(SessionResponse.self, $0) }
            // One rotation, its one grace retry (the same pair), and the next presentation is reuse: the family ends.
            #expect(pairs.count == 2)
            #expect(Set(pairs.map(\.refreshToken)).count == 1)
            #expect(answers.count(.unauthorized) == 98)
            #expect(try await h.store.sessionCount() == 0)
        }
    }

    @Test(arguments: StoreBackend.available) func postsRacingAnAccountDeletionAreRefusedNeverFailed(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await h.nativeSignIn()
            let answers = try await h.parallel(101) { index in
                if index == 50 { return try await h.delete(NativePath.me, bearer: session.accessToken) }
                return try await h.post(NativePath.chatts, NewChattRequest(message: "racing \(index)"), bearer: session.accessToken)
            }
            #expect(answers.allSatisfy { $0.status.code < 500 }, "\(answers.map(\.status.code).filter { $0 >= 500 })")
            #expect(try await h.store.userCount() == 0)
            #expect(try await h.store.chattCount() == 0, "the account's chatts went with it")
        }
    }
}

extension Harness {
    func passwordSignUp(_ email: String, password: String, ip: String? = nil) async throws -> SessionResponse {
        let code = try await requestCode(email)
        let response = try await post(
            NativePath.passwordSignUp,
            json: try String(
                decoding: JSONEncoder().encode(PasswordSignUpRequest(email: email, code: code, password: password, displayName: "Ada")), as: UTF8.self),
            headers: ip.map { [ConcurrentLimitTests.forwardedFor: $0] } ?? [:])
        try #require(response.status == .ok, "sign-up failed: \(String(buffer: response.body))")
        return try decode(SessionResponse.self, response)
    }
}

extension ConcurrentLimitTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}
