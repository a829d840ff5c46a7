import ChatterCore
import Foundation
import PostgresNIO

// Passkeys say nothing about a session, so their writes keep the session cache.
extension PostgresStore {
    public func storePasskeyChallenge(_ challenge: PasskeyChallenge) async throws {
        try await rows(
            """
            INSERT INTO passkey_challenges (hash, purpose, user_id, email, user_handle, user_verification, expires_at)
            VALUES (\(challenge.hash.bytea), \(challenge.purpose.rawValue), \(challenge.userID), \(challenge.email), \(challenge.userHandle?.bytea),
                \(challenge.userVerification.rawValue), \(challenge.expiresAt))
            """, keepsSessionCache: true)
    }

    public func takePasskeyChallenge(hash: [UInt8], at now: Date) async throws -> PasskeyChallenge? {
        guard let row = try await rows("DELETE FROM passkey_challenges WHERE hash = \(hash.bytea) RETURNING *", keepsSessionCache: true).first else {
            return nil
        }
        let challenge = try Self.challenge(row)
        return now < challenge.expiresAt ? challenge : nil
    }

    /// A `passkey_challenges` row, its columns named with `prefix` (see the sign-in's lookup).
    package static func challenge(_ row: PostgresRandomAccessRow, prefix: String = "") throws -> PasskeyChallenge {
        guard let purpose = PasskeyChallenge.Purpose(rawValue: try row.value(prefix + "purpose")),
            let verification = UserVerification(rawValue: try row.value(prefix + "user_verification"))
        else { throw StoreError.corruptRow("passkey_challenges.purpose or user_verification") }
        return PasskeyChallenge(
            hash: try row.bytes(prefix + "hash"), purpose: purpose, userID: try row.value(prefix + "user_id"), email: try row.value(prefix + "email"),
            userHandle: try row.optionalBytes(prefix + "user_handle"), userVerification: verification, expiresAt: try row.value(prefix + "expires_at"))
    }

    public func passkeyUserHandle(userID: UUID, candidate: [UInt8]) async throws -> [UInt8] {
        let rows = try await rows(
            """
            WITH added AS (
                INSERT INTO passkey_user_handles (user_id, handle) SELECT id, \(candidate.bytea) FROM users WHERE id = \(userID)
                ON CONFLICT (user_id) DO NOTHING RETURNING handle
            )
            SELECT handle FROM added UNION ALL SELECT handle FROM passkey_user_handles WHERE user_id = \(userID)
            """, keepsSessionCache: true)
        if let row = rows.first { return try row.bytes("handle") }
        // A concurrent first use inserted it after this statement's snapshot: a new statement sees it.
        guard let row = try await self.rows("SELECT handle FROM passkey_user_handles WHERE user_id = \(userID)", keepsSessionCache: true).first else {
            throw StoreError.userGone
        }
        return try row.bytes("handle")
    }

    public func passkeyUser(handle: [UInt8]) async throws -> UUID? {
        try await rows("SELECT user_id FROM passkey_user_handles WHERE handle = \(handle.bytea)", keepsSessionCache: true).first?.value("user_id")
    }

    public func insertPasskey(_ passkey: PasskeyRecord) async throws -> Bool {
        let inserted = try await rows(
            """
            INSERT INTO passkeys (credential_id, user_id, public_key, sign_count, aaguid, backup_eligible, backed_up, transports,
                attestation_format, name, created_at)
            SELECT \(passkey.credentialID.bytea), id, \(passkey.publicKey.bytea), \(Int64(passkey.signCount)), \(passkey.aaguid.bytea),
                \(passkey.backupEligible), \(passkey.backedUp), \(passkey.transports.joined(separator: ",")), \(passkey.attestationFormat),
                \(passkey.name), \(passkey.createdAt)
            FROM users WHERE id = \(passkey.userID)
            ON CONFLICT (credential_id) DO NOTHING RETURNING credential_id
            """, keepsSessionCache: true)
        if !inserted.isEmpty { return true }
        guard try await !rows("SELECT 1 FROM users WHERE id = \(passkey.userID)", keepsSessionCache: true).isEmpty else { throw StoreError.userGone }
        return false
    }

    public func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? {
        try await rows("SELECT * FROM passkeys WHERE credential_id = \(credentialID.bytea)", keepsSessionCache: true).first.map(Self.passkey)
    }

