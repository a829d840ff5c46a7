"""Shared helpers for bench/run, bench/crash and bench/soak: building and running chatterd, local
stand-ins for Google's and Apple's key endpoints with ID tokens signed by them, a small HTTP client, RSS
sampling and wrk. Every SQL statement lives in seed.py, not here."""

import base64
import http.client
import http.server
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
WRK_SCRIPT = BENCH / "wrk" / "rotate.lua"
CHALLENGES_SCRIPT = BENCH / "wrk" / "challenges.lua"
CODES_SCRIPT = BENCH / "wrk" / "codes.lua"
CLIENT_ID = "1234-bench.apps.googleusercontent.com"
GOOGLE_ISSUER = "https://accounts.google.com"
APPLE_CLIENT_ID = "edu.bench.chatter"  # the app's bundle ID: Apple's tokens name it as their audience
APPLE_ISSUER = "https://appleid.apple.com"


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------- build

def build_chatterd(config="release", scratch=None):
    """Builds chatterd and returns the binary. Release builds are what the README deploys: the Swift runtime
    and Foundation linked in (--static-swift-stdlib), in their own scratch path so they never fight a debug
    build in .build over the same files; debug builds reuse .build (what CI already built)."""
    return swift_build("chatterd", config, scratch or (".build-static" if config == "release" else ".build"))


def swift_build(product, config, scratch, package=ROOT):
    """Builds `product` of the package in `package` into `scratch` and returns the binary: chatterd's build
    flags, shared with the peers built from source (bench/peers.py), so both are built the same way."""
    cmd = ["swift", "build", "-c", config, "--product", product, "--scratch-path", str(scratch)]
    if config == "release":
        cmd.append("--static-swift-stdlib")
    log("building:", " ".join(cmd))
    subprocess.run(cmd, cwd=package, check=True, stdout=sys.stderr)  # stdout is for the results
    bin_dir = subprocess.run(cmd + ["--show-bin-path"], cwd=package, check=True, capture_output=True, text=True).stdout.strip()
    return Path(bin_dir) / product


def add_build_options(parser):
    parser.add_argument("--config", choices=["release", "debug"], default="release",
                        help="build configuration (default release; CI uses debug to reuse its build, figures then mean little)")
    parser.add_argument("--chatterd", metavar="PATH", help="use this chatterd binary instead of building one")


def binary_from(args):
    return Path(args.chatterd) if args.chatterd else build_chatterd(args.config)


# -------------------------------------------------------------------------------------------- process

def free_port():
    # chatterd refuses --port 0, so pick a free port here; the tiny race is acceptable on loopback.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Chatterd:
    """One chatterd process over plain HTTP on loopback, restartable on the same data dir and port."""

    def __init__(self, binary, data_dir, port=None, jwks_url=None, client_id=CLIENT_ID, extra=(), wrapper=()):
        self.binary, self.data_dir = Path(binary), Path(data_dir)
        self.port = port or free_port()
        # `wrapper`: a command chatterd runs under (valgrind), which keeps chatterd's pid.
        self.args = [*wrapper, str(self.binary), "--http", "--port", str(self.port), "--data-dir", str(self.data_dir), *extra]
        if jwks_url:
            self.args += ["--google-jwks-url", jwks_url, "--google-client-id", client_id]
        self.log_path = self.data_dir.parent / (self.data_dir.name + ".log")
        self.proc = None

    @property
    def db_path(self):
        return self.data_dir / "chatterd.sqlite"

    @property
    def pid(self):
        return self.proc.pid

    def start(self, timeout=60):
        # Logs go to a file, not a pipe: an undrained pipe would eventually block chatterd.
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as logfile:
            self.proc = subprocess.Popen(self.args, stdout=logfile, stderr=logfile, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chatterd exited with {self.proc.returncode} while starting; see {self.log_path}")
            try:
                if Client(self.port, timeout=1).get("/health")[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"chatterd did not answer /health within {timeout}s; see {self.log_path}")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=30):
        """SIGTERM: in-flight requests finish, then the database closes (what migrations and seeding need)."""
        if not self.alive():
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("chatterd did not stop within %ss of SIGTERM" % timeout)
        if code != 0:
            raise RuntimeError(f"chatterd exited with {code} after SIGTERM; see {self.log_path}")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def settle(self, window=0.5, quiet_windows=3, timeout=180):
        settle(self, "chatterd", window, quiet_windows, timeout)

    def rss_kb(self, field="VmRSS"):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def memory_kb(self):
        """Resident memory by kind, from /proc/PID/smaps: `heap` (anonymous: malloc's arenas, stacks, SQLite's
        page caches, buffers), `database` (the readers' mapping of the database file: pages of data, dropped by
        the kernel under pressure), `code` (the binary and shared libraries, shared with every process that maps
        them). Only `heap` can be a leak."""
        split = {"heap": 0, "database": 0, "code": 0}
        data = str(Path(self.data_dir).resolve())
        try:
            with open(f"/proc/{self.proc.pid}/smaps") as f:
                kind = "heap"
                for line in f:
                    name = line.split(" ", 1)[0]
                    if "-" in name and not name.endswith(":"):  # a mapping's first line: "start-end perms offset dev inode path"
                        fields = line.split()
                        path = fields[5] if len(fields) > 5 else ""
                        kind = "database" if path.startswith(data) else "code" if path.startswith("/") else "heap"
                    elif name == "Rss:":
                        split[kind] += int(line.split()[1])
                    elif name == "Anonymous:" and kind != "heap":
                        # A private file mapping's written pages (relocations) are anonymous: heap-like, not the file's.
                        anonymous = int(line.split()[1])
                        split[kind] -= anonymous
                        split["heap"] += anonymous
        except OSError:
            return None
        return split


