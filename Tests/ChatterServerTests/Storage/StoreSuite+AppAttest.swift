import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
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
}
