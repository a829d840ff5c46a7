import ChatterCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Batched with the proofs arriving together (`UseDPoPProofs`): the primary key decides between
    /// instances presenting one proof at once.
    public func useProof(_ proof: [UInt8], until: Date, at now: Date) async throws -> Bool {
        try await proofUses.value(for: ProofUse(proof: proof, until: until, now: now)) ?? false
    }

    package static func recordProofs(_ batch: [ProofUse], on client: PostgresClient, logger: Logger) async throws -> [ProofUse: Bool] {
        let (first, repeated) = ProofUse.firstUses(batch)
        guard let now = first.map(\.now).min() else { return ProofUse.answers(first, repeated, written: []) }
        let rows = try await rows(UseDPoPProofs(proofs: first.map(\.proof), until: first.map(\.until), now: now), on: client, logger: logger)
        return ProofUse.answers(first, repeated, written: Set(try rows.map { try $0.bytes("hash") }))
    }
}
