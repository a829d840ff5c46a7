import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// App Attest keys on every backend: a key ID kept once, whichever of many attestations at once keeps it, and a
/// counter that only climbs, one assertion at a time, however many show the same counter at once.
extension StoreSuite {
    @Test(arguments: StoreBackend.available)
    func anAppAttestKeyIsKeptOnceAndItsCounterOnlyClimbs(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let keyID = Array(repeating: UInt8(9), count: 32)
            let keys = (0..<20).map { index in
                AppAttestKeyRecord(
                    keyID: keyID, appID: "ABCDE12345.com.example.chatter", publicKey: [4] + Array(repeating: UInt8(index), count: 64),
                    environment: "production", createdAt: self.now)
            }
            let kept = try await withThrowingTaskGroup(of: Bool.self) { group in
                for key in keys { group.addTask { try await store.storeAppAttestKey(key) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(kept == 1, "one of twenty attestations of one key ID is kept")
            let stored = try #require(try await store.appAttestKey(id: keyID))
            #expect(keys.contains(stored))
            #expect(stored.counter == 0 && stored.lastUsedAt == nil)
            #expect(try await store.appAttestKey(id: Array(repeating: 1, count: 32)) == nil)

            // Forty assertions showing counter 1 at once: one advances it.
            let advanced = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 { group.addTask { try await store.advanceAppAttestCounter(keyID: keyID, to: 1, at: self.now) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(advanced == 1)
            #expect(try await store.advanceAppAttestCounter(keyID: keyID, to: 1, at: now) == false, "the same counter again")
            #expect(try await store.advanceAppAttestCounter(keyID: keyID, to: 5, at: now.addingTimeInterval(10)))
            #expect(try await store.advanceAppAttestCounter(keyID: keyID, to: 3, at: now) == false, "a counter gone back")
            #expect(try await store.advanceAppAttestCounter(keyID: Array(repeating: 1, count: 32), to: 1, at: now) == false, "an unknown key")
            let later = try #require(try await store.appAttestKey(id: keyID))
            #expect(later.counter == 5 && later.lastUsedAt == now.addingTimeInterval(10))
            #expect(later.publicKey == stored.publicKey, "the key itself never changes")
        }
    }

    @Test(arguments: StoreBackend.available)
    func aSessionRecordsTheInstallThatVouchedForIt(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            var (vouched, _, _) = session(for: user)
            vouched.client.attested = AttestedInstall(keyID: Array(repeating: 7, count: 32), appID: "ABCDE12345.com.example.chatter")
            try await store.createSession(vouched)
            let (plain, _, _) = session(for: user)
            try await store.createSession(plain)
            let listed = Dictionary(uniqueKeysWithValues: try await store.sessions(of: user.id).map { ($0.id, $0.attestedApp) })
            #expect(listed[vouched.id] == .some("ABCDE12345.com.example.chatter"))
            #expect(listed[plain.id] == .some(nil))
        }
    }

    /// `mayCreate: false` (the sign-up gate) refuses only what would create a user, in the transaction that would: an
    /// account that exists, or one a verified address links to, still signs in.
    @Test(arguments: StoreBackend.available)
    func aClosedSignUpRefusesOnlyNewAccountsAndCreatesNothing(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let ada = try await store.signIn(.email("ada@example.com"), email: "ada@example.com", verified: true)
            func closed(_ claims: IdentityClaims) async throws -> User {
                try await store.signIn(claims, fallbackName: "Closed", at: now, mayCreate: false)
            }
            #expect(try await closed(IdentityClaims(key: .email("ada@example.com"), email: "ada@example.com", emailVerified: true)).id == ada.id)
            let linked = try await closed(
                IdentityClaims(key: IdentityKey(issuer: "https://accounts.google.com", subject: "ada"), email: "ada@example.com", emailVerified: true))
            #expect(linked.id == ada.id, "a verified address links to the account it names")
            await #expect(throws: AppAttestError.required) {
                _ = try await closed(IdentityClaims(key: .email("eve@example.com"), email: "eve@example.com", emailVerified: true))
            }
            #expect(try await store.userCount() == 1)
            #expect(try await store.user(for: .email("eve@example.com")) == nil)
        }
    }

    /// Keys go 30 days after an attestation no sign-in used, or long after their last sign-in; the rest stay.
    @Test(arguments: StoreBackend.available)
    func appAttestKeysNoInstallUsesArePurged(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            func key(_ byte: UInt8, createdDaysAgo: Double, usedDaysAgo: Double?) async throws -> [UInt8] {
                let id = Array(repeating: byte, count: 32)
                let created = now.addingTimeInterval(-createdDaysAgo * 86_400)
                #expect(
                    try await store.storeAppAttestKey(
                        AppAttestKeyRecord(keyID: id, appID: "ABCDE12345.com.example.chatter", publicKey: [4], environment: "production", createdAt: created)))
                if let usedDaysAgo { #expect(try await store.advanceAppAttestCounter(keyID: id, to: 1, at: now.addingTimeInterval(-usedDaysAgo * 86_400))) }
                return id
            }
            let neverUsed = try await key(1, createdDaysAgo: 31, usedDaysAgo: nil)
            let justAttested = try await key(2, createdDaysAgo: 29, usedDaysAgo: nil)
            let longIdle = try await key(3, createdDaysAgo: 500, usedDaysAgo: 401)
            let inUse = try await key(4, createdDaysAgo: 500, usedDaysAgo: 1)
            try await store.purgeStaleRecords(StoreService.cutoffs(at: now, auditRetentionDays: nil))
            #expect(try await store.appAttestKey(id: neverUsed) == nil)
            #expect(try await store.appAttestKey(id: longIdle) == nil)
            #expect(try await store.appAttestKey(id: justAttested) != nil)
            #expect(try await store.appAttestKey(id: inUse) != nil)
        }
    }
}
