import ChatterWire
import Foundation
import NIOPosix
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Email and password sign-in (F2) and NIST SP 800-63B-4 password rules.
@Suite struct PasswordTests {
    static let good = "correct horse battery staple"

    func signUp(_ h: Harness, _ email: String = "ada@example.com", password: String = good) async throws -> SessionResponse {
        let code = try await h.requestCode(email)
        let response = try await h.post(NativePath.passwordSignUp, PasswordSignUpRequest(email: email, code: code, password: password, displayName: "Ada"))
        try #require(response.status == .ok, "sign-up failed: \(String(buffer: response.body))")
        return try h.decode(SessionResponse.self, response)
    }

    /// The status code of a password sign-in.
    func signIn(_ h: Harness, _ password: String, email: String = "ada@example.com") async throws -> Int {
        try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: password)).status.code
    }

    @Test func signUpThenSignIn() async throws {
        try await Harness.run { h async throws in
            let session = try await signUp(h)
            #expect(session.user.displayName == "Ada")
            #expect(session.user.methods == ["email", "password"])
            #expect(try await signIn(h, Self.good) == 200)
            #expect(try await signIn(h, Self.good, email: "ADA@example.com") == 200, "addresses are case-insensitive")
            #expect(try await signIn(h, "wrong password entirely") == 401)
        }
    }

    @Test func policyIsPublishedAndMatchesTheRules() async throws {
        try await Harness.run(configure: { $0.minimumPasswordLength = 10 }) { h async throws in
            let policy = try h.decode(PasswordPolicy.self, try await h.get(NativePath.passwordPolicy))
            #expect(policy.minimumLength == 10)
            #expect(policy.maximumLength >= 64)
            #expect(policy.blocksCommonPasswords)
        }
    }

    @Test(arguments: [
        ("short", "Use at least 8"), ("password123", "too common"), ("qwertyuiop", "too common"), ("ada@example.com", "email"),
    ])
    func weakPasswordsAreRefusedWithAReason(password: String, reason: String) async throws {
        try await Harness.run { h async throws in
            let code = try await h.requestCode("ada@example.com")
            let response = try await h.post(NativePath.passwordSignUp, PasswordSignUpRequest(email: "ada@example.com", code: code, password: password))
            #expect(response.status == .badRequest)
            #expect(try h.error(response).error == "weak_password")
            #expect(try h.error(response).message.contains(reason))
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func lengthCountsCharactersAndLongPassphrasesWork() async throws {
        try await Harness.run { h async throws in
            // Seven emoji are 28 bytes but seven characters: too short. 64 characters are allowed.
            let code = try await h.requestCode("ada@example.com")
            let short = try await h.post(NativePath.passwordSignUp, PasswordSignUpRequest(email: "ada@example.com", code: code, password: "🔑🔑🔑🔑🔑🔑🔑"))
            #expect(short.status == .badRequest)
            let long = String(repeating: "ü", count: 64)
            _ = try await signUp(h, "bob@example.com", password: long)
            #expect(try await signIn(h, long, email: "bob@example.com") == 200)
        }
    }

    /// Threat model, Passwords: over 1,024 bytes is refused before any hashing. The hasher here has a pool
    /// that never started, so a request that reached it fails with a 5xx; a 4xx means no hash was asked for.
    @Test func hugePasswordsAreRefusedBeforeAnyHashing() async throws {
        let neverStarted = NIOThreadPool(numberOfThreads: 1)
        try await Harness.run(hasher: PasswordHasher(cost: 4, pool: neverStarted)) { h async throws in
            let huge = String(repeating: "ä", count: 513)  // 513 characters, 1,026 bytes
            let code = try await h.requestCode("ada@example.com")
            let signUp = try await h.post(NativePath.passwordSignUp, PasswordSignUpRequest(email: "ada@example.com", code: code, password: huge))
            #expect(signUp.status == .badRequest)
            #expect(try h.error(signUp).error == "weak_password" && h.error(signUp).message.contains("at most"))
            #expect(try await h.store.userCount() == 0)
            for password in [huge, String(repeating: "x", count: 60_000)] {
                #expect(try await signIn(h, password, email: "nobody@example.com") == 401)
            }
            #expect(try await signIn(h, Self.good, email: "nobody@example.com") >= 500, "a password within the limit is hashed (against the decoy)")
        }
    }

    @Test func passwordsSharingTheirFirst72BytesAreToldApart() async throws {
        try await Harness.run { h async throws in
            let prefix = String(repeating: "a", count: 72)
            _ = try await signUp(h, password: prefix + "-one")
            #expect(try await signIn(h, prefix + "-one") == 200)
            #expect(try await signIn(h, prefix + "-two") == 401, "bcrypt alone would accept this")
            #expect(try await signIn(h, prefix) == 401)
        }
    }

    @Test func unknownAccountAndWrongPasswordLookAlike() async throws {
        try await Harness.run { h async throws in
            _ = try await signUp(h)
            let unknown = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: "nobody@example.com", password: Self.good))
            let wrong = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: "ada@example.com", password: "not the password"))
            #expect(unknown.status == wrong.status)
            #expect(String(buffer: unknown.body) == String(buffer: wrong.body))
        }
    }

    /// Unknown accounts are checked against a decoy hash, so they cost what a wrong password costs.
    /// Samples alternate between the two so that load from other tests weighs on both alike; without the
    /// decoy the ratio would be near 0.05 (a database read against a bcrypt verification).
    /// Its hasher has a pool of its own, so other tests' hashing does not queue in front of one side. Cost 10,
    /// a quarter of production's: the decoy has the hasher's cost, and a read is still 1/50 of a hash.
    @Test func unknownAccountTakesAsLongAsAWrongPassword() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        try await Harness.run(hasher: PasswordHasher(cost: 10, pool: pool)) { h async throws in
            _ = try await signUp(h)
            func timed(_ email: String) async throws -> Double {
                let start = ContinuousClock.now
                _ = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: "not the password"))
                let elapsed = ContinuousClock.now - start
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            // Each pair is measured back to back, so the load other tests put on the machine weighs on both of
            // its halves alike; the median of the pairs' ratios is what is compared.
            var wrong: [Double] = []
            var unknown: [Double] = []
            var ratios: [Double] = []
            for _ in 0..<9 {
                wrong.append(try await timed("ada@example.com"))
                unknown.append(try await timed("nobody@example.com"))
                ratios.append(unknown.last! / wrong.last!)
            }
            let ratio = ratios.sorted()[4]
            print("password timing (median of 9): wrong password \(wrong.sorted()[4]) s, unknown account \(unknown.sorted()[4]) s, median pair ratio \(ratio)")
            #expect(ratio > 0.5 && ratio < 2, "unknown-account sign-in should cost about what a wrong password costs (ratio \(ratio))")
        }
    }

    @Test func productionDefaultCostIsAtLeast12() {
        #expect(ServerConfiguration().bcryptCost >= 12)
        let hash = PasswordHasher(cost: 12).decoyForTesting
        #expect(["$2b$12$", "$2a$12$", "$2y$12$"].contains { hash.hasPrefix($0) }, "the hash records its cost")
    }

    @Test func repeatedFailuresAreThrottledThenReleased() async throws {
        try await Harness.run { h async throws in
            _ = try await signUp(h)
            for _ in 0..<10 { #expect(try await signIn(h, "wrong guess \(UUID())") == 401) }
            #expect(try await signIn(h, Self.good) == 429, "even the right password waits out the pause")
            h.clock.advance(by: 15 * 60)
            #expect(try await signIn(h, Self.good) == 200, "the owner is not locked out for long")
        }
    }

    @Test func changingThePasswordRevokesOtherSessions() async throws {
        try await Harness.run { h async throws in
            let first = try await signUp(h)
            let second = try h.decode(
                SessionResponse.self, try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: "ada@example.com", password: Self.good)))
            let change = try await h.post(
                NativePath.passwordChange, PasswordChangeRequest(currentPassword: Self.good, newPassword: "a brand new passphrase"), bearer: second.accessToken)
            #expect(change.status == .noContent)
            #expect(try await h.get(NativePath.me, bearer: first.accessToken).status == .unauthorized)
            #expect(try await h.get(NativePath.me, bearer: second.accessToken).status == .ok)
            #expect(try await signIn(h, Self.good) == 401)
            #expect(try await signIn(h, "a brand new passphrase") == 200)
            let events = try await h.store.auditEvents(userID: nil).map(\.event)
            #expect(events.contains("password_changed"))
        }
    }

    @Test func wrongCurrentPasswordChangesNothing() async throws {
        try await Harness.run { h async throws in
            let session = try await signUp(h)
            let change = try await h.post(
                NativePath.passwordChange, PasswordChangeRequest(currentPassword: "nope nope nope", newPassword: "a brand new passphrase"),
                bearer: session.accessToken)
            #expect(change.status == .forbidden)
            #expect(try await signIn(h, Self.good) == 200)
        }
    }

    @Test func forgotPasswordResetsAndRevokesEverySession() async throws {
        try await Harness.run { h async throws in
            let old = try await signUp(h)
            h.clock.advance(by: 61)
            let code = try await h.requestCode("ada@example.com")
            let reset = try await h.post(NativePath.passwordReset, PasswordResetRequest(email: "ada@example.com", code: code, newPassword: "my new passphrase"))
            #expect(reset.status == .ok)
            #expect(try await h.get(NativePath.me, bearer: old.accessToken).status == .unauthorized)
            #expect(try await signIn(h, "my new passphrase") == 200)
            #expect(try await signIn(h, Self.good) == 401)
        }
    }

    @Test func resetWithAWrongCodeChangesNothing() async throws {
        try await Harness.run { h async throws in
            _ = try await signUp(h)
            let reset = try await h.post(
                NativePath.passwordReset, PasswordResetRequest(email: "ada@example.com", code: "123456", newPassword: "my new passphrase"))
            #expect(reset.status == .unauthorized)
            #expect(try await signIn(h, Self.good) == 200)
        }
    }
}

extension PasswordHasher {
    var decoyForTesting: String { decoy }
}
