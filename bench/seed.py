"""Every SQL statement the bench scripts use, in one place, so a schema change is fixed here only.

Written against schema version 10 (Sources/ChatterStorage/SQLite/SQLiteMigrations.swift). Seeding
through the HTTP API is preferred; direct SQL is used only where the API would take too long (a million
sessions), and only on a database chatterd created (so its migrations ran) and is not running on.
"""

import base64
import hashlib
import hmac
import re
import secrets
import sqlite3
import subprocess
import time
import urllib.parse
import uuid

SCHEMA_VERSION = 15
ISSUER = "https://accounts.google.com"
# `IdentityKey.emailIssuer` (Sources/ChatterCore/Models/Models.swift): the pseudo-issuer of addresses proven by a code.
EMAIL_ISSUER = "email"


def seeded_token(key, i):
    """The chatterID of seeded session i: 43 base64url characters like a real one, derived, not stored:
    24 bytes of SHA-256("bench-session-i") and their 8-byte tag, HMAC-SHA256 under the database's
    session token key (`SessionTokenKey` in Sources/ChatterCore/Tokens/SessionToken.swift)."""
    random = hashlib.sha256(b"bench-session-%d" % i).digest()[:24]
    tag = hmac.new(key, random, hashlib.sha256).digest()[:8]
    return base64.urlsafe_b64encode(random + tag).rstrip(b"=").decode()


def token_key(db_path):
    """The session token key chatterd made when it first opened the database (SQLite file or PostgresDatabase)."""
    if isinstance(db_path, PostgresDatabase):
        return bytes.fromhex(db_path.psql("SELECT encode(key, 'hex') FROM session_token_key"))
    db = _connect(db_path)
    key = db.execute("SELECT key FROM session_token_key").fetchone()[0]
    db.close()
    return key


INSERT_USER = "INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)"
INSERT_IDENTITY = ("INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at)"
                   " VALUES (?, ?, ?, ?, ?, ?)")
# Course-style sessions: an access token (the chatterID) and no refresh token.
INSERT_SESSION = (
    "INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, refresh_hash, created_at, last_used_at,"
    " absolute_expires_at) VALUES (?, ?, 'google', ?, ?, NULL, ?, ?, ?)")


def _connect(db_path):
    db = sqlite3.connect(db_path, isolation_level=None)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        db.close()
        raise RuntimeError(f"{db_path} has schema version {version}; bench/seed.py is written for {SCHEMA_VERSION}: update it")
    return db


def _check_columns(db, statements=None):
    """Fails clearly when the schema no longer matches the INSERTs: a named column is gone, or a new
    NOT NULL column without a default would make them fail. Checked against the live schema because a
    pre-release migration may be edited in place without changing user_version."""
    for sql in statements or (INSERT_USER, INSERT_IDENTITY, INSERT_SESSION):
        table, names = re.match(r"INSERT INTO (\w+) \(([^)]*)\)", sql).groups()
        named = {name.strip() for name in names.split(",")}
        # PRAGMA table_info rows: (cid, name, type, notnull, default, pk)
        info = db.execute(f"PRAGMA table_info({table})").fetchall()
        columns = {row[1] for row in info}
        required = {row[1] for row in info if row[3] and row[4] is None and not row[5]}
        if not named <= columns or not required <= named:
            raise RuntimeError(f"bench/seed.py is out of date for table {table}: it inserts {sorted(named)}, the table has "
                               f"{sorted(columns)} (required: {sorted(required)}); update add_signed_in_users")


