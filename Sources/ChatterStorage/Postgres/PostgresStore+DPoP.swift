import ChatterCore
import Foundation

extension PostgresStore {
    /// One upsert (`UseDPoPProof`): the primary key decides between instances presenting one proof at once.
    public func useProof(_ proof: [UInt8], until: Date, at now: Date) async throws -> Bool {
        !(try await rows(UseDPoPProof(hash: proof, until: until, now: now), keepsSessionCache: true)).isEmpty
    }
}
