/// Versioned schema changes, applied in order; `PRAGMA user_version` records how many have run.
/// Append new versions; never edit a released one.
enum SQLiteMigrations {
    static let all: [[String]] = [
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
    ]
}
