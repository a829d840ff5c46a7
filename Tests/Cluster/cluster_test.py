#!/usr/bin/env python3
"""Several chatterd instances on one PostgreSQL database behind a real load balancer (haproxy, round
robin), as an operator runs them. Three instances start at once on an empty database, then:

  1. the schema is migrated exactly once;
  2. a session made through one instance posts and refreshes through the others;
  3. a revocation on one instance (sign-out, revoking a session, account deletion) is refused by the
     others within 1 s;
  4. a rotated refresh token replayed at another instance is detected as reuse and the family ends;
  5. the email-code limits hold under parallel requests spread over all three;
  6. the password limit holds under parallel requests spread over all three;
  7. one instance SIGKILLed under load loses no acknowledged write while the others keep answering.

Prints one TAP line per step and exits 1 if any fails. Needs CHATTER_TEST_DATABASE_URL (see .ci/postgres)
for a server it may create databases on, haproxy and psql. Run by .ci/cluster-tests."""

import argparse
import concurrent.futures
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import benchlib as b  # noqa: E402
import seed  # noqa: E402

REVOCATION_BOUND = 1.0  # seconds: how late another instance may notice a revocation


class HTTP(b.Client):
    """benchlib's keep-alive client for one thread, answering parsed JSON."""

    def call(self, method, path, body=None, bearer=None):
        status, raw = self.request(method, path, body, bearer=bearer)
        try:
            return status, (json.loads(raw) if raw else None)
        except ValueError:
            return status, raw


def call(port, method, path, body=None, bearer=None):
    client = HTTP(port)
    try:
        return client.call(method, path, body, bearer)
    finally:
        client.close()


