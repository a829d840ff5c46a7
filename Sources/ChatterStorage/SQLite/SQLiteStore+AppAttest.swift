import ChatterCore
import Foundation

// App Attest keys say nothing about a session, so their writes keep the session cache.
extension SQLiteStore {
    public func storeAppAttestKey(_ key: AppAttestKeyRecord) async throws -> Bool {
        try await !write(
            """
            INSERT INTO app_attest_keys (key_id, app_id, public_key, counter, environment, created_at, last_used_at)
            VALUES (?, ?, ?, ?, ?, ?, NULL)
            ON CONFLICT (key_id) DO NOTHING RETURNING key_id
            """,
            [.bytes(key.keyID), .text(key.appID), .bytes(key.publicKey), .integer(Int(key.counter)), .text(key.environment), .time(key.createdAt)],
            keepsSessionCache: true
        ).isEmpty
    }

    public func appAttestKey(id: [UInt8]) async throws -> AppAttestKeyRecord? {
        guard let row = try await reader.query("SELECT * FROM app_attest_keys WHERE key_id = ?", [.bytes(id)]).first else { return nil }
        return AppAttestKeyRecord(
            keyID: row.column("key_id")?.blob ?? [], appID: row.column("app_id")?.string ?? "", publicKey: row.column("public_key")?.blob ?? [],
            counter: UInt32(clamping: row.column("counter")?.integer ?? 0), environment: row.column("environment")?.string ?? "",
            createdAt: try row.date("created_at"), lastUsedAt: row.column("last_used_at")?.double.map(Date.init(timeIntervalSince1970:)))
    }

    public func advanceAppAttestCounter(keyID: [UInt8], to counter: UInt32, at now: Date) async throws -> Bool {
        try await !write(
            "UPDATE app_attest_keys SET counter = ?1, last_used_at = ?2 WHERE key_id = ?3 AND counter < ?1 RETURNING key_id",
            [.integer(Int(counter)), .time(now), .bytes(keyID)], keepsSessionCache: true
        ).isEmpty
    }
}
