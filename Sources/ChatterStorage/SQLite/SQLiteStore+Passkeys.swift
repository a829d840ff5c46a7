import ChatterCore
import Foundation

// Passkeys say nothing about a session, so their writes keep the session cache.
extension SQLiteStore {
    public func storePasskeyChallenge(_ challenge: PasskeyChallenge) async throws {
        _ = try await write(
            """
            INSERT INTO passkey_challenges (hash, purpose, user_id, email, user_handle, user_verification, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .bytes(challenge.hash), .text(challenge.purpose.rawValue), challenge.userID.map(SQLiteData.uuid) ?? .null,
                challenge.email.map(SQLiteData.text) ?? .null, challenge.userHandle.map(SQLiteData.bytes) ?? .null,
                .text(challenge.userVerification.rawValue), .time(challenge.expiresAt),
            ], keepsSessionCache: true)
    }

    public func takePasskeyChallenge(hash: [UInt8], at now: Date) async throws -> PasskeyChallenge? {
        guard let row = try await passkeyChallengeTakes.value(for: PasskeyChallengeTake(hash: hash)) else { return nil }
        let challenge = try Self.challenge(row)
        return now < challenge.expiresAt ? challenge : nil
    }

    /// One `DELETE … RETURNING` for every challenge a batch presents. Each deleted row goes to one taker
    /// only: of several requests presenting one challenge, in one batch or in several, one gets it.
    package static func takeChallenges(_ batch: [PasskeyChallengeTake], on writer: SQLiteConnection, lock: AsyncMutex) async throws
        -> [PasskeyChallengeTake: SQLiteRow]
    {
        let hashes = Array(Set(batch.map(\.hash)))
        let rows = try await lock.withLock {
            try await writer.query(
                "DELETE FROM passkey_challenges WHERE hash IN (\(Array(repeating: "?", count: hashes.count).joined(separator: ", "))) RETURNING *",
                hashes.map(SQLiteData.bytes))
        }
        var deleted = Dictionary(rows.map { ($0.column("hash")?.blob ?? [], $0) }, uniquingKeysWith: { first, _ in first })
        var taken: [PasskeyChallengeTake: SQLiteRow] = [:]
        for take in batch {
            if let row = deleted.removeValue(forKey: take.hash) { taken[take] = row }
        }
        return taken
    }

    package static func challenge(_ row: SQLiteRow) throws -> PasskeyChallenge {
        guard let purpose = row.column("purpose")?.string.flatMap(PasskeyChallenge.Purpose.init(rawValue:)),
            let verification = row.column("user_verification")?.string.flatMap(UserVerification.init(rawValue:))
        else { throw StoreError.corruptRow("passkey_challenges.purpose or user_verification") }
        return PasskeyChallenge(
            hash: row.column("hash")?.blob ?? [], purpose: purpose,
            userID: row.column("user_id")?.string == nil ? nil : try row.uuid("user_id"), email: row.column("email")?.string,
            userHandle: row.column("user_handle")?.blob, userVerification: verification,
            expiresAt: try row.date("expires_at"))
    }

    public func passkeyUserHandle(userID: UUID, candidate: [UInt8]) async throws -> [UInt8] {
        try await transaction(keepsSessionCache: true) { db in
            _ = try await db.query(
                "INSERT INTO passkey_user_handles (user_id, handle) SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM users WHERE id = ?1) ON CONFLICT (user_id) DO NOTHING",
                [.uuid(userID), .bytes(candidate)])
            guard let handle = try await db.query("SELECT handle FROM passkey_user_handles WHERE user_id = ?", [.uuid(userID)]).first?.column("handle")?.blob
            else { throw StoreError.userGone }
            return handle
        }
    }

    public func passkeyUser(handle: [UInt8]) async throws -> UUID? {
        guard let row = try await reader.query("SELECT user_id FROM passkey_user_handles WHERE handle = ?", [.bytes(handle)]).first else { return nil }
        return try row.uuid("user_id")
    }

    public func insertPasskey(_ passkey: PasskeyRecord) async throws -> Bool {
        try await transaction(keepsSessionCache: true) { db in
            guard try await !db.query("SELECT 1 FROM users WHERE id = ?", [.uuid(passkey.userID)]).isEmpty else { throw StoreError.userGone }
            let inserted = try await db.query(
                """
                INSERT INTO passkeys (credential_id, user_id, public_key, sign_count, aaguid, backup_eligible, backed_up, transports,
                    attestation_format, name, created_at, last_used_at, flagged)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0)
                ON CONFLICT (credential_id) DO NOTHING RETURNING credential_id
                """,
                [
                    .bytes(passkey.credentialID), .uuid(passkey.userID), .bytes(passkey.publicKey), .integer(Int(passkey.signCount)),
                    .bytes(passkey.aaguid), .bool(passkey.backupEligible), .bool(passkey.backedUp), .text(passkey.transports.joined(separator: ",")),
                    .text(passkey.attestationFormat), .text(passkey.name), .time(passkey.createdAt),
                ])
            return !inserted.isEmpty
        }
    }

    public func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? {
        try await reader.query("SELECT * FROM passkeys WHERE credential_id = ?", [.bytes(credentialID)]).first.map(Self.passkey)
    }

    public func passkeyOwner(credentialID: [UInt8]) async throws -> PasskeyOwner? {
        try await passkeyOwners.value(for: credentialID)
    }

    /// The passkeys, accounts, account summaries and handles of the sign-ins that arrive together, in one
    /// read on a reader (a passkey's row once per identity of its account, oldest first).
    package static func owners(_ reader: SQLiteConnection, credentialIDs: [[UInt8]]) async throws -> [[UInt8]: PasskeyOwner] {
        let rows = try await reader.query(
            """
            SELECT p.*, h.handle, \(userColumns), EXISTS (SELECT 1 FROM passwords w WHERE w.user_id = p.user_id) AS has_password,
                i.issuer, i.subject, i.email, i.email_verified
            FROM passkeys p
            JOIN passkey_user_handles h ON h.user_id = p.user_id JOIN users u ON u.id = p.user_id LEFT JOIN identities i ON i.user_id = p.user_id
            WHERE p.credential_id IN (\(Array(repeating: "?", count: credentialIDs.count).joined(separator: ", ")))
            ORDER BY i.created_at
            """, credentialIDs.map(SQLiteData.bytes))
        var owners: [[UInt8]: PasskeyOwner] = [:]
        for row in rows {
            let id = row.column("credential_id")?.blob ?? []
            var owner =
                try owners[id]
                ?? PasskeyOwner(
                    passkey: Self.passkey(row), userHandle: row.column("handle")?.blob ?? [], user: User(row: row),
                    account: AccountSummary(identities: [], hasPassword: row.column("has_password")?.bool == true, hasPasskey: true))
            if row.column("issuer")?.string != nil { owner.account.identities.append(try Identity(row: row)) }
            owners[id] = owner
        }
        return owners
    }

    public func passkeys(of userID: UUID) async throws -> [PasskeyRecord] {
        try await reader.query("SELECT * FROM passkeys WHERE user_id = ? ORDER BY created_at, credential_id", [.uuid(userID)]).map(Self.passkey)
    }

    package static func passkey(_ row: SQLiteRow) throws -> PasskeyRecord {
        func bytes(_ column: String) -> [UInt8] { row.column(column)?.blob ?? [] }
        let transports = row.column("transports")?.string ?? ""
        return PasskeyRecord(
            credentialID: bytes("credential_id"), userID: try row.uuid("user_id"), publicKey: bytes("public_key"),
            signCount: UInt32(clamping: row.column("sign_count")?.integer ?? 0), aaguid: bytes("aaguid"),
            backupEligible: row.column("backup_eligible")?.integer == 1, backedUp: row.column("backed_up")?.integer == 1,
            transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
            attestationFormat: row.column("attestation_format")?.string ?? "", name: row.column("name")?.string ?? "",
            createdAt: try row.date("created_at"), lastUsedAt: row.column("last_used_at")?.double.map(Date.init(timeIntervalSince1970:)),
            flagged: row.column("flagged")?.integer == 1)
    }

    public func recordPasskeyUse(credentialID: [UInt8], signCount: UInt32, backedUp: Bool, at now: Date) async throws -> Bool {
        try await passkeyUses.value(for: PasskeyUse(credentialID: credentialID, signCount: signCount, backedUp: backedUp, at: now)) ?? false
    }

    /// The counters of a batch of sign-ins: one conditional `UPDATE … FROM (VALUES …)` per round of
    /// `PasskeyUse.rounds` (one, unless the batch names a passkey twice).
    package static func recordUses(_ batch: [PasskeyUse], on writer: SQLiteConnection, lock: AsyncMutex) async throws -> [PasskeyUse: Bool] {
        try await lock.withLock {
            var stored: [PasskeyUse: Bool] = [:]
            for round in PasskeyUse.rounds(batch) {
                let rows = try await writer.query(
                    """
                    UPDATE passkeys SET sign_count = v.column2, backed_up = v.column3, last_used_at = v.column4
                    FROM (VALUES \(Array(repeating: "(?, ?, ?, ?)", count: round.count).joined(separator: ", "))) AS v
                    WHERE passkeys.credential_id = v.column1
                        AND (passkeys.sign_count < v.column2 OR (passkeys.sign_count = 0 AND v.column2 = 0))
                    RETURNING passkeys.credential_id
                    """,
                    round.flatMap { [.bytes($0.credentialID), .integer(Int($0.signCount)), .bool($0.backedUp), .time($0.at)] })
                let moved = Set(rows.map { $0.column("credential_id")?.blob ?? [] })
                for use in round { stored[use] = moved.contains(use.credentialID) }
            }
            return stored
        }
    }

    public func flagPasskey(credentialID: [UInt8]) async throws {
        _ = try await write("UPDATE passkeys SET flagged = 1 WHERE credential_id = ?", [.bytes(credentialID)], keepsSessionCache: true)
    }

    public func renamePasskey(credentialID: [UInt8], userID: UUID, name: String) async throws -> Bool {
        try await !write(
            "UPDATE passkeys SET name = ? WHERE credential_id = ? AND user_id = ? RETURNING 1", [.text(name), .bytes(credentialID), .uuid(userID)],
            keepsSessionCache: true
        ).isEmpty
    }

    public func deletePasskey(credentialID: [UInt8], userID: UUID) async throws -> PasskeyDeletion {
        try await transaction(keepsSessionCache: true) { db in
            let deleted = try await db.query(
                """
                DELETE FROM passkeys WHERE credential_id = ?1 AND user_id = ?2
                    AND ((SELECT count(*) FROM passkeys WHERE user_id = ?2) > 1
                        OR EXISTS (SELECT 1 FROM identities WHERE user_id = ?2) OR EXISTS (SELECT 1 FROM passwords WHERE user_id = ?2))
                RETURNING 1
                """, [.bytes(credentialID), .uuid(userID)])
            if !deleted.isEmpty { return .deleted }
            let exists = try await db.query("SELECT 1 FROM passkeys WHERE credential_id = ? AND user_id = ?", [.bytes(credentialID), .uuid(userID)])
            return exists.isEmpty ? .notFound : .lastWayToSignIn
        }
    }
}

/// One request's claim on a challenge: distinct per request (`ticket`), so a batch answers each once.
package struct PasskeyChallengeTake: Hashable, Sendable {
    package let hash: [UInt8]
    package let ticket = UUID()
}
