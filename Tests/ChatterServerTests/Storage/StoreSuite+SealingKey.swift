import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The sealing key's fingerprint on every backend: recorded once, whichever of many starts at once records
/// it, and what counts as sealed data.
extension StoreSuite {
    @Test(arguments: StoreBackend.available)
    func theSealingKeysFingerprintIsRecordedOnceAndSealedDataIsSeen(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            #expect(try await store.sealingKeyFingerprint() == nil)
            #expect(try await !store.holdsSealedData(), "a new database holds nothing sealed")
            let fingerprints = (0..<20).map { "fingerprint-\($0)" }
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for fingerprint in fingerprints { group.addTask { try await store.recordSealingKey(fingerprint: fingerprint, at: self.now) } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(answers).count == 1, "twenty starts at once agree on one key: \(Set(answers))")
            let kept = try #require(answers.first)
            #expect(fingerprints.contains(kept))
            #expect(try await store.sealingKeyFingerprint() == kept)
            #expect(try await store.recordSealingKey(fingerprint: "another", at: now) == kept, "a later key does not replace it")

            let user = try await store.signIn(ada)
            #expect(try await store.storePendingTOTP(userID: user.id, sealedSecret: [1], at: now))
            #expect(try await store.holdsSealedData(), "an enrolment waiting for its code is sealed data")
            try await store.deleteUser(id: user.id)
            #expect(try await !store.holdsSealedData())
            _ = try await enrolled(store)
            #expect(try await store.holdsSealedData())
        }
    }
}
