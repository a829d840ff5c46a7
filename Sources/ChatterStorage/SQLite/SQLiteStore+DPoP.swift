import ChatterCore
import Foundation

extension SQLiteStore {
    /// Batched with the proofs arriving together (`recordProofs`).
    public func useProof(_ proof: [UInt8], until: Date, at now: Date) async throws -> Bool {
        try await proofUses.value(for: ProofUse(proof: proof, until: until, now: now)) ?? false
    }

    /// One upsert on the writer for a batch: a new proof goes in; one recorded before is taken again only
    /// once past (by the batch's earliest clock, so never early); the rows returned are the first uses.
    package static func recordProofs(_ batch: [ProofUse], on writer: SQLiteConnection, lock: AsyncMutex) async throws -> [ProofUse: Bool] {
        let (first, repeated) = ProofUse.firstUses(batch)
        guard let now = first.map(\.now).min() else { return ProofUse.answers(first, repeated, written: []) }
        let rows = try await lock.withLock {
            try await writer.query(
                """
                INSERT INTO dpop_proofs (hash, expires_at) VALUES \(Array(repeating: "(?, ?)", count: first.count).joined(separator: ", "))
                ON CONFLICT (hash) DO UPDATE SET expires_at = excluded.expires_at WHERE dpop_proofs.expires_at <= ?
                RETURNING hash
                """, first.flatMap { [.bytes($0.proof), .time($0.until)] as [SQLiteData] } + [.time(now)])
        }
        return ProofUse.answers(first, repeated, written: Set(rows.compactMap { $0.column("hash")?.blob }))
    }
}
