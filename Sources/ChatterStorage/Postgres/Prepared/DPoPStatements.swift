import ChatterCore
import Foundation
import PostgresNIO

/// A batch of DPoP proofs' first uses (each proof once in a batch: `ProofUse.firstUses`): a new proof goes
/// in, one recorded before is taken again only once past, and a row comes back only then. On every request
/// a bound session makes.
package struct UseDPoPProofs: PreparedStatement {
    package static let sql = """
        INSERT INTO dpop_proofs (hash, expires_at) SELECT * FROM unnest($1::bytea[], $2::timestamptz[])
        ON CONFLICT (hash) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE dpop_proofs.expires_at <= $3
        RETURNING hash
        """
    package static let bindingDataTypes: [PostgresDataType] = [.byteaArray, .timestamptzArray, .timestamptz]
    package var proofs: [[UInt8]]
    package var until: [Date]
    package var now: Date

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 3)
        binds.append(proofs.map(\.bytea))
        binds.append(until)
        binds.append(now)
        return binds
    }
}
