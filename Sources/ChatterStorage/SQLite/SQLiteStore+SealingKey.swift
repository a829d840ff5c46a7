import ChatterCore
import Foundation

extension SQLiteStore {
    public func sealingKeyFingerprint() async throws -> String? {
        try await reader.query("SELECT fingerprint FROM sealing_key").first?.column("fingerprint")?.string
    }

    public func recordSealingKey(fingerprint: String, at now: Date) async throws -> String {
        try await transaction(keepsSessionCache: true) { db in
            _ = try await db.query(
                "INSERT INTO sealing_key (id, fingerprint, recorded_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING", [.text(fingerprint), .time(now)])
            guard let recorded = try await db.query("SELECT fingerprint FROM sealing_key").first?.column("fingerprint")?.string else {
                throw StoreError.corruptRow("no sealing key fingerprint")
            }
            return recorded
        }
    }

    public func holdsSealedData() async throws -> Bool {
        try await !reader.query(
            """
            SELECT 1 WHERE EXISTS (SELECT 1 FROM totp_authenticators) OR EXISTS (SELECT 1 FROM recovery_codes) OR EXISTS (SELECT 1 FROM apple_tokens)
            """
        ).isEmpty
    }
}
