import ChatterCore

/// Versioned schema changes, applied in order; the `schema_migrations` table records each version once.
/// Append new versions; never edit a released one. Version 1 is the schema SQLite reached in its version 2.
package enum PostgresMigrations {
    package static let all: [[String]] = [
        [
            """
            CREATE TABLE users (
                id uuid PRIMARY KEY,
                display_name text NOT NULL,
                given_name text, family_name text, middle_name text, nickname text, name_prefix text, name_suffix text,
                created_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE identities (
                issuer text NOT NULL,
                subject text NOT NULL,
                user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                email text,
                email_verified boolean NOT NULL DEFAULT false,
                email_forwarding boolean NOT NULL DEFAULT true,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (issuer, subject)
            )
            """,
            "CREATE INDEX identities_by_user ON identities(user_id)",
            "CREATE INDEX identities_by_verified_email ON identities(email) WHERE email_verified",
            """
            CREATE TABLE passwords (
                user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                hash text NOT NULL,
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE sessions (
                id uuid PRIMARY KEY,
                user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                method text NOT NULL,
                access_hash bytea NOT NULL UNIQUE,
                access_expires_at timestamptz NOT NULL,
                refresh_hash bytea UNIQUE,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz NOT NULL,
                absolute_expires_at timestamptz NOT NULL,
                rotated_at timestamptz,
                retry_box bytea,
                user_agent text,
                ip text
            )
            """,
            "CREATE INDEX sessions_by_user ON sessions(user_id)",
            "CREATE INDEX sessions_by_expiry ON sessions(absolute_expires_at)",
            """
            CREATE TABLE retired_refresh_tokens (
                hash bytea PRIMARY KEY,
                session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                retired_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX retired_by_session ON retired_refresh_tokens(session_id)",
            """
            CREATE TABLE email_codes (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                email text NOT NULL,
                scope text NOT NULL,
                code_hash bytea NOT NULL,
                expires_at timestamptz NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                sent_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX email_codes_by_email ON email_codes(email, scope, sent_at)",
            // The last send per address and purpose: the row a resend cooldown locks, so two requests at
            // once cannot both pass it (an INSERT … WHERE NOT EXISTS would let both through).
            """
            CREATE TABLE email_code_sends (
                email text NOT NULL,
                scope text NOT NULL,
                sent_at timestamptz NOT NULL,
                PRIMARY KEY (email, scope)
            )
            """,
            """
            CREATE TABLE rate_limits (
                key text PRIMARY KEY,
                window_start timestamptz NOT NULL,
                count integer NOT NULL
            )
            """,
            """
            CREATE TABLE web_handoffs (
                code_hash bytea PRIMARY KEY,
                user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                expires_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE audit_events (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                at timestamptz NOT NULL,
                event text NOT NULL,
                user_id uuid,
                method text,
                ip text,
                user_agent text,
                detail text
            )
            """,
            "CREATE INDEX audit_by_user ON audit_events(user_id)",
            """
            CREATE TABLE chatts (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id uuid NOT NULL UNIQUE,
                user_id uuid REFERENCES users(id) ON DELETE SET NULL,
                name text NOT NULL,
                message text NOT NULL,
                created_at timestamptz NOT NULL
            )
            """,
            // Bumped by every deletion of chatts (account deletion), for `timelineStamp()`; `timeline_version` from 3.
            "CREATE TABLE chatt_deletions (id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)",
            "INSERT INTO chatt_deletions (id, n) VALUES (1, 0)",
            """
            CREATE TABLE device_tokens (
                hash bytea PRIMARY KEY,
                email text NOT NULL,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX device_tokens_by_email ON device_tokens(email)",
            """
            CREATE TABLE seen_notifications (
                jti text PRIMARY KEY,
                expires_at timestamptz NOT NULL
            )
            """,
        ],
        // 2: the key session tokens are tagged with (its row is written by `PostgresStore.open`).
        [
            """
            CREATE TABLE session_token_key (
                id integer PRIMARY KEY CHECK (id = 1),
                key bytea NOT NULL,
                untagged_until timestamptz NOT NULL
            )
            """
        ],
        // 3: one counter of every change to the timeline, bumped in the statement that posts or deletes
        // chatts, so `timelineStamp()` reads one row (it counted the newest 1,000 chatts on every read).
        [
            "ALTER TABLE chatt_deletions RENAME TO timeline_version"
        ],
        // 4: administration: accounts an operator disabled or marked as operators, who did what in the audit
        // log, and reading it by time.
        [
            "ALTER TABLE users ADD COLUMN disabled_at timestamptz, ADD COLUMN is_admin boolean NOT NULL DEFAULT false",
            "ALTER TABLE audit_events ADD COLUMN actor text",
            "CREATE INDEX audit_by_time ON audit_events(at)",
        ],
        // 5: passkeys: ceremony challenges (by hash, single use), each account's random user handle, and the
        // credentials, one row per credential ID across all accounts.
        [
            """
            CREATE TABLE passkey_challenges (
                hash bytea PRIMARY KEY,
                purpose text NOT NULL,
                user_id uuid REFERENCES users(id) ON DELETE CASCADE,
                email text,
                user_handle bytea,
                user_verification text NOT NULL,
                expires_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX passkey_challenges_by_expiry ON passkey_challenges(expires_at)",
            """
            CREATE TABLE passkey_user_handles (
                user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                handle bytea NOT NULL UNIQUE
            )
            """,
            """
            CREATE TABLE passkeys (
                credential_id bytea PRIMARY KEY,
                user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                public_key bytea NOT NULL,
                sign_count bigint NOT NULL,
                aaguid bytea NOT NULL,
                backup_eligible boolean NOT NULL,
                backed_up boolean NOT NULL,
                transports text NOT NULL,
                attestation_format text NOT NULL,
                name text NOT NULL,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz,
                flagged boolean NOT NULL DEFAULT false
            )
            """,
            "CREATE INDEX passkeys_by_user ON passkeys(user_id)",
        ],
        // 6: the second factor: each account's authenticator (its secret sealed under a key kept outside the
        // database), its recovery codes' keyed hashes, sign-ins waiting for their second step, which second
        // factor a session's sign-in passed, and when, and devices remembered after one.
        [
            """
            CREATE TABLE totp_authenticators (
                user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                sealed_secret bytea NOT NULL,
                confirmed_at timestamptz,
                last_step bigint NOT NULL,
                created_at timestamptz NOT NULL,
                guesses integer NOT NULL DEFAULT 0,
                guess_window_start timestamptz NOT NULL DEFAULT '-infinity',
                day_guesses integer NOT NULL DEFAULT 0,
                day_window_start timestamptz NOT NULL DEFAULT '-infinity'
            )
            """,
            """
            CREATE TABLE recovery_codes (
                user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                hash bytea NOT NULL,
                PRIMARY KEY (user_id, hash)
            )
            """,
            """
            CREATE TABLE second_steps (
                hash bytea PRIMARY KEY,
                user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                method text NOT NULL,
                email text,
                expires_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX second_steps_by_expiry ON second_steps(expires_at)",
            "CREATE INDEX second_steps_by_user ON second_steps(user_id)",
            "ALTER TABLE sessions ADD COLUMN second_factor text, ADD COLUMN second_factor_at timestamptz",
            "ALTER TABLE device_tokens ADD COLUMN second_factor_until timestamptz",
        ],
        // 7: Apple's refresh tokens, sealed, one per Apple ID and client ID of a live account; an account's
        // deletion leaves its tokens without one (ON DELETE SET NULL), waiting to be revoked.
        [
            """
            CREATE TABLE apple_tokens (
                subject text NOT NULL,
                client_id text NOT NULL,
                user_id uuid REFERENCES users(id) ON DELETE SET NULL,
                sealed_token bytea NOT NULL,
                kept_at timestamptz NOT NULL
            )
            """,
            "CREATE UNIQUE INDEX apple_tokens_live ON apple_tokens(subject, client_id) WHERE user_id IS NOT NULL",
            "CREATE INDEX apple_tokens_to_revoke ON apple_tokens(kept_at) WHERE user_id IS NULL",
            "CREATE INDEX apple_tokens_by_user ON apple_tokens(user_id)",
        ],
        // 8: a password reset (or a sign-up on an address with a password) on an account with a second factor
        // waits for it: the new password's hash waits with the sign-in, set only when the second step completes.
        [
            "ALTER TABLE second_steps ADD COLUMN new_password_hash text"
        ],
        // 9: the fingerprint of the key the sealed secrets are sealed under, so a lost or swapped key file is
        // refused at start (SealingKeyCheck).
        [
            "CREATE TABLE sealing_key (id integer PRIMARY KEY CHECK (id = 1), fingerprint text NOT NULL, recorded_at timestamptz NOT NULL)"
        ],
        // 10: sessions bound to a DPoP key (RFC 9449) by its JWK thumbprint, and the proofs accepted lately, by a
        // hash of key and jti, kept until they are too old to be accepted again.
        [
            "ALTER TABLE sessions ADD COLUMN dpop_jkt text",
            "CREATE TABLE dpop_proofs (hash bytea PRIMARY KEY, expires_at timestamptz NOT NULL)",
            "CREATE INDEX dpop_proofs_by_expiry ON dpop_proofs(expires_at)",
        ],
        // 11: App Attest keys whose attestation verified, by key ID, with the highest counter an assertion showed.
        [
            """
            CREATE TABLE app_attest_keys (
                key_id bytea PRIMARY KEY,
                app_id text NOT NULL,
                public_key bytea NOT NULL,
                counter bigint NOT NULL,
                environment text NOT NULL,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz
            )
            """
        ],
        // 12: the attested install (App Attest key ID and app) whose assertion vouched for a session's sign-in.
        [
            "ALTER TABLE sessions ADD COLUMN app_attest_key bytea",
            "ALTER TABLE sessions ADD COLUMN app_attest_app text",
        ],
    ]
}