class Cluster:
    def __init__(self, binary, admin_url, workdir, count=3):
        self.database = seed.PostgresDatabase(admin_url, "chatter_cluster_" + secrets.token_hex(4))
        self.binary = binary
        self.workdir = workdir
        self.issuer = b.Issuer()
        jwks = self.issuer.serve()
        # Instances sharing a database share the key its secrets are sealed under: chatterd refuses to start with
        # another key than the one the database recorded.
        workdir.mkdir(parents=True, exist_ok=True)
        key = workdir / "second-factor.key"
        key.write_text(secrets.token_hex(32) + "\n")
        key.chmod(0o600)
        extra = ["--database", self.database.url, "--trusted-proxy", "127.0.0.1", "--bcrypt-cost", "4", "--second-factor-key", str(key)]
        self.servers = [b.Chatterd(binary, workdir / f"instance{k}", jwks_url=jwks, extra=extra) for k in range(count)]
        self.lb_port = b.free_port()
        self.haproxy = None

    def start(self):
        self.database.psql(f"CREATE DATABASE {self.database.name}", admin=True)
        errors = []

        def start(server):
            try:
                server.start()
            except RuntimeError as error:
                errors.append(error)
        threads = [threading.Thread(target=start, args=(s,)) for s in self.servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        config = self.workdir / "haproxy.cfg"
        lines = [
            "global", "    maxconn 2000",
            "defaults", "    mode http", "    timeout connect 2s", "    timeout client 30s", "    timeout server 30s",
            # A connection refused by a dead instance is retried on another: the request never reached it.
            "    retries 3", "    option redispatch", "    option forwardfor",
            "frontend chatter", f"    bind 127.0.0.1:{self.lb_port}", "    default_backend chatterd",
            "backend chatterd", "    balance roundrobin", "    option httpchk GET /health",
        ]
        lines += [f"    server i{k} 127.0.0.1:{s.port} check inter 200ms fall 2 rise 2" for k, s in enumerate(self.servers)]
        config.write_text("\n".join(lines) + "\n")
        self.haproxy = subprocess.Popen(["haproxy", "-f", str(config), "-db"], stdout=subprocess.DEVNULL,
                                        stderr=open(self.workdir / "haproxy.log", "wb"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if call(self.lb_port, "GET", "/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("haproxy did not answer")

    def stop(self):
        if self.haproxy and self.haproxy.poll() is None:
            self.haproxy.send_signal(signal.SIGUSR1)  # soft stop
            try:
                self.haproxy.wait(5)
            except subprocess.TimeoutExpired:
                self.haproxy.kill()
        for server in self.servers:
            if server.alive():
                server.stop()
        self.database.drop()

    def google(self, subject):
        status, session = call(self.servers[0].port, "POST", "/v1/auth/google",
                               {"clientID": b.CLIENT_ID, "idToken": self.issuer.token(subject)})
        assert status == 200, (status, session)
        return session

    def latest_code(self, since):
        """The newest sign-in code any instance logged after the offsets in `since` (the development mail
        transport logs it; the request may have reached any instance)."""
        pattern = re.compile(r">>> sign-in code for \S+: (\d+) <<<")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for server, offset in zip(self.servers, since):
                codes = pattern.findall(server.log_path.read_text(errors="replace")[offset:])
                if codes:
                    return codes[-1]
            time.sleep(0.05)
        raise RuntimeError("no sign-in code in any instance's log")

    def log_offsets(self):
        return [len(s.log_path.read_text(errors="replace")) for s in self.servers]


def parallel(count, fn, workers=50):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, range(count)))


def until_refused(port, bearer, bound=2.0):
    """Seconds until `bearer` is refused (401) by the instance at `port`, or None within `bound`."""
    started = time.monotonic()
    client = HTTP(port)
    try:
        while time.monotonic() - started < bound:
            status, _ = client.call("GET", "/v1/me", bearer=bearer)
            if status == 401:
                return time.monotonic() - started
            time.sleep(0.01)
    finally:
        client.close()
    return None


# ---------------------------------------------------------------------------------------------- steps

def migrated_once(c):
    versions = c.database.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations")
    applied = sum(s.log_path.read_text(errors="replace").count("applied schema migration") for s in c.servers)
    latest = seed.PostgresDatabase.PG_SCHEMA_VERSION
    assert versions == ",".join(str(v) for v in range(1, latest + 1)), f"schema_migrations holds {versions!r}"
    assert applied == latest, f"{applied} migrations logged over all instances for {latest} versions"
    return f"versions {versions}, each applied once over {len(c.servers)} instances"


def one_session_everywhere(c):
    a, b_, c_ = (s.port for s in c.servers)
    session = c.google("everywhere")
    for port in (a, c_):  # both cache the timeline now
        assert call(port, "GET", "/getchatts")[0] == 200 and call(port, "GET", "/v1/chatts")[0] == 200
    status, posted = call(b_, "POST", "/v1/chatts", {"message": "posted on instance 2"}, bearer=session["accessToken"])
    assert status == 201, (status, posted)
    for port, name in ((a, "1"), (c_, "3")):
        course = [row[1] for row in call(port, "GET", "/getchatts")[1]]
        native = [item["message"] for item in call(port, "GET", "/v1/chatts")[1]["chatts"]]
        assert "posted on instance 2" in course and "posted on instance 2" in native, f"instance {name}'s timeline missed the post"
    status, refreshed = call(c_, "POST", "/v1/auth/refresh", {"refreshToken": session["refreshToken"]})
    assert status == 200, (status, refreshed)
    status, me = call(a, "GET", "/v1/me", bearer=refreshed["accessToken"])
    assert status == 200, (status, me)
    status, _ = call(a, "GET", "/v1/me", bearer=session["accessToken"])
    assert status == 401, f"the rotated-away access token still works on instance 1: {status}"
    # And through the balancer, which spreads consecutive requests over all three.
    answers = [call(c.lb_port, "GET", "/v1/me", bearer=refreshed["accessToken"])[0] for _ in range(9)]
    assert answers == [200] * 9, answers
    return ("signed in on 1, posted on 2 (in 1's and 3's cached timelines at once), refreshed on 3, the new token accepted "
            "on 1 and 9× through haproxy")


def revocations_seen_everywhere(c):
    a, b_, c_ = (s.port for s in c.servers)
    seen = []

    def warm(token):
        for port in (b_, c_):  # both now hold the session in their caches
            status, _ = call(port, "GET", "/v1/me", bearer=token)
            assert status == 200, status

    def check(kind, token, revoke):
        warm(token)
        revoke()
        for port, name in ((b_, "2"), (c_, "3")):
            delay = until_refused(port, token)
            assert delay is not None and delay <= REVOCATION_BOUND, f"{kind}: instance {name} accepted the token for {delay} s"
            seen.append(delay)

    s = c.google("signout")
    check("sign-out", s["accessToken"], lambda: call(a, "POST", "/v1/auth/signout", {"all": False}, bearer=s["accessToken"]))
    keep, other = c.google("revoke"), c.google("revoke")
    status, listed = call(a, "GET", "/v1/sessions", bearer=keep["accessToken"])
    assert status == 200, status
    ids = [row["id"] for row in listed if not row["current"]]
    assert len(ids) == 1, listed
    check("revoke", other["accessToken"], lambda: call(a, "DELETE", f"/v1/sessions/{ids[0]}", bearer=keep["accessToken"]))
    gone = c.google("deleted")
    check("account deletion", gone["accessToken"], lambda: call(a, "DELETE", "/v1/me", bearer=gone["accessToken"]))
    # An operator's `chatterd admin disable`, a process of its own on the same database, seen by every instance.
    disabled = c.google("disabled")
    warm(disabled["accessToken"])
    status, _ = call(a, "GET", "/v1/me", bearer=disabled["accessToken"])
    assert status == 200, status
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATTERD_")}
    done = subprocess.run([c.binary, "admin", "disable", disabled["user"]["id"], "--database", c.database.url, "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["sessionsEnded"] == 1, (done.stdout, done.stderr)
    for port, name in ((a, "1"), (b_, "2"), (c_, "3")):
        delay = until_refused(port, disabled["accessToken"])
        assert delay is not None and delay <= REVOCATION_BOUND, f"disable: instance {name} accepted the token for {delay} s"
        seen.append(delay)
        status, refused = call(port, "POST", "/v1/auth/google", {"clientID": b.CLIENT_ID, "idToken": c.issuer.token("disabled")})
        assert status == 403 and refused["error"] == "account_disabled", f"instance {name} let a disabled account sign in: {status}"
    return (f"sign-out, revoke and account deletion refused by the other two, and `chatterd admin disable` by all three, after at "
            f"most {max(seen) * 1000:.0f} ms; the disabled account's sign-ins refused by each")


def replay_is_reuse(c):
    a, b_, c_ = (s.port for s in c.servers)
    session = c.google("replay")
    status, rotated = call(a, "POST", "/v1/auth/refresh", {"refreshToken": session["refreshToken"]})
    assert status == 200, status
    # A lost answer's retry, on another instance, within the grace window: the same pair once.
    status, retried = call(b_, "POST", "/v1/auth/refresh", {"refreshToken": session["refreshToken"]})
    assert status == 200 and retried["refreshToken"] == rotated["refreshToken"], (status, retried)
    status, reused = call(c_, "POST", "/v1/auth/refresh", {"refreshToken": session["refreshToken"]})
    assert status == 401 and reused.get("error") == "refresh_token_reused", (status, reused)
    status, _ = call(a, "POST", "/v1/auth/refresh", {"refreshToken": rotated["refreshToken"]})
    assert status == 401, f"the family lived on after reuse: {status}"
    delay = until_refused(b_, rotated["accessToken"])
    assert delay is not None and delay <= REVOCATION_BOUND, delay
    return "rotated on 1, retried once on 2, the next replay on 3 is refresh_token_reused and ends the family"


def email_code_limits(c):
    address = "limits@example.com"
    since = c.log_offsets()
    answers = parallel(100, lambda k: call(c.lb_port, "POST", "/v1/auth/email/code", {"email": address})[0])
    stored = int(c.database.psql(f"SELECT count(*) FROM email_codes WHERE email = '{address}'"))
    assert stored == 1, f"{stored} codes stored from 100 requests at once"
    assert answers.count(202) >= 1 and all(s in (202, 429) for s in answers), answers
    code = c.latest_code(since)
    wrong = [f"{n:06d}" for n in range(300) if f"{n:06d}" != code][:199] + [code]
    verdicts = parallel(len(wrong), lambda k: call(c.lb_port, "POST", "/v1/auth/email/verify",
                                                 {"email": address, "code": wrong[k]})[0])
    attempts = c.database.psql(f"SELECT coalesce(max(attempts), 0) FROM email_codes WHERE email = '{address}'")
    ok = verdicts.count(200)
    assert ok <= 1 and int(attempts) <= 5, (ok, attempts)
    assert all(s in (200, 401, 429) for s in verdicts), sorted(set(verdicts))
    return (f"100 code requests at once stored 1 code ({answers.count(202)}×202, {answers.count(429)}×429); "
            f"200 guesses at once: {ok} accepted, the code compared at most 5 times")


def password_limit(c):
    address = "pw-limit@example.com"
    since = c.log_offsets()
    status, _ = call(c.lb_port, "POST", "/v1/auth/email/code", {"email": address})
    assert status == 202, status
    code = c.latest_code(since)
    status, _ = call(c.lb_port, "POST", "/v1/auth/password/signup",
                     {"email": address, "code": code, "password": "cluster horse battery staple"})
    assert status == 200, status
    answers = parallel(100, lambda k: call(c.lb_port, "POST", "/v1/auth/password/signin",
                                           {"email": address, "password": f"wrong guess {k}"})[0])
    evaluated = answers.count(401)
    assert evaluated <= 10 and answers.count(429) == 100 - evaluated, (evaluated, sorted(set(answers)))
    return f"100 wrong passwords at once over 3 instances: {evaluated} evaluated (limit 10), {answers.count(429)} refused"


def kill_under_load(c):
    chatter_ids = []
    for k in range(8):
        status, body = call(c.lb_port, "POST", "/adduser", {"clientID": b.CLIENT_ID, "idToken": c.issuer.token(f"load{k}")})
        assert status == 200, status
        chatter_ids.append(body["chatterID"])
    acked, failed, stop = [], [], threading.Event()
    killed_at = []

    def work(w):
        client, n = HTTP(c.lb_port, timeout=5), 0
        while not stop.is_set():
            message = f"cluster w{w} #{n}"
            n += 1
            try:
                status, _ = client.call("POST", "/postauth", {"chatterID": chatter_ids[w], "message": message})
            except OSError:
                status = None
            (acked if status == 200 else failed).append((time.monotonic(), message, status))
    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    time.sleep(2)
    victim = c.servers[1]
    killed_at.append(time.monotonic())
    victim.kill()
    time.sleep(4)
    stop.set()
    for t in threads:
        t.join()
    status, rows = call(c.lb_port, "GET", "/getchatts")
    assert status == 200, status
    present = {row[1] for row in rows}
    lost = [m for _, m, _ in acked if m not in present]
    late_failures = [f for f in failed if f[0] > killed_at[0] + 1.0]
    after = sum(1 for t, _, _ in acked if t > killed_at[0])
    assert not lost, f"{len(lost)} acknowledged posts lost, e.g. {lost[:3]}"
    assert not late_failures, f"{len(late_failures)} requests failed more than 1 s after the kill: {late_failures[:3]}"
    return (f"{len(acked)} posts acknowledged ({after} after the kill), 0 lost; {len(failed)} failed, all within 1 s "
            f"of the SIGKILL")


STEPS = [
    ("three instances starting at once migrate the database once", migrated_once),
    ("sign in through one instance, post and refresh through the others", one_session_everywhere),
    ("a revocation on one instance (or by `chatterd admin`) is refused by the others within 1 s", revocations_seen_everywhere),
    ("a rotated refresh token replayed at another instance is reuse and ends the family", replay_is_reuse),
    ("email-code limits hold under parallel requests over all three", email_code_limits),
    ("the password limit holds under parallel requests over all three", password_limit),
    ("one instance SIGKILLed under load loses no acknowledged write; the others keep answering", kill_under_load),
]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chatterd", default=str(ROOT / ".build/debug/chatterd"))
    p.add_argument("--keep", action="store_true", help="keep the instances' data directories and logs")
    args = p.parse_args()
    admin_url = os.environ.get("CHATTER_TEST_DATABASE_URL")
    if not admin_url:
        print("cluster tests need CHATTER_TEST_DATABASE_URL (run .ci/postgres)", file=sys.stderr)
        return 1
    workdir = Path(tempfile.mkdtemp(prefix="chatter-cluster-"))
    cluster = Cluster(args.chatterd, admin_url, workdir)
    failures = 0
    try:
        cluster.start()
        print(f"# 3 instances on {cluster.database.name} behind haproxy on 127.0.0.1:{cluster.lb_port}", flush=True)
        for number, (name, step) in enumerate(STEPS, 1):
            started = time.monotonic()
            try:
                detail = step(cluster)
                print(f"ok {number} - {name} ({time.monotonic() - started:.1f} s)\n#   {detail}", flush=True)
            except (AssertionError, OSError, RuntimeError, KeyError, TypeError) as error:
                failures += 1
                print(f"not ok {number} - {name}\n#   {error!r}", flush=True)
    finally:
        cluster.stop()
        if args.keep:
            print(f"# kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"1..{len(STEPS)}: " + ("every step passed" if not failures else f"{failures} failed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
