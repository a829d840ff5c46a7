import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Issue 24, finding 2: 20 sign-ins gave 20 device tokens, and after a reset and "sign out everywhere"
/// the old tokens still allowed 200 password guesses and 20 code sends (21 live codes for one address).
/// Tokens now have a lifecycle: a few per address, kept by the device that presents one, ended with the
/// account's credentials and sessions, expired and purged; and what they allow is bounded per account.
@Suite(.tags(.bothDatabases)) struct DeviceLifecycleTests {
    static let password = "correct horse battery staple"

    func signIn(_ h: Harness, _ password: String = Self.password, device: String? = nil) async throws -> LiveResponse {
        try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: "ada@example.com", password: password, deviceToken: device))
    }

    func token(_ response: LiveResponse, _ h: Harness) throws -> String {
        try #require(try h.decode(SessionResponse.self, response).deviceToken)
    }

    /// Ada signs up, then signs in from as many devices as an address may have: their tokens.
    func fullHouse(_ h: Harness) async throws -> [String] {
        _ = try await h.passwordSignUp("ada@example.com", password: Self.password)
        var devices: [String] = []
        for _ in 0..<DeviceTokens.perAddress {
            h.clock.advance(by: 1)
            devices.append(try token(try await signIn(h), h))
        }
        return devices
    }

    func isDevice(_ token: String, _ h: Harness) async throws -> Bool {
        try await h.services.devices.device(token, for: "ada@example.com") != nil
    }

    @Test(arguments: StoreBackend.available) func anAddressKeepsAFewTokensAndADeviceKeepsItsOwn(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let first = try #require(try await h.passwordSignUp("ada@example.com", password: Self.password).deviceToken)
            var tokens = [first]
            for _ in 0..<19 {
                h.clock.advance(by: 1)
                tokens.append(try token(try await signIn(h), h))
            }
            var live = 0
            for token in tokens where try await isDevice(token, h) { live += 1 }
            #expect(live == DeviceTokens.perAddress, "20 sign-ins without a token leave the newest \(DeviceTokens.perAddress)")
            let newestLives = try await isDevice(tokens.last!, h)
            let firstLives = try await isDevice(first, h)
            #expect(newestLives && !firstLives, "the oldest went first")
            let kept = try token(try await signIn(h, device: tokens.last!), h)
            #expect(kept == tokens.last!, "a device presenting its live token keeps it")
            #expect(try await isDevice(tokens[tokens.count - DeviceTokens.perAddress], h), "and pushes out no other device")
        }
    }

    @Test(arguments: StoreBackend.available) func tokensEndWithTheCredentialsAndTheSessions(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let owner = try await h.passwordSignUp("ada@example.com", password: Self.password)
            let userID = try #require(UUID(uuidString: owner.user.id))
            func freshDevice() async throws -> String {
                h.clock.advance(by: 1)
                return try token(try await signIn(h), h)
            }

            // A reset: the old devices' tokens allow nothing more than a stranger's attempt.
            let beforeReset = try await freshDevice()
            h.clock.advance(by: 61)
            let code = try await h.requestCode("ada@example.com")
            let reset = try await h.post(
                NativePath.passwordReset, PasswordResetRequest(email: "ada@example.com", code: code, newPassword: "a new passphrase entirely"))
            #expect(reset.status == .ok)
            #expect(!(try await isDevice(beforeReset, h)), "a reset ends every device token")
            let afterReset = try token(reset, h)
            #expect(try await isDevice(afterReset, h), "the device that reset gets a new one")

            // Signing out everywhere, changing the password, an operator disabling or ending every session.
            let session = try h.decode(SessionResponse.self, try await signIn(h, "a new passphrase entirely", device: afterReset))
            #expect(try await h.post(NativePath.signOut, SignOutRequest(all: true), bearer: session.accessToken).status.code < 300)
            #expect(!(try await isDevice(afterReset, h)), "signing out everywhere ends them")

            h.clock.advance(by: 1)
            let changer = try h.decode(SessionResponse.self, try await signIn(h, "a new passphrase entirely"))
            let beforeChange = try #require(changer.deviceToken)
            let change = try await h.post(
                NativePath.passwordChange, PasswordChangeRequest(currentPassword: "a new passphrase entirely", newPassword: Self.password),
                bearer: changer.accessToken)
            #expect(change.status == .noContent)
            #expect(!(try await isDevice(beforeChange, h)), "a password change ends them")

            h.clock.advance(by: 1)
            let beforeAdmin = try token(try await signIn(h), h)
            _ = try await h.services.admin.endSessions(of: userID, by: .commandLine(login: "ops"))
            #expect(!(try await isDevice(beforeAdmin, h)), "an operator ending every session ends them")
            h.clock.advance(by: 1)
            let beforeDisable = try token(try await signIn(h), h)
            try await h.services.admin.setDisabled(true, userID: userID, by: .commandLine(login: "ops"))
            #expect(!(try await isDevice(beforeDisable, h)), "disabling ends them")
        }
    }

    @Test(arguments: StoreBackend.available) func tokensExpireAndArePurged(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let device = try #require(try await h.passwordSignUp("ada@example.com", password: Self.password).deviceToken)
            h.clock.advance(by: DeviceTokens.lifetime - 60)
            #expect(try await isDevice(device, h))
            h.clock.advance(by: 120)
            #expect(!(try await isDevice(device, h)), "past its lifetime a token proves nothing")
            let hash = SessionToken.hash(device)
            #expect(try await h.store.deviceTokenEmail(hash: hash, issuedAfter: .distantPast) == "ada@example.com")
            try await h.store.purgeStaleRecords(StoreService.cutoffs(at: h.clock.now, auditRetentionDays: nil))
            #expect(try await h.store.deviceTokenEmail(hash: hash, issuedAfter: .distantPast) == nil, "and the purge removes it")
        }
    }

    /// Five devices' allowances (10 each per 15 minutes) would be 50 guesses a quarter hour; the account's
    /// daily total for every device together bounds them.
    @Test(arguments: StoreBackend.available) func devicesTogetherCountTowardADailyTotal(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let devices = try await fullHouse(h)
            let limits = SignInThrottle.Limits()
            var evaluated = 0
            for window in 0..<8 {
                let answers = try await h.parallel(devices.count * limits.perDevice) { index in
                    try await signIn(h, "guess \(window)-\(index)", device: devices[index % devices.count])
                }
                evaluated += answers.count(.unauthorized)
                h.clock.advance(by: limits.window)
            }
            #expect(evaluated == limits.perAccountDevicesPerDay, "\(evaluated) guesses evaluated from \(devices.count) devices in two hours")
        }
    }

    /// Every scope together: a stranger's hourly quota and the owner's devices cannot pile up more live codes
    /// than `maximumLive` for one address.
    @Test(arguments: StoreBackend.available) func liveCodesPerAddressAreCappedAcrossEveryScope(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let devices = try await fullHouse(h)
            h.clock.advance(by: 61)
            var accepted = 0
            for round in 0..<4 {
                for device in [nil] + devices {
                    let answer = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com", deviceToken: device))
                    if answer.status == .accepted { accepted += 1 }
                }
                h.clock.advance(by: 61)
                _ = round
            }
            let live = try await h.store.emailCodes(for: "ada@example.com").filter { $0.expiresAt > h.clock.now }.count
            #expect(live <= EmailCodeService.Limits().maximumLive, "\(live) live codes")
            #expect(accepted == EmailCodeService.Limits().maximumLive, "\(accepted) codes sent in four minutes from six scopes")
        }
    }
}