    public func passkeyOwner(credentialID: [UInt8]) async throws -> PasskeyOwner? {
        try Self.owner(
            try await rows("\(unescaped: Self.ownerSQL) WHERE p.credential_id = \(credentialID.bytea) ORDER BY i.created_at", keepsSessionCache: true))
    }

    /// The passkey, its account, the account's summary and handle: a row per identity of the account
    /// (`owner(_:)` reads them).
    package static let ownerSQL = """
        SELECT p.*, h.handle, \(userColumns), EXISTS (SELECT 1 FROM passwords w WHERE w.user_id = p.user_id) AS has_password,
            i.issuer, i.subject, i.email, i.email_verified, i.created_at AS identity_created_at
        FROM passkeys p
        JOIN passkey_user_handles h ON h.user_id = p.user_id JOIN users u ON u.id = p.user_id LEFT JOIN identities i ON i.user_id = p.user_id
        """

    /// The owner the rows of `ownerSQL` describe, nil when there are none (or they have no passkey).
    package static func owner(_ rows: [PostgresRandomAccessRow]) throws -> PasskeyOwner? {
        guard let first = rows.first, try first.optionalBytes("credential_id") != nil else { return nil }
        var owner = PasskeyOwner(
            passkey: try passkey(first), userHandle: try first.bytes("handle"), user: try User(row: first),
            account: AccountSummary(identities: [], hasPassword: try first.value("has_password"), hasPasskey: true))
        for row in rows where try row.value("issuer", as: String?.self) != nil {
            owner.account.identities.append(try Identity(row: row))
        }
        return owner
    }

    /// One statement: the challenge's DELETE and the owner's read as two CTEs, joined to rows that
    /// always include one. The challenge's columns are renamed, since the passkey's row has some of the same.
    /// Its commit does not wait for the disk (`PostgresStore.commitWithoutFlush`).
    public func takePasskeyChallenge(hash: [UInt8], readingOwnerOf credentialID: [UInt8], at now: Date) async throws -> PasskeySignInLookup {
        let rows = try await rows(
            """
            WITH taken AS (DELETE FROM passkey_challenges WHERE hash = \(hash.bytea) RETURNING *),
            owner AS (\(unescaped: Self.ownerSQL) WHERE p.credential_id = \(credentialID.bytea))
            SELECT taken.hash AS challenge_hash, taken.purpose AS challenge_purpose, taken.user_id AS challenge_user_id,
                taken.email AS challenge_email, taken.user_handle AS challenge_user_handle,
                taken.user_verification AS challenge_user_verification, taken.expires_at AS challenge_expires_at, owner.*
            FROM (\(unescaped: Self.commitWithoutFlush)) AS one LEFT JOIN taken ON true LEFT JOIN owner ON true
            ORDER BY owner.identity_created_at
            """, keepsSessionCache: true)
        var challenge: PasskeyChallenge?
        if let row = rows.first, try row.optionalBytes("challenge_hash") != nil {
            let taken = try Self.challenge(row, prefix: "challenge_")
            challenge = now < taken.expiresAt ? taken : nil
        }
        return PasskeySignInLookup(challenge: challenge, owner: try Self.owner(rows))
    }

    public func passkeys(of userID: UUID) async throws -> [PasskeyRecord] {
        try await rows("SELECT * FROM passkeys WHERE user_id = \(userID) ORDER BY created_at, credential_id", keepsSessionCache: true).map(Self.passkey)
    }

    package static func passkey(_ row: PostgresRandomAccessRow) throws -> PasskeyRecord {
        let transports: String = try row.value("transports")
        return PasskeyRecord(
            credentialID: try row.bytes("credential_id"), userID: try row.value("user_id"), publicKey: try row.bytes("public_key"),
            signCount: UInt32(clamping: try row.value("sign_count", as: Int64.self)), aaguid: try row.bytes("aaguid"),
            backupEligible: try row.value("backup_eligible"), backedUp: try row.value("backed_up"),
            transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
            attestationFormat: try row.value("attestation_format"), name: try row.value("name"), createdAt: try row.value("created_at"),
            lastUsedAt: try row.value("last_used_at"), flagged: try row.value("flagged"))
    }

    /// Sign-ins arriving together store their counters together (see `recordUses(_:on:logger:)`).
    public func recordPasskeyUse(credentialID: [UInt8], signCount: UInt32, backedUp: Bool, at now: Date) async throws -> Bool {
        try await passkeyUses.value(for: PasskeyUse(credentialID: credentialID, signCount: signCount, backedUp: backedUp, at: now)) ?? false
    }