def settle(server, name, window=0.5, quiet_windows=3, timeout=180):
    """Waits until `server` (anything with `cpu_seconds()`) has used (almost) no CPU for `quiet_windows`
    windows in a row: work queued by the previous row (e.g. 64 concurrent /getchatts recomputations after a
    post) must not spill into the next. The bar is low (1% of a core) because on a busy machine a starved but
    still-working server may get only a few percent of a core."""
    deadline, last, quiet = time.monotonic() + timeout, server.cpu_seconds(), 0
    while time.monotonic() < deadline:
        time.sleep(window)
        now = server.cpu_seconds()
        quiet = quiet + 1 if now - last < 0.01 * window else 0
        if quiet >= quiet_windows:
            return
        last = now
    raise RuntimeError(f"{name} stayed busy for {timeout}s after a row")


def tally(runs, expect):
    """Every run's answers counted by status, and how many had a status not in `expect`."""
    statuses = {}
    for run in runs:
        for status, n in run["statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
    return statuses, sum(n for status, n in statuses.items() if status not in expect)


class RSSSampler:
    """Samples a process's VmRSS every `interval` seconds in a thread; `peak_kb` is the highest seen."""

    def __init__(self, server, interval=0.1):
        self.server, self.interval = server, interval
        self.peak_kb = server.rss_kb() or 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(self.interval):
            self.peak_kb = max(self.peak_kb, self.server.rss_kb() or 0)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def fresh_dir(prefix="chatterd-bench-"):
    root = Path(tempfile.mkdtemp(prefix=prefix))
    return root, root / "data"


def remove_dir(path):
    shutil.rmtree(path, ignore_errors=True)


# ------------------------------------------------------------------------------------------------ http

class Client:
    """A keep-alive HTTP/1.1 client for one thread. Raises OSError (incl. http.client errors) on failure."""

    def __init__(self, port, timeout=10):
        self.port, self.timeout = port, timeout
        self.conn = None

    def request(self, method, path, body=None, bearer=None, headers=None):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        data = None if body is None else (body if isinstance(body, (bytes, str)) else json.dumps(body))
        headers = dict(headers or {})
        if data is not None:
            headers["Content-Type"] = "application/json"
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise OSError(f"{method} {path}: {error!r}") from error

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body):
        return self.request("POST", path, body)

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def expect_ok(result, what):
    status, body = result
    if status != 200:
        raise RuntimeError(f"{what}: HTTP {status} {body[:200]!r}")
    return json.loads(body)


def sign_in(client, token):
    """POST /adduser; returns the chatterID."""
    return expect_ok(client.post("/adduser", {"clientID": CLIENT_ID, "idToken": token}), "adduser")["chatterID"]


def passkey_challenges(port, path, seconds, threads=2, connections=64):
    """Sign-in options from chatterd for `seconds` (wrk with challenges.lua): every challenge it issued, unused."""
    cmd = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{max(1, round(seconds))}s", "-s", str(CHALLENGES_SCRIPT),
           f"http://127.0.0.1:{port}"]
    out = subprocess.run(cmd, env=dict(os.environ, BENCH_CHALLENGES=str(path)), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"wrk (passkey options) failed ({out.returncode}): {out.stderr[-2000:]}")
    challenges = []
    for index in range(1, threads + 1):
        part = Path(f"{path}.{index}")
        challenges += part.read_text().split()
        part.unlink()
    return challenges