def add_signed_in_users(db_path, count, lifetime=86400, batch=50_000):
    """Adds `count` users, each with a Google identity and one live session whose chatterID is
    seeded_token(i). chatterd must be stopped. Returns seconds taken. `db_path` may be a
    PostgresDatabase instead of a SQLite file."""
    if isinstance(db_path, PostgresDatabase):
        return db_path.add_signed_in_users(count, lifetime)
    started = time.monotonic()
    db = _connect(db_path)
    _check_columns(db)
    # Throwaway bench data on a stopped server: no journal and no syncs, and one transaction with a
    # cache big enough that each page is written once (in WAL mode, random-key index pages were
    # rewritten on every batch and seeding a million users took minutes of I/O).
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -2097152")  # up to 2 GiB, only as pages are touched
    key = db.execute("SELECT key FROM session_token_key").fetchone()[0]
    now = time.time()
    db.execute("BEGIN")
    for first in range(0, count, batch):
        users, identities, sessions = [], [], []
        for i in range(first, min(first + batch, count)):
            user_id = str(uuid.uuid4()).upper()  # chatterd writes UUIDs upper-case (Foundation's uuidString)
            token_hash = hashlib.sha256(seeded_token(key, i).encode()).digest()
            users.append((user_id, f"Seeded {i}", now))
            identities.append((ISSUER, f"seeded-{i}", user_id, f"seeded-{i}@example.com", 1, now))
            sessions.append((str(uuid.uuid4()).upper(), user_id, token_hash, now + lifetime, now, now, now + lifetime))
        db.executemany(INSERT_USER, users)
        db.executemany(INSERT_IDENTITY, identities)
        db.executemany(INSERT_SESSION, sessions)
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode = WAL")  # back to what chatterd set (it is stored in the file)
    db.close()
    return time.monotonic() - started


def second_factor_key(data_dir):
    """The key chatterd sealed authenticator secrets under (`DATA_DIR/second-factor.key`, 64 hex digits)."""
    return bytes.fromhex((data_dir / "second-factor.key").read_text().strip())


def bench_totp_secret(i):
    """Seeded account i's authenticator secret (20 bytes), derived, not stored."""
    return hashlib.sha256(b"bench-totp-%d" % i).digest()[:20]


def bench_step_token(i):
    """The token of seeded account i's waiting sign-in, as a client sends it (base64url of 32 bytes)."""
    return base64.urlsafe_b64encode(hashlib.sha256(b"bench-step-%d" % i).digest()).rstrip(b"=").decode()


