import ChatterCore

/// Versioned schema changes, applied in order; `PRAGMA user_version` records how many have run.
/// Append new versions; never edit a released one.
package enum SQLiteMigrations {
    package static let all: [[String]] = [
        // 1: accounts, sessions with rotating refresh tokens, email codes, rate limits, audit, chatts.
        [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                display_name TEXT NOT NULL,
                given_name TEXT, family_name TEXT, middle_name TEXT, nickname TEXT, name_prefix TEXT, name_suffix TEXT,
                created_at REAL NOT NULL
            )
            """,
            """
            CREATE TABLE identities (
                issuer TEXT NOT NULL,
                subject TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                email TEXT,
                email_verified INTEGER NOT NULL DEFAULT 0,
                email_forwarding INTEGER NOT NULL DEFAULT 1,
                created_at REAL NOT NULL,
                PRIMARY KEY (issuer, subject)
            )
            """,
            "CREATE INDEX identities_by_user ON identities(user_id)",
            "CREATE INDEX identities_by_verified_email ON identities(email) WHERE email_verified = 1",
            """
            CREATE TABLE passwords (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                hash TEXT NOT NULL,
                updated_at REAL NOT NULL
            )
            """,
            // A session is a family: one access token and (for native clients) one refresh token at a time.
            // Retired refresh tokens are remembered so that any reuse revokes the family.
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                method TEXT NOT NULL,
                access_hash BLOB NOT NULL UNIQUE,
                access_expires_at REAL NOT NULL,
                refresh_hash BLOB UNIQUE,
                created_at REAL NOT NULL,
                last_used_at REAL NOT NULL,
                absolute_expires_at REAL NOT NULL,
                rotated_at REAL,
                retry_box BLOB,
                user_agent TEXT,
                ip TEXT
            )
            """,
            "CREATE INDEX sessions_by_user ON sessions(user_id)",
            "CREATE INDEX sessions_by_expiry ON sessions(absolute_expires_at)",
            """
            CREATE TABLE retired_refresh_tokens (
                hash BLOB PRIMARY KEY,
                session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                retired_at REAL NOT NULL
            )
            """,
            "CREATE INDEX retired_by_session ON retired_refresh_tokens(session_id)",
            """
            CREATE TABLE email_codes (
                email TEXT PRIMARY KEY,
                code_hash BLOB NOT NULL,
                expires_at REAL NOT NULL,
                failed_attempts INTEGER NOT NULL DEFAULT 0,
                sent_at REAL NOT NULL
            )
            """,
            """
            CREATE TABLE rate_limits (
                key TEXT PRIMARY KEY,
                window_start REAL NOT NULL,
                count INTEGER NOT NULL
            )
            """,
            """
            CREATE TABLE web_handoffs (
                code_hash BLOB PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                expires_at REAL NOT NULL
            )
            """,
            """
            CREATE TABLE audit_events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                at REAL NOT NULL,
                event TEXT NOT NULL,
                user_id TEXT,
                method TEXT,
                ip TEXT,
                user_agent TEXT,
                detail TEXT
            )
            """,
            "CREATE INDEX audit_by_user ON audit_events(user_id)",
            """
            CREATE TABLE chatts (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
                name TEXT NOT NULL,
                message TEXT NOT NULL,
                created_at REAL NOT NULL
            )
            """,
        ],
        // 2: Google identities under one issuer spelling (merging users split by the two spellings);
        // several live codes per address; device tokens; processed Apple notifications.
        [
            """
            CREATE TEMP TABLE google_merge AS
                SELECT DISTINCT d.user_id AS from_user, k.user_id AS to_user
                FROM identities d JOIN identities k ON k.subject = d.subject
                WHERE d.issuer = 'accounts.google.com' AND k.issuer = 'https://accounts.google.com' AND d.user_id <> k.user_id
            """,
            """
            DELETE FROM identities WHERE issuer = 'accounts.google.com'
                AND subject IN (SELECT subject FROM identities WHERE issuer = 'https://accounts.google.com')
            """,
            "UPDATE identities SET issuer = 'https://accounts.google.com' WHERE issuer = 'accounts.google.com'",
            """
            UPDATE identities SET user_id = (SELECT to_user FROM google_merge WHERE from_user = identities.user_id)
                WHERE user_id IN (SELECT from_user FROM google_merge)
            """,
            """
            UPDATE sessions SET user_id = (SELECT to_user FROM google_merge WHERE from_user = sessions.user_id)
                WHERE user_id IN (SELECT from_user FROM google_merge)
            """,
            """
            UPDATE chatts SET user_id = (SELECT to_user FROM google_merge WHERE from_user = chatts.user_id)
                WHERE user_id IN (SELECT from_user FROM google_merge)
            """,
            """
            INSERT OR IGNORE INTO passwords (user_id, hash, updated_at)
                SELECT m.to_user, p.hash, p.updated_at FROM passwords p JOIN google_merge m ON m.from_user = p.user_id
            """,
            "DELETE FROM users WHERE id IN (SELECT from_user FROM google_merge)",
            "DROP TABLE google_merge",
            // A stranger asking for a code must not cancel the owner's: each code is its own row.
            "DROP TABLE email_codes",
            """
            CREATE TABLE email_codes (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                email TEXT NOT NULL,
                scope TEXT NOT NULL,
                code_hash BLOB NOT NULL,
                expires_at REAL NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                sent_at REAL NOT NULL
            )
            """,
            "CREATE INDEX email_codes_by_email ON email_codes(email, scope, sent_at)",
            // A device that signed in to an address before: its own allowance of password and code attempts.
            """
            CREATE TABLE device_tokens (
                hash BLOB PRIMARY KEY,
                email TEXT NOT NULL,
                created_at REAL NOT NULL,
                last_used_at REAL NOT NULL
            )
            """,
            "CREATE INDEX device_tokens_by_email ON device_tokens(email)",
            """
            CREATE TABLE seen_notifications (
                jti TEXT PRIMARY KEY,
                expires_at REAL NOT NULL
            )
            """,
        ],
        // 3: a rotation retires the refresh token it replaces by itself, so rotating is one statement.
        [
            """
            CREATE TRIGGER retire_refresh_token AFTER UPDATE OF refresh_hash ON sessions
            WHEN old.refresh_hash IS NOT NULL AND old.refresh_hash IS NOT new.refresh_hash
            BEGIN
                INSERT INTO retired_refresh_tokens (hash, session_id, retired_at) VALUES (old.refresh_hash, old.id, new.rotated_at);
            END
            """
        ],
        // 4: the key session tokens are tagged with (its row is written by `SQLiteStore.open`).
        [
            """
            CREATE TABLE session_token_key (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                key BLOB NOT NULL,
                untagged_until REAL NOT NULL
            )
            """
        ],
        // 5: retired refresh tokens in one B-tree keyed by their hash, plus an index on time, which a rotation
        // appends to. The table and its index by session took three pages a rotation, two of them random;
        // without the index by session a deleted session no longer cascades, so the purge removes what
        // remains of ended sessions (see `purgeExpiredSessions`), and a lookup joins the live session.
        [
            "DROP TRIGGER retire_refresh_token",
            """
            CREATE TABLE retired_refresh_tokens_5 (
                hash BLOB PRIMARY KEY,
                session_id TEXT NOT NULL,
                retired_at REAL NOT NULL
            ) WITHOUT ROWID
            """,
            """
            INSERT INTO retired_refresh_tokens_5 (hash, session_id, retired_at)
                SELECT r.hash, r.session_id, r.retired_at FROM retired_refresh_tokens r
            """,
            "DROP TABLE retired_refresh_tokens",
            "ALTER TABLE retired_refresh_tokens_5 RENAME TO retired_refresh_tokens",
            "CREATE INDEX retired_by_time ON retired_refresh_tokens(retired_at)",
            """
            CREATE TRIGGER retire_refresh_token AFTER UPDATE OF refresh_hash ON sessions
            WHEN old.refresh_hash IS NOT NULL AND old.refresh_hash IS NOT new.refresh_hash
            BEGIN
                INSERT INTO retired_refresh_tokens (hash, session_id, retired_at) VALUES (old.refresh_hash, old.id, new.rotated_at);
            END
            """,
        ],
        // 6: administration: accounts an operator disabled or marked as operators, who did what in the audit
        // log, and reading it by time.
        [
            "ALTER TABLE users ADD COLUMN disabled_at REAL",
            "ALTER TABLE users ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE audit_events ADD COLUMN actor TEXT",
            "CREATE INDEX audit_by_time ON audit_events(at)",
        ],
        // 7: a native session's tokens name it, so a rotation and a lookup find its row by primary key. The
        // token hashes lose their indexes (a rotation rewrote two random pages of each), and a named refresh
        // token is no longer kept when retired: the session keeps the one its latest rotation retired, for
        // the grace retry, and any other token naming it is reuse. Unnamed tokens (chatterIDs, browser
        // cookies, and native tokens from before until their first rotation) are found through partial
        // indexes, and the trigger still keeps an unnamed refresh token when retired. No table refers to
        // sessions, so rebuilding it (to drop the UNIQUEs) cascades nowhere.
        [
            "DROP TRIGGER retire_refresh_token",
            """
            CREATE TABLE sessions_7 (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                method TEXT NOT NULL,
                access_hash BLOB NOT NULL,
                access_unnamed INTEGER NOT NULL DEFAULT 1,
                access_expires_at REAL NOT NULL,
                refresh_hash BLOB,
                refresh_unnamed INTEGER NOT NULL DEFAULT 0,
                previous_refresh_hash BLOB,
                created_at REAL NOT NULL,
                last_used_at REAL NOT NULL,
                absolute_expires_at REAL NOT NULL,
                rotated_at REAL,
                retry_box BLOB,
                user_agent TEXT,
                ip TEXT
            )
            """,
            """
            INSERT INTO sessions_7 (id, user_id, method, access_hash, access_expires_at, refresh_hash, refresh_unnamed, created_at,
                last_used_at, absolute_expires_at, rotated_at, retry_box, user_agent, ip)
            SELECT id, user_id, method, access_hash, access_expires_at, refresh_hash, refresh_hash IS NOT NULL, created_at,
                last_used_at, absolute_expires_at, rotated_at, retry_box, user_agent, ip FROM sessions
            """,
            "DROP TABLE sessions",
            "ALTER TABLE sessions_7 RENAME TO sessions",
            "CREATE INDEX sessions_by_user ON sessions(user_id)",
            "CREATE INDEX sessions_by_expiry ON sessions(absolute_expires_at)",
            "CREATE UNIQUE INDEX sessions_by_unnamed_access ON sessions(access_hash) WHERE access_unnamed = 1",
            "CREATE UNIQUE INDEX sessions_by_unnamed_refresh ON sessions(refresh_hash) WHERE refresh_unnamed = 1",
            """
            CREATE TRIGGER retire_refresh_token AFTER UPDATE OF refresh_hash ON sessions
            WHEN old.refresh_unnamed = 1 AND old.refresh_hash IS NOT new.refresh_hash
            BEGIN
                INSERT INTO retired_refresh_tokens (hash, session_id, retired_at) VALUES (old.refresh_hash, old.id, new.rotated_at);
            END
            """,
        ],
        // 8: passkeys: ceremony challenges (by hash, single use), each account's random user handle, and the
        // credentials, one row per credential ID across all accounts.
        [
            """
            CREATE TABLE passkey_challenges (
                hash BLOB PRIMARY KEY,
                purpose TEXT NOT NULL,
                user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                email TEXT,
                user_handle BLOB,
                user_verification TEXT NOT NULL,
                expires_at REAL NOT NULL
            )
            """,
            "CREATE INDEX passkey_challenges_by_expiry ON passkey_challenges(expires_at)",
            """
            CREATE TABLE passkey_user_handles (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                handle BLOB NOT NULL UNIQUE
            )
            """,
            """
            CREATE TABLE passkeys (
                credential_id BLOB PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                public_key BLOB NOT NULL,
                sign_count INTEGER NOT NULL,
                aaguid BLOB NOT NULL,
                backup_eligible INTEGER NOT NULL,
                backed_up INTEGER NOT NULL,
                transports TEXT NOT NULL,
                attestation_format TEXT NOT NULL,
                name TEXT NOT NULL,
                created_at REAL NOT NULL,
                last_used_at REAL,
                flagged INTEGER NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX passkeys_by_user ON passkeys(user_id)",
        ],
        // 9: the second factor: each account's authenticator (its secret sealed under a key kept outside the
        // database), its recovery codes' keyed hashes, sign-ins waiting for their second step, which second
        // factor a session's sign-in passed, and when, and devices remembered after one.
        [
            """
            CREATE TABLE totp_authenticators (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                sealed_secret BLOB NOT NULL,
                confirmed_at REAL,
                last_step INTEGER NOT NULL,
                created_at REAL NOT NULL,
                guesses INTEGER NOT NULL DEFAULT 0,
                guess_window_start REAL NOT NULL DEFAULT 0,
                day_guesses INTEGER NOT NULL DEFAULT 0,
                day_window_start REAL NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE recovery_codes (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                hash BLOB NOT NULL,
                PRIMARY KEY (user_id, hash)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE second_steps (
                hash BLOB PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                method TEXT NOT NULL,
                email TEXT,
                expires_at REAL NOT NULL
            )
            """,
            "CREATE INDEX second_steps_by_expiry ON second_steps(expires_at)",
            "CREATE INDEX second_steps_by_user ON second_steps(user_id)",
            "ALTER TABLE sessions ADD COLUMN second_factor TEXT",
            "ALTER TABLE sessions ADD COLUMN second_factor_at REAL",
            // Until when a device that passed the second step signs in without it (nil: it did not ask to be remembered).
            "ALTER TABLE device_tokens ADD COLUMN second_factor_until REAL",
        ],
        // 10: Apple's refresh tokens, sealed, one per Apple ID and client ID of a live account; an account's
        // deletion leaves its tokens without one (ON DELETE SET NULL), waiting to be revoked.
        [
            """
            CREATE TABLE apple_tokens (
                subject TEXT NOT NULL,
                client_id TEXT NOT NULL,
                user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
                sealed_token BLOB NOT NULL,
                kept_at REAL NOT NULL
            )
            """,
            "CREATE UNIQUE INDEX apple_tokens_live ON apple_tokens(subject, client_id) WHERE user_id IS NOT NULL",
            "CREATE INDEX apple_tokens_to_revoke ON apple_tokens(kept_at) WHERE user_id IS NULL",
            "CREATE INDEX apple_tokens_by_user ON apple_tokens(user_id)",
        ],
        // 11: a password reset (or a sign-up on an address with a password) on an account with a second factor
        // waits for it: the new password's hash waits with the sign-in, set only when the second step completes.
        [
            "ALTER TABLE second_steps ADD COLUMN new_password_hash TEXT"
        ],
        // 12: the fingerprint of the key the sealed secrets are sealed under, so a lost or swapped key file is
        // refused at start (SealingKeyCheck).
        [
            "CREATE TABLE sealing_key (id INTEGER PRIMARY KEY CHECK (id = 1), fingerprint TEXT NOT NULL, recorded_at REAL NOT NULL)"
        ],
        // 13: sessions bound to a DPoP key (RFC 9449) by its JWK thumbprint, and the proofs accepted lately, by a
        // hash of key and jti, kept until they are too old to be accepted again.
        [
            "ALTER TABLE sessions ADD COLUMN dpop_jkt TEXT",
            "CREATE TABLE dpop_proofs (hash BLOB PRIMARY KEY, expires_at REAL NOT NULL) WITHOUT ROWID",
            "CREATE INDEX dpop_proofs_by_expiry ON dpop_proofs(expires_at)",
        ],
        // 14: App Attest keys whose attestation verified, by key ID, with the highest counter an assertion showed.
        [
            """
            CREATE TABLE app_attest_keys (
                key_id BLOB PRIMARY KEY,
                app_id TEXT NOT NULL,
                public_key BLOB NOT NULL,
                counter INTEGER NOT NULL,
                environment TEXT NOT NULL,
                created_at REAL NOT NULL,
                last_used_at REAL
            ) WITHOUT ROWID
            """
        ],
        // 15: the attested install (App Attest key ID and app) whose assertion vouched for a session's sign-in.
        [
            "ALTER TABLE sessions ADD COLUMN app_attest_key BLOB",
            "ALTER TABLE sessions ADD COLUMN app_attest_app TEXT",
        ],
    ]
}