def email_codes(port, outbox, first, seconds, threads=2, connections=64):
    """Sign-in codes from chatterd for `seconds` (wrk with codes.lua): one per address, for
    bench-code-N@example.com from N = `first` up, each asked for from a client address of its own in
    X-Forwarded-For (chatterd must trust 127.0.0.1 as a proxy). Read from the messages chatterd's
    development transport (`--mail log`, the default) wrote to `outbox`, which are removed. Returns
    {address: code}."""
    cmd = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{max(1, round(seconds))}s", "-s", str(CODES_SCRIPT),
           f"http://127.0.0.1:{port}"]
    env = dict(os.environ, BENCH_CODE_FIRST=str(first), BENCH_THREADS=str(threads))
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"wrk (email codes) failed ({out.returncode}): {out.stderr[-2000:]}")
    to, code = re.compile(r"^To: .*?<?(bench-code-\d+@example\.com)>?\r?$", re.M), re.compile(r"sign-in code is (\d{6})")
    codes = {}
    for entry in os.scandir(outbox):
        if not entry.name.endswith(".eml"):
            continue
        text = Path(entry.path).read_text(errors="replace")
        address, digits = to.search(text), code.search(text)
        if address and digits:
            codes[address.group(1)] = digits.group(1)
            os.unlink(entry.path)
    statuses = re.search(r"^BENCH_CODES (.*)$", out.stdout, re.M)
    refused = {k: v for k, v in json.loads(statuses.group(1)).items() if k != "202"} if statuses else {}
    if refused:
        log(f"email codes: answers other than 202: {refused}")
    return codes


def native_sign_in(client, token, dpop=None):
    """POST /v1/auth/google; returns the session (accessToken, refreshToken, ...). With `dpop` (a DPoPKey),
    the session is bound to that key."""
    headers = {"DPoP": dpop.proof("POST", f"http://127.0.0.1:{client.port}/v1/auth/google")} if dpop else None
    return expect_ok(client.request("POST", "/v1/auth/google", {"clientID": CLIENT_ID, "idToken": token}, headers=headers), "google sign-in")