    /// One conditional `UPDATE … FROM unnest(…)` per round of `PasskeyUse.rounds` (one, unless the batch
    /// names a passkey twice), so one round trip and one commit. The row lock orders batches that meet on
    /// a passkey; the later one re-reads the counter the earlier stored.
    package static func recordUses(_ batch: [PasskeyUse], on client: PostgresClient, logger: Logger) async throws -> [PasskeyUse: Bool] {
        var stored: [PasskeyUse: Bool] = [:]
        for round in PasskeyUse.rounds(batch) {
            var binds = PostgresBindings(capacity: 4)
            binds.append(round.map(\.credentialID.bytea))
            binds.append(round.map { Int64($0.signCount) })
            binds.append(round.map(\.backedUp))
            binds.append(round.map(\.at))
            let query = PostgresQuery(unsafeSQL: recordUsesSQL, binds: binds)
            var attempt = 1
            while true {
                do {
                    let rows = try await client.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
                    let moved = Set(try rows.map { try $0.bytes("credential_id") })
                    for use in round { stored[use] = moved.contains(use.credentialID) }
                    break
                } catch let error as PSQLError where error.sqlState == PSQLError.deadlock && attempt < 3 {
                    // Two batches locking the same passkeys in opposite orders.
                    attempt += 1
                }
            }
        }
        return stored
    }

    /// Its commit does not wait for the disk either (`commitWithoutFlush`).
    private static let recordUsesSQL = """
        UPDATE passkeys p SET sign_count = v.sign_count, backed_up = v.backed_up, last_used_at = v.used_at
        FROM unnest($1::bytea[], $2::int8[], $3::bool[], $4::timestamptz[]) AS v(credential_id, sign_count, backed_up, used_at),
            (\(commitWithoutFlush)) AS no_flush
        WHERE p.credential_id = v.credential_id AND (p.sign_count < v.sign_count OR (p.sign_count = 0 AND v.sign_count = 0))
        RETURNING p.credential_id
        """

    /// A one-row subquery that makes the statement's own transaction commit without waiting for its WAL
    /// to reach the disk (`synchronous_commit` off until that commit). For a passkey sign-in's challenge
    /// and counter writes: what follows them is the session's INSERT, whose commit waits, and the WAL is
    /// flushed in order, so by the time a session is answered they are on disk with it. Other requests
    /// see them at commit either way, so a challenge is still taken once. Only a sign-in that fails before
    /// its session can lose them in a crash of PostgreSQL within `wal_writer_delay` (200 ms): the challenge
    /// of a refused assertion, or the counter and time of a passkey whose sign-in then failed.
    package static let commitWithoutFlush = "SELECT set_config('synchronous_commit', 'off', true)"

    public func flagPasskey(credentialID: [UInt8]) async throws {
        try await rows("UPDATE passkeys SET flagged = true WHERE credential_id = \(credentialID.bytea)", keepsSessionCache: true)
    }

    public func renamePasskey(credentialID: [UInt8], userID: UUID, name: String) async throws -> Bool {
        try await !rows(
            "UPDATE passkeys SET name = \(name) WHERE credential_id = \(credentialID.bytea) AND user_id = \(userID) RETURNING 1", keepsSessionCache: true
        ).isEmpty
    }

    /// The user's row is locked first, so deletions of their passkeys take turns and each counts what the
    /// one before it left (each statement of a READ COMMITTED transaction reads anew).
    public func deletePasskey(credentialID: [UInt8], userID: UUID) async throws -> PasskeyDeletion {
        try await transaction(keepsSessionCache: true) { [logger] db in
            try await db.rows("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
            let deleted = try await db.rows(
                """
                DELETE FROM passkeys WHERE credential_id = \(credentialID.bytea) AND user_id = \(userID)
                    AND ((SELECT count(*) FROM passkeys WHERE user_id = \(userID)) > 1
                        OR EXISTS (SELECT 1 FROM identities WHERE user_id = \(userID)) OR EXISTS (SELECT 1 FROM passwords WHERE user_id = \(userID)))
                RETURNING 1
                """, logger: logger)
            if !deleted.isEmpty { return .deleted }
            let exists = try await db.rows(
                "SELECT 1 FROM passkeys WHERE credential_id = \(credentialID.bytea) AND user_id = \(userID)", logger: logger)
            return exists.isEmpty ? .notFound : .lastWayToSignIn
        }
    }
}