def totp_code(secret, step):
    """RFC 6238 as chatterd and the apps compute it: HMAC-SHA1 of the 30-second step, 6 digits."""
    mac = hmac.new(secret, step.to_bytes(8, "big"), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return "%06d" % ((int.from_bytes(mac[offset:offset + 4], "big") & 0x7FFFFFFF) % 1_000_000)


def _sealed_rows(key, count, first):
    """(user id, sealed secret, waiting sign-in hash) for seeded accounts first ..< first + count: each secret
    sealed as `SecretBox` seals it (AES-256-GCM under HKDF-SHA256(key, info "chatterd totp secret"), the
    account's id as additional data, stored as nonce + ciphertext + tag)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    box = AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"chatterd totp secret").derive(key))
    for i in range(first, first + count):
        user_id = str(uuid.UUID(bytes=hashlib.md5(b"bench-mfa-user-%d" % i).digest())).upper()
        nonce = secrets.token_bytes(12)
        sealed = nonce + box.encrypt(nonce, bench_totp_secret(i), user_id.encode())
        token = base64.urlsafe_b64decode(bench_step_token(i) + "=")
        yield user_id, sealed, hashlib.sha256(token).digest()


def add_waiting_second_steps(db_path, key, count, first=0, batch=50_000):
    """Adds `count` accounts with an authenticator (bench_totp_secret(i), no step used yet) and one sign-in
    waiting for its second step (bench_step_token(i)) whose first factor, a password, passed: what the
    second step's row sends codes for. chatterd must be stopped. `db_path` may be a PostgresDatabase.
    Returns seconds taken."""
    started = time.monotonic()
    now = time.time()
    rows = _sealed_rows(key, count, first)
    if isinstance(db_path, PostgresDatabase):
        return db_path.add_waiting_second_steps(rows, now, started)
    db = _connect(db_path)
    _check_columns(db, (INSERT_USER, INSERT_TOTP, INSERT_SECOND_STEP))
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    while True:
        chunk = [next(rows, None) for _ in range(batch)]
        chunk = [row for row in chunk if row]
        if not chunk:
            break
        db.executemany(INSERT_USER, [(u, "Two-step", now) for u, _, _ in chunk])
        db.executemany(INSERT_TOTP, [(u, sealed, now, now) for u, sealed, _ in chunk])
        db.executemany(INSERT_SECOND_STEP, [(h, u, now + 86_400) for u, _, h in chunk])
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode = WAL")
    db.close()
    return time.monotonic() - started


def code_address(i):
    """The address of emailed-code account i (bench/wrk/codes.lua asks for codes to the same)."""
    return f"bench-code-{i}@example.com"


def add_email_accounts(db_path, first, count, batch=50_000):
    """Adds accounts first ..< first + count, each with the identity an emailed-code sign-in makes
    (issuer "email", subject the address, verified) for code_address(i): the emailed-code row then signs
    existing accounts in, as the other sign-in rows do. chatterd must be stopped. `db_path` may be a
    PostgresDatabase. Returns seconds taken."""
    if isinstance(db_path, PostgresDatabase):
        return db_path.add_email_accounts(first, count)
    started = time.monotonic()
    now = time.time()
    db = _connect(db_path)
    _check_columns(db, (INSERT_USER, INSERT_IDENTITY))
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    for start in range(first, first + count, batch):
        rows = [(str(uuid.uuid4()).upper(), code_address(i), i) for i in range(start, min(start + batch, first + count))]
        db.executemany(INSERT_USER, [(user_id, f"Code {i}", now) for user_id, _, i in rows])
        db.executemany(INSERT_IDENTITY, [(EMAIL_ISSUER, address, user_id, address, 1, now) for user_id, address, _ in rows])
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode = WAL")
    db.close()
    return time.monotonic() - started


INSERT_TOTP = "INSERT INTO totp_authenticators (user_id, sealed_secret, confirmed_at, last_step, created_at) VALUES (?, ?, ?, 0, ?)"
# Waiting sign-ins live five minutes when chatterd makes them; seeded ones a day, so that every run finds its own.
INSERT_SECOND_STEP = "INSERT INTO second_steps (hash, user_id, method, email, expires_at) VALUES (?, ?, 'password', NULL, ?)"


def table_counts(db_path):
    if isinstance(db_path, PostgresDatabase):
        return db_path.table_counts()
    db = _connect(db_path)
    counts = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("users", "identities", "sessions", "chatts")}
    db.close()
    return counts


def integrity_check(db_path):
    """'ok' when SQLite finds the file consistent; otherwise its list of problems, joined."""
    db = sqlite3.connect(db_path)
    rows = [r[0] for r in db.execute("PRAGMA integrity_check")]
    db.close()
    return "; ".join(rows)


class PostgresDatabase:
    """A database of its own on a PostgreSQL server, for one bench run, reached with psql (written
    against PostgreSQL migration 3, Sources/ChatterStorage/Postgres/PostgresMigrations.swift)."""

    PG_SCHEMA_VERSION = 12

    def __init__(self, admin_url, name):
        self.admin_url, self.name = admin_url, name
        parts = urllib.parse.urlsplit(admin_url)
        self.url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, ""))

    @classmethod
    def create(cls, admin_url, prefix):
        database = cls(admin_url, prefix + secrets.token_hex(4))
        database.psql(f"CREATE DATABASE {database.name}", admin=True)
        return database

    def psql(self, sql, admin=False):
        url = self.admin_url if admin else self.url
        return subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qtAc", sql], capture_output=True, text=True, check=True).stdout.strip()

    def drop(self):
        self.psql(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)", admin=True)

    def server_version(self):
        return self.psql("SHOW server_version", admin=True)

    def add_signed_in_users(self, count, lifetime=86400):
        """The same rows as the SQLite seeding, generated by the server: the chatterID of row i is
        seeded_token(key, i), computed in SQL: HMAC-SHA256 spelled out as two SHA-256s over the key's
        inner and outer pads, which are computed here (PostgreSQL has sha256() but no hmac())."""
        version = self.psql("SELECT max(version) FROM schema_migrations")
        if version != str(self.PG_SCHEMA_VERSION):
            raise RuntimeError(f"the database is at PostgreSQL migration {version}; bench/seed.py is written for {self.PG_SCHEMA_VERSION}")
        started = time.monotonic()
        key = token_key(self).ljust(64, b"\0")
        inner, outer = bytes(b ^ 0x36 for b in key).hex(), bytes(b ^ 0x5C for b in key).hex()
        random = "substring(sha256(convert_to('bench-session-' || i, 'UTF8')) FROM 1 FOR 24)"
        tag = f"substring(sha256('\\x{outer}'::bytea || sha256('\\x{inner}'::bytea || {random})) FROM 1 FOR 8)"
        token = f"rtrim(translate(encode({random} || {tag}, 'base64'), '+/', '-_'), '=')"
        user_id = "md5('bench-user-' || i)::uuid"
        self.psql(f"""
            BEGIN;
            INSERT INTO users (id, display_name, created_at) SELECT {user_id}, 'Seeded ' || i, now() FROM generate_series(0, {count - 1}) i;
            INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at)
                SELECT '{ISSUER}', 'seeded-' || i, {user_id}, 'seeded-' || i || '@example.com', true, now() FROM generate_series(0, {count - 1}) i;
            INSERT INTO sessions (id, user_id, method, access_hash, access_expires_at, refresh_hash, created_at, last_used_at, absolute_expires_at)
                SELECT md5('bench-session-' || i)::uuid, {user_id}, 'google', sha256(convert_to({token}, 'UTF8')),
                    now() + interval '{lifetime} seconds', NULL, now(), now(), now() + interval '{lifetime} seconds'
                FROM generate_series(0, {count - 1}) i;
            COMMIT;
            ANALYZE;""")
        return time.monotonic() - started

    def add_email_accounts(self, first, count):
        """The SQLite seeding's accounts, generated by the server."""
        started = time.monotonic()
        last = first + count - 1
        user_id = "md5('bench-code-user-' || i)::uuid"
        address = "'bench-code-' || i || '@example.com'"
        self.psql(f"""
            BEGIN;
            INSERT INTO users (id, display_name, created_at) SELECT {user_id}, 'Code ' || i, now() FROM generate_series({first}, {last}) i;
            INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at)
                SELECT '{EMAIL_ISSUER}', {address}, {user_id}, {address}, true, now() FROM generate_series({first}, {last}) i;
            COMMIT;
            ANALYZE;""")
        return time.monotonic() - started

    def add_waiting_second_steps(self, rows, now, started):
        """The SQLite seeding's rows, through psql's \\copy from temporary files (the secrets are sealed here)."""
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as directory:
            paths = {name: os.path.join(directory, name) for name in ("users", "totp", "steps")}
            with open(paths["users"], "w") as users, open(paths["totp"], "w") as totp, open(paths["steps"], "w") as steps:
                for user_id, sealed, step_hash in rows:
                    users.write(f"{user_id}\tTwo-step\n")
                    totp.write(f"{user_id}\t\\\\x{sealed.hex()}\n")
                    steps.write(f"\\\\x{step_hash.hex()}\t{user_id}\n")
            script = "\n".join([
                "BEGIN;",
                "CREATE TEMP TABLE seed_users (id uuid, display_name text);",
                "CREATE TEMP TABLE seed_totp (user_id uuid, sealed bytea);",
                "CREATE TEMP TABLE seed_steps (hash bytea, user_id uuid);",
                f"\\copy seed_users FROM '{paths['users']}'",
                f"\\copy seed_totp FROM '{paths['totp']}'",
                f"\\copy seed_steps FROM '{paths['steps']}'",
                "INSERT INTO users (id, display_name, created_at) SELECT id, display_name, now() FROM seed_users;",
                "INSERT INTO totp_authenticators (user_id, sealed_secret, confirmed_at, last_step, created_at) SELECT user_id, sealed, now(), 0, now() FROM seed_totp;",
                "INSERT INTO second_steps (hash, user_id, method, email, expires_at) SELECT hash, user_id, 'password', NULL, now() + interval '1 day' FROM seed_steps;",
                "COMMIT;",
                "ANALYZE;",
            ])
            subprocess.run(["psql", self.url, "-v", "ON_ERROR_STOP=1", "-q"], input=script, text=True, capture_output=True, check=True)
        return time.monotonic() - started

    def table_counts(self):
        return {t: int(self.psql(f"SELECT count(*) FROM {t}")) for t in ("users", "identities", "sessions", "chatts")}
