"""Every SQL statement the bench scripts use, in one place, so a schema change is fixed here only.

Written against schema version 6 (Sources/ChatterServer/Storage/SQLite/SQLiteMigrations.swift). Seeding
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

SCHEMA_VERSION = 9
ISSUER = "https://accounts.google.com"


def seeded_token(key, i):
    """The chatterID of seeded session i: 43 base64url characters like a real one, derived, not stored:
    24 bytes of SHA-256("bench-session-i") and their 8-byte tag, HMAC-SHA256 under the database's
    session token key (`SessionTokenKey` in Sources/ChatterServer/Sessions/SessionToken.swift)."""
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


def _check_columns(db):
    """Fails clearly when the schema no longer matches the INSERTs: a named column is gone, or a new
    NOT NULL column without a default would make them fail. Checked against the live schema because a
    pre-release migration may be edited in place without changing user_version."""
    for sql in (INSERT_USER, INSERT_IDENTITY, INSERT_SESSION):
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
    against PostgreSQL migration 3, Sources/ChatterServer/Storage/Postgres/PostgresMigrations.swift)."""

    PG_SCHEMA_VERSION = 6

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

    def table_counts(self):
        return {t: int(self.psql(f"SELECT count(*) FROM {t}")) for t in ("users", "identities", "sessions", "chatts")}