class DPoPKey:
    """A client's DPoP key (RFC 9449, ES256) in software, as an app's would sign: proofs made here with
    Python's `cryptography`, never by chatterd's own code."""

    def __init__(self):
        from cryptography.hazmat.primitives.asymmetric import ec
        self.key = ec.generate_private_key(ec.SECP256R1())
        numbers = self.key.public_key().public_numbers()
        jwk = {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}
        self.header = b64url(json.dumps({"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk}, separators=(",", ":")).encode())

    def proof(self, method, url, access_token=None):
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        claims = {"jti": b64url(secrets.token_bytes(12)), "htm": method, "htu": url, "iat": int(time.time())}
        if access_token:
            import hashlib
            claims["ath"] = b64url(hashlib.sha256(access_token.encode()).digest())
        signing_input = self.header + "." + b64url(json.dumps(claims, separators=(",", ":")).encode())
        r, s = decode_dss_signature(self.key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def web_session_cookie(port, bearer):
    """A browser's Cookie header signed in as the native session `bearer`, the way the app opens its web view:
    POST /v1/auth/web-session for a one-time link, then the link loaded with the app's header, whose answer
    sets the session cookie. The browser cookie is made up here, as a browser's first visit would get one."""
    client = Client(port)
    link = expect_ok(client.request("POST", "/v1/auth/web-session", "{}", bearer=bearer), "web-session link")["url"]
    client.close()
    browser = f"__Host-chatter-browser={b64url(secrets.token_bytes(32))}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", link, headers={"X-Chatter-Web-Session": "app", "Cookie": browser})
    response = conn.getresponse()
    response.read()
    cookies = [c.split(";", 1)[0] for c in response.headers.get_all("Set-Cookie") or [] if c.startswith("__Host-chatter-session=")]
    conn.close()
    if response.status != 303 or not cookies:
        raise RuntimeError(f"web-session redeem: HTTP {response.status}, no session cookie")
    return f"{browser}; {cookies[0]}"


def password_sign_up(server, email, password):
    """Creates a password account the way a person does: asks for a code, reads it from chatterd's log
    (the development mail transport prints it), and signs up with it. Returns the session."""
    client = Client(server.port, timeout=30)  # a bcrypt hash on a busy debug build can take seconds
    status, body = client.post("/v1/auth/email/code", {"email": email})
    if status != 202:
        raise RuntimeError(f"email code: HTTP {status} {body[:200]!r}")
    # The log masks the address, so this takes the newest code: call it for one address at a time.
    pattern = re.compile(r">>> sign-in code for \S+: (\d+) <<<")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        codes = pattern.findall(server.log_path.read_text(errors="replace"))
        if codes:
            return expect_ok(client.post("/v1/auth/password/signup", {"email": email, "code": codes[-1], "password": password}),
                             "password sign-up")
        time.sleep(0.05)
    raise RuntimeError(f"no sign-in code for {email} in {server.log_path}")


def hash_speed(binary, cost, seconds):
    """bcrypt verifications/s on every core, measured by chatterd's own hasher (`chatterd hash-speed`)."""
    out = subprocess.run([str(binary), "hash-speed", "--cost", str(cost), "--seconds", str(seconds), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["hashes_per_second"]


def p256_verify_us(seconds=1):
    """Microseconds one P-256 ECDSA verification takes on one core here (`openssl speed`: OpenSSL's ecp_nistz256, the code
    BoringSSL's in chatterd derives from; perf shows the two within a tenth), or None without openssl: the least a DPoP
    proof adds to a request."""
    try:
        out = subprocess.run(["openssl", "speed", "-seconds", str(seconds), "ecdsap256"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        # "256 bits ecdsa (nistp256)   0.0000s   0.0001s  38045.5  10998.4": the last figure is verifications/s.
        if "ecdsa (nistp256)" in line:
            try:
                return 1e6 / float(line.split()[-1])
            except (ValueError, ZeroDivisionError):  # another openssl's layout: no figure rather than a wrong one
                return None
    return None


def post_chatts(port, chatter_ids, count, threads=4, prefix="seed"):
    """Posts `count` chatts through /postauth from a few keep-alive connections (cheap: ~ms each)."""
    def work(k):
        client = Client(port)
        for i in range(k, count, threads):
            expect_ok(client.post("/postauth", {"chatterID": chatter_ids[i % len(chatter_ids)], "message": f"{prefix} {i}"}), "postauth")
        client.close()
    run_threads(work, threads)


def run_threads(fn, n):
    errors = []

    def wrapped(k):
        try:
            fn(k)
        except Exception as error:  # surfaced below: a seeding failure is an error, not a figure
            errors.append(error)
    workers = [threading.Thread(target=wrapped, args=(k,)) for k in range(n)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]


# ---------------------------------------------------------------------------- local identity provider

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def random_chatter_id():
    """The shape of a real chatterID (43 base64url characters, 256 bits) that no session has."""
    return b64url(secrets.token_bytes(32))


class Issuer:
    """An RSA key standing in for Google: serves its JWKS on loopback and signs RS256 ID tokens
    (`AppleIssuer` stands in for Apple the same way)."""

    def __init__(self, kid="bench-key-1"):
        from cryptography.hazmat.primitives.asymmetric import rsa  # imported here: only needed with tokens
        self.kid = kid
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        numbers = self.key.public_key().public_numbers()

        def uint(n):
            return b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))
        self.jwks = json.dumps({"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
                                          "n": uint(numbers.n), "e": uint(numbers.e)}]}).encode()
        self.server = None

    def serve(self):
        """Starts the key endpoint in a daemon thread; returns its URL."""
        body = self.jwks

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "public, max-age=3600")  # as Google does: fetched once
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/certs"

    def token(self, subject, name="Bench User", lifetime=3600):
        now = int(time.time())
        return self.sign({"iss": GOOGLE_ISSUER, "aud": CLIENT_ID, "azp": CLIENT_ID, "sub": str(subject), "iat": now,
                          "exp": now + lifetime, "email": f"{subject}@example.com", "email_verified": True, "name": name})

    def sign(self, claims):
        """`claims` as an RS256 JWT under this key (its kid in the header)."""
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding
        header = {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
        signature = self.key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return signing_input + "." + b64url(signature)

    def tokens(self, count, prefix):
        return [self.token(f"{prefix}{i}", name=f"Bench {i}") for i in range(count)]


class AppleIssuer(Issuer):
    """An RSA key standing in for Apple (whose identity tokens are RS256 too): serves its JWKS on loopback,
    for chatterd's --apple-jwks-url, and signs identity tokens with Apple's claims: iss
    https://appleid.apple.com, aud the app's bundle ID, no name (Apple gives it to the app only), a private
    relay address, and the nonce as the app asks for it, hex(SHA-256(raw nonce))."""

    def __init__(self, kid="bench-apple-key-1"):
        super().__init__(kid)

    def sign_in(self, subject, lifetime=3600):
        """The body of POST /v1/auth/apple as the app sends it on a returning sign-in: the identity token,
        the raw nonce it was asked with, and the credential's user (the token's sub); no name and no
        authorization code (so chatterd does not call Apple's token service). Apple's tokens live ten minutes;
        an hour keeps a long run's inside their lifetime, and costs chatterd nothing more."""
        import hashlib
        now = int(time.time())
        raw_nonce = b64url(secrets.token_bytes(32))
        token = self.sign({"iss": APPLE_ISSUER, "aud": APPLE_CLIENT_ID, "sub": str(subject), "iat": now, "exp": now + lifetime,
                           "nonce": hashlib.sha256(raw_nonce.encode()).hexdigest(), "nonce_supported": True,
                           "email": f"{subject}@privaterelay.appleid.com", "email_verified": True, "is_private_email": True,
                           "auth_time": now, "real_user_status": 2})
        return {"identityToken": token, "rawNonce": raw_nonce, "user": str(subject)}

    def sign_ins(self, count, prefix):
        return [self.sign_in(f"{prefix}{i}") for i in range(count)]


# ------------------------------------------------------------------------------------------------- wrk

def write_requests(path, requests):
    """One request per line, METHOD<TAB>PATH<TAB>BODY[<TAB>BEARER[<TAB>COOKIE]], for wrk/rotate.lua (JSON
    bodies have no raw tabs). A request is (method, path, body), (method, path, body, bearer token) or
    (method, path, body, bearer token or "", Cookie header)."""
    with open(path, "w") as f:
        for method, target, body, *extra in requests:
            text = "" if body is None else (body if isinstance(body, str) else json.dumps(body, separators=(",", ":")))
            assert all("\t" not in v and "\n" not in v for v in [text, *extra])
            f.write("\t".join([method, target, text, *extra]) + "\n")
    return path


def wrk_command(port, requests_file, duration, threads=2, connections=64, timeout="10s", refresh_tokens=None, once=False,
                dpop_proofs=None):
    """wrk's command line and environment: rotate.lua over `requests_file` (each request at most once
    with `once`), or over refresh chains (each refresh with one of `dpop_proofs`, when given)."""
    cmd = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{max(1, round(duration))}s", "--timeout", timeout,
           "-s", str(WRK_SCRIPT), f"http://127.0.0.1:{port}"]
    env = dict(os.environ, BENCH_REQUESTS=str(requests_file or ""), BENCH_THREADS=str(threads),
               BENCH_REFRESH_TOKENS=str(refresh_tokens or ""), BENCH_ONCE="1" if once else "", BENCH_DPOP_PROOFS=str(dpop_proofs or ""))
    return cmd, env


def wrk(port, requests_file, duration, threads=2, connections=64, timeout="10s", refresh_tokens=None, once=False, dpop_proofs=None):
    """Runs wrk with rotate.lua and returns its result: requests/s, latency percentiles (ms), statuses."""
    cmd, env = wrk_command(port, requests_file, duration, threads, connections, timeout, refresh_tokens, once, dpop_proofs)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return wrk_result(out)


def wrk_result(out):
    match = re.search(r"^BENCH_RESULT (.*)$", out.stdout, re.M)
    if out.returncode != 0 or not match:
        raise RuntimeError(f"wrk failed ({out.returncode}): {out.stdout[-2000:]} {out.stderr[-2000:]}")
    raw = json.loads(match.group(1))
    seconds = raw["duration_us"] / 1e6
    statuses = {int(k): v for k, v in raw["statuses"].items()}
    return {
        "requests": raw["requests"],
        "rps": raw["requests"] / seconds if seconds else 0.0,
        "p50_ms": raw["p50_us"] / 1000, "p99_ms": raw["p99_us"] / 1000, "max_ms": raw["max_us"] / 1000,
        "statuses": statuses,
        "non_2xx": sum(v for k, v in statuses.items() if not 200 <= k < 300),
        "socket_errors": raw["errors"],
    }


def cpu_pressure_total():
    """Microseconds some task has waited for a CPU since boot (Linux PSI), or None where unsupported."""
    try:
        with open("/proc/pressure/cpu") as f:
            return int(f.readline().split("total=")[1])
    except (OSError, IndexError, ValueError):
        return None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("".join(f"{line}\n" for line in lines))
    return path
