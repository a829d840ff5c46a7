import ChatterCore
import Foundation
import NIOCore
import PostgresNIO

/// The sessions of a batch of presented access tokens, with their users (every authenticated request).
package struct SessionsByAccessHash: PreparedStatement {
    package static let sql = """
        SELECT s.access_hash, s.id AS session_id, s.method, s.access_expires_at, s.refresh_hash IS NOT NULL AS refreshable, s.last_used_at,
            s.dpop_jkt, \(PostgresStore.userColumns)
        FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.access_hash = ANY($1)
        """
    package static let bindingDataTypes: [PostgresDataType] = [.byteaArray]
    package var hashes: [[UInt8]]

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(hashes.map(\.bytea))
        return binds
    }
}

/// When a session was last used (its idle lifetime counts from it).
package struct TouchSession: PreparedStatement {
    package static let sql = "UPDATE sessions SET last_used_at = $1 WHERE id = $2"
    package static let bindingDataTypes: [PostgresDataType] = [.timestamptz, .uuid]
    package var id: UUID
    package var now: Date

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 2)
        binds.append(now)
        binds.append(id)
        return binds
    }
}

/// A new session, inserted only while its account exists and is not disabled. `FOR SHARE` holds the
/// account's row until the insert commits: an operator's "disable" (which updates that row, then ends its
/// sessions) either waits for this session and ends it too, or commits first and this insert finds the
/// account disabled.
package struct InsertSession: PreparedStatement {
    package static let sql = """
        INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, refresh_hash, created_at, last_used_at,
            absolute_expires_at, user_agent, ip, second_factor, second_factor_at, dpop_jkt, app_attest_key, app_attest_app)
        SELECT $1, u.id, $2, $3, $4, $5, $6, $6, $7, $8, $9, $10, $11, $13, $14, $15
        FROM (SELECT id FROM users WHERE id = $12 AND disabled_at IS NULL FOR SHARE) u
        RETURNING id
        """
    package static let bindingDataTypes: [PostgresDataType] = [
        .uuid, .text, .bytea, .timestamptz, .bytea, .timestamptz, .timestamptz, .text, .text, .text, .timestamptz, .uuid, .text, .bytea, .text,
    ]
    package var session: NewSession

    package func makeBindings() -> PostgresBindings {
        let s = session
        var binds = PostgresBindings(capacity: 15)
        binds.append(s.id)
        binds.append(s.method)
        binds.append(s.accessHash.bytea)
        binds.append(s.accessExpiresAt)
        binds.append(s.refreshHash?.bytea)
        binds.append(s.createdAt)
        binds.append(s.absoluteExpiresAt)
        binds.append(s.client.userAgent)
        binds.append(s.client.ip)
        binds.append(s.secondFactor)
        binds.append(s.secondFactorAt)
        binds.append(s.userID)
        binds.append(s.client.boundKey)
        binds.append(s.client.attested?.keyID.bytea)
        binds.append(s.client.attested?.appID)
        return binds
    }
}

/// A batch of rotations in one statement (see `PostgresStore.rotate`).
package struct RotateSessions: PreparedStatement {
    package static let sql = """
        WITH v AS (
            SELECT presented, access_hash, refresh_hash, access_expires_at, at_time, idle_cutoff, retry_box, NULLIF(bound_key, '') AS bound_key
            FROM unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], $7::bytea[], $8::text[])
                AS v(presented, access_hash, refresh_hash, access_expires_at, at_time, idle_cutoff, retry_box, bound_key)
        ), rotated AS (
            UPDATE sessions s SET access_hash = v.access_hash, access_expires_at = LEAST(v.access_expires_at, s.absolute_expires_at),
                refresh_hash = v.refresh_hash, last_used_at = v.at_time, rotated_at = v.at_time, retry_box = v.retry_box,
                dpop_jkt = COALESCE(s.dpop_jkt, v.bound_key)
            FROM v WHERE s.refresh_hash = v.presented AND s.absolute_expires_at > v.at_time AND s.last_used_at > v.idle_cutoff
                AND (s.dpop_jkt IS NULL OR s.dpop_jkt = v.bound_key)
            RETURNING s.id, s.user_id, s.refresh_hash, s.access_expires_at, s.absolute_expires_at, s.dpop_jkt, v.presented, v.at_time
        ), retired AS (
            INSERT INTO retired_refresh_tokens (hash, session_id, retired_at) SELECT presented, id, at_time FROM rotated
        )
        SELECT r.id AS session_id, r.refresh_hash, r.access_expires_at, r.absolute_expires_at, r.dpop_jkt, \(PostgresStore.userColumns),
            EXISTS (SELECT 1 FROM passwords p WHERE p.user_id = r.user_id) AS has_password,
            EXISTS (SELECT 1 FROM passkeys k WHERE k.user_id = r.user_id) AS has_passkey, i.issuer, i.subject, i.email, i.email_verified
        FROM rotated r JOIN users u ON u.id = r.user_id LEFT JOIN identities i ON i.user_id = r.user_id
        ORDER BY r.id, i.created_at
        """
    package static let bindingDataTypes: [PostgresDataType] = [
        .byteaArray, .byteaArray, .byteaArray, .timestamptzArray, .timestamptzArray, .timestamptzArray, .byteaArray, .textArray,
    ]
    package var batch: [Rotation]

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 8)
        binds.append(batch.map(\.presentedHash.bytea))
        binds.append(batch.map(\.newAccessHash.bytea))
        binds.append(batch.map(\.newRefreshHash.bytea))
        binds.append(batch.map { $0.now.addingTimeInterval($0.accessLifetime) })
        binds.append(batch.map(\.now))
        binds.append(batch.map { $0.now.addingTimeInterval(-$0.idleLifetime) })
        binds.append(batch.map(\.retryBox.bytea))
        // Arrays of optionals do not encode: '' stands for no key (a thumbprint is never empty).
        binds.append(batch.map { $0.boundKey ?? "" })
        return binds
    }
}
