import ChatterCore
import Foundation

extension SQLiteStore {
    /// One upsert on the writer: a new proof goes in; one recorded before is taken again only once past.
    public func useProof(_ proof: [UInt8], until: Date, at now: Date) async throws -> Bool {
        let rows = try await write(
            """
            INSERT INTO dpop_proofs (hash, expires_at) VALUES (?, ?)
            ON CONFLICT (hash) DO UPDATE SET expires_at = excluded.expires_at WHERE dpop_proofs.expires_at <= ?
            RETURNING hash
            """, [.bytes(proof), .time(until), .time(now)], keepsSessionCache: true)
        return !rows.isEmpty
    }
}
