import ChatterCore
import Foundation
import PostgresNIO

/// A DPoP proof's first use: a new proof goes in, one recorded before is taken again only once past, and
/// a row comes back only then. On every request a bound session makes.
package struct UseDPoPProof: PreparedStatement {
    package static let sql = """
        INSERT INTO dpop_proofs (hash, expires_at) VALUES ($1, $2)
        ON CONFLICT (hash) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE dpop_proofs.expires_at <= $3
        RETURNING hash
        """
    package static let bindingDataTypes: [PostgresDataType] = [.bytea, .timestamptz, .timestamptz]
    package var hash: [UInt8]
    package var until: Date
    package var now: Date

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 3)
        binds.append(hash.bytea)
        binds.append(until)
        binds.append(now)
        return binds
    }
}
