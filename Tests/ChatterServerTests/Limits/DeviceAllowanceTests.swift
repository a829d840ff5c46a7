import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Failures from elsewhere never lock the owner's device out (device tokens, as OWASP's device cookies),
/// and a stranger's code requests neither cancel the owner's code nor stop the owner's device.
@Suite(.tags(.bothDatabases)) struct DeviceAllowanceTests {
    static let password = "correct horse battery staple"
    let xff = ConcurrentLimitTests.forwardedFor

    func signIn(_ h: Harness, _ password: String, from ip: String, device: String? = nil) async throws -> LiveResponse {
        let body = String(
            decoding: try JSONEncoder().encode(PasswordSignInRequest(email: "ada@example.com", password: password, deviceToken: device)), as: UTF8.self)
        return try await h.post(NativePath.passwordSignIn, json: body, headers: [xff: ip])
    }

    @Test(arguments: StoreBackend.available) func anAttackersFailuresFromManyAddressesLeaveTheOwnersDeviceAbleToSignIn(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend, configure: { $0.trustedProxies = ["127.0.0.1", "::1"] }) { h async throws in
            let owner = try await h.passwordSignUp("ada@example.com", password: Self.password, ip: "192.0.2.10")
            let device = try #require(owner.deviceToken)
            let limits = SignInThrottle.Limits()
            // 1,200 guesses from 1,200 addresses over three hours (twelve 15-minute windows).
            var evaluated = 0
            for window in 0..<12 {
                let answers = try await h.parallel(100) { index in
                    try await signIn(h, "guess \(window)-\(index)", from: "198.51.\(window).\(index + 1)")
                }
                #expect(answers.count(.unauthorized) + answers.count(.tooManyRequests) == 100)
                #expect(answers.count(.unauthorized) <= limits.perAccount, "at most the per-account limit in one window")
                evaluated += answers.count(.unauthorized)
                h.clock.advance(by: limits.window)
            }
            #expect(evaluated <= limits.perAccountPerDay, "the daily bound holds however many addresses guess")
            #expect(evaluated == limits.perAccountPerDay)
            // The attacker's next guess is refused for the rest of the day; the owner's device signs in at once.
            #expect(try await signIn(h, "one more", from: "203.0.113.99").status == .tooManyRequests)
            #expect(try await signIn(h, Self.password, from: "192.0.2.10", device: device).status == .ok)
            // A token for another address, or a made-up one, is no device of this account.
            #expect(try await signIn(h, Self.password, from: "192.0.2.10", device: "made-up").status == .tooManyRequests)
        }
    }

    @Test(arguments: StoreBackend.available) func theDevicesOwnAllowanceIsLimitedToo(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let device = try #require(try await h.passwordSignUp("ada@example.com", password: Self.password).deviceToken)
            let answers = try await h.parallel(100) { index in try await signIn(h, "wrong \(index)", from: "192.0.2.1", device: device) }
            #expect(answers.count(.unauthorized) == SignInThrottle.Limits().perDevice)
            #expect(answers.count(.tooManyRequests) == 100 - SignInThrottle.Limits().perDevice)
        }
    }

    @Test(arguments: StoreBackend.available) func aStrangersRequestsNeitherCancelTheOwnersCodeNorStopTheOwnersDevice(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend, configure: { $0.trustedProxies = ["127.0.0.1", "::1"] }) { h async throws in
            let device = try #require(try await h.passwordSignUp("ada@example.com", password: Self.password).deviceToken)
            h.clock.advance(by: 3600)
            let ownersCode = try await h.requestCode("ada@example.com")
            // A stranger asks for codes for Ada's address from many addresses until the address's quota is gone.
            let answers = try await h.parallel(100) { index in
                try await h.post(
                    NativePath.emailCode, json: #"{"email":"ada@example.com"}"#, headers: [xff: "198.51.100.\(index + 1)"])
            }
            #expect(answers.count(.accepted) == 0, "the owner's request started a cooldown")
            h.clock.advance(by: 61)
            let more = try await h.post(NativePath.emailCode, json: #"{"email":"ada@example.com"}"#, headers: [xff: "198.51.101.1"])
            #expect(more.status == .tooManyRequests, "the stranger used up the address's hourly quota")
            // The owner's device still gets a code, and the owner's first code still works.
            let fromDevice = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com", deviceToken: device))
            #expect(fromDevice.status == .accepted)
            let verified = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: ownersCode))
            #expect(verified.status == .ok)
        }
    }

    @Test(arguments: StoreBackend.available) func signUpOnAnAddressWithAPasswordIsAResetThatEndsOtherSessions(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let first = try await h.passwordSignUp("ada@example.com", password: Self.password)
            h.clock.advance(by: 61)
            let second = try await h.passwordSignUp("ada@example.com", password: "another long passphrase")
            #expect(second.user.id == first.user.id)
            #expect(try await h.get(NativePath.me, bearer: first.accessToken).status == .unauthorized, "the earlier session ended")
            #expect(try await h.get(NativePath.me, bearer: second.accessToken).status == .ok)
            #expect(try await h.store.auditEvents(userID: first.user.id.uuid).contains { $0.event == "password_reset" })
            #expect(
                try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: "ada@example.com", password: Self.password)).status == .unauthorized)
        }
    }

    @Test(arguments: StoreBackend.available) func passwordChangeIsThrottledAndFailuresAreAudited(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await h.passwordSignUp("ada@example.com", password: Self.password)
            var statuses: [Int] = []
            for index in 0..<12 {
                let body = PasswordChangeRequest(currentPassword: "wrong \(index)", newPassword: "a brand new passphrase")
                statuses.append(try await h.post(NativePath.passwordChange, body, bearer: session.accessToken).status.code)
            }
            #expect(statuses == Array(repeating: 403, count: 10) + [429, 429])
            let failed = try await h.store.auditEvents(userID: session.user.id.uuid).filter { $0.event == "password_change_failed" }
            #expect(failed.count == 10)
        }
    }
}

extension String {
    var uuid: UUID? { UUID(uuidString: self) }
}

extension DeviceAllowanceTests {
    /// The limits are on failures: a right password hands its attempt back, so an owner who signs in
    /// often, even from several apps at once, is never throttled by it.
    @Test(arguments: StoreBackend.available) func anOwnerWhoSignsInOftenIsNeverThrottled(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            _ = try await h.passwordSignUp("ada@example.com", password: Self.password)
            for _ in 0..<15 { #expect(try await signIn(h, Self.password, from: "192.0.2.1").status == .ok) }
            let together = try await h.parallel(8) { _ in try await signIn(h, Self.password, from: "192.0.2.1") }
            #expect(together.count(.ok) == 8)
        }
    }
}
