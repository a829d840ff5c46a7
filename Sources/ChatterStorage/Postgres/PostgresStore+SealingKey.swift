import ChatterCore
import Foundation
import PostgresNIO

/// Asked at start, before the pool runs: each over a connection of its own.
extension PostgresStore {
    public func sealingKeyFingerprint() async throws -> String? {
        try await withOwnConnection { db in try await Self.fingerprint(db, logger: logger) }
    }

    package static func fingerprint(_ db: PostgresConnection, logger: Logger) async throws -> String? {
        try await db.rows("SELECT fingerprint FROM sealing_key", logger: logger).first.map { try $0.value("fingerprint") }
    }

    public func recordSealingKey(fingerprint: String, at now: Date) async throws -> String {
        try await withOwnConnection { db in
            try await db.rows(
                "INSERT INTO sealing_key (id, fingerprint, recorded_at) VALUES (1, \(fingerprint), \(now)) ON CONFLICT (id) DO NOTHING", logger: logger)
            // The row this start inserted, or the one another instance inserted first.
            guard let recorded = try await Self.fingerprint(db, logger: logger) else { throw StoreError.corruptRow("no sealing key fingerprint") }
            return recorded
        }
    }

    public func holdsSealedData() async throws -> Bool {
        try await withOwnConnection { db in
            try await !db.rows(
                """
                SELECT 1 WHERE EXISTS (SELECT 1 FROM totp_authenticators) OR EXISTS (SELECT 1 FROM recovery_codes) OR EXISTS (SELECT 1 FROM apple_tokens)
                """, logger: logger
            ).isEmpty
        }
    }
}
