import ChatterCore
import Foundation
import PostgresNIO

// App Attest keys say nothing about a session, so their writes keep the session cache.
extension PostgresStore {
    public func storeAppAttestKey(_ key: AppAttestKeyRecord) async throws -> Bool {
        try await !rows(
            """
            INSERT INTO app_attest_keys (key_id, app_id, public_key, counter, environment, created_at)
            VALUES (\(key.keyID.bytea), \(key.appID), \(key.publicKey.bytea), \(Int64(key.counter)), \(key.environment), \(key.createdAt))
            ON CONFLICT (key_id) DO NOTHING RETURNING key_id
            """, keepsSessionCache: true
        ).isEmpty
    }

    public func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord? {
        guard let row = try await rows("SELECT * FROM app_attest_keys WHERE key_id = \(id.bytea)", keepsSessionCache: true).first else { return nil }
        return AppAttestKeyRecord(
            keyID: try row.bytes("key_id"), appID: try row.value("app_id"), publicKey: try row.bytes("public_key"),
            counter: UInt32(clamping: try row.value("counter", as: Int64.self)), environment: try row.value("environment"),
            createdAt: try row.value("created_at"), lastUsedAt: try row.value("last_used_at"))
    }

    public func advanceAppAttestCounter(keyID: [UInt8], to counter: UInt32, at now: Date) async throws -> Bool {
        try await !rows(
            """
            UPDATE app_attest_keys SET counter = \(Int64(counter)), last_used_at = \(now)
            WHERE key_id = \(keyID.bytea) AND counter < \(Int64(counter)) RETURNING key_id
            """, keepsSessionCache: true
        ).isEmpty
    }
}
