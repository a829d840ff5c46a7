#!/usr/bin/env python3
"""Slow clients cannot hold chatterd (issue 24, finding 5).

Starts chatterd with 256 descriptors (soft and hard limit), opens 300 connections that each send half a
request head and then nothing, and keeps every one of them open. chatterd must close each stale
connection at its deadline (--head-timeout, 10 s by default) and answer /health on a new connection while
the client still holds all 300 sockets. Prints each figure; exits 1 when a check fails.

    python3 Tests/Connections/slowloris_test.py --chatterd .build/debug/chatterd
"""
import argparse
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HELD = 300
DESCRIPTORS = 256
HEAD_TIMEOUT = 10


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def health(port, timeout):
    """The status of GET /health on a new connection, or None when no answer came within `timeout`."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
            connection.sendall(b"GET /health HTTP/1.1\r\nHost: chatterd\r\nConnection: close\r\n\r\n")
            answer = connection.recv(64)
            return int(answer.split()[1]) if answer.startswith(b"HTTP/1.1 ") else None
    except OSError:
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chatterd", default=".build/debug/chatterd")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.chatterd)
    data = tempfile.mkdtemp(prefix="chatter-slowloris-")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATTERD_")}
    command = f'ulimit -n {DESCRIPTORS} && exec "{binary}" serve --http --port {port} --data-dir "{data}" --head-timeout {HEAD_TIMEOUT}'
    server = subprocess.Popen(["bash", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    failures = []
    held = []
    try:
        banner = server.stdout.readline()
        if "listening" not in banner:
            raise SystemExit(f"chatterd did not start: {banner} {server.stderr.read()}")
        limits = open(f"/proc/{server.pid}/limits").read()
        line = next(l for l in limits.splitlines() if l.startswith("Max open files"))
        print(f"chatterd pid {server.pid}: {line.split()[3]} descriptors (soft), {line.split()[4]} (hard)")
        if health(port, 5) != 200:
            failures.append("no /health before the attack")

        started = time.monotonic()
        for index in range(HELD):
            connection = socket.socket()
            connection.settimeout(5)
            connection.connect(("127.0.0.1", port))
            connection.sendall(b"GET /health HTTP/1.1\r\nHost: chatterd\r\nX-Slow: ")
            connection.setblocking(False)
            held.append(connection)
        print(f"{HELD} half-sent requests held open after {time.monotonic() - started:.1f} s")
        blocked = health(port, 2)
        print(f"/health on a new connection while they are held: {blocked or 'no answer within 2 s'}")

        # Every held socket the server closes reads as end of file; /health must come back meanwhile.
        closed, answered_at = set(), None
        deadline = started + 6 * HEAD_TIMEOUT
        while time.monotonic() < deadline and (len(closed) < HELD or answered_at is None):
            readable, _, _ = select.select([c for c in held if c.fileno() not in closed], [], [], 0.5)
            for connection in readable:
                try:
                    if connection.recv(4096) == b"":
                        closed.add(connection.fileno())
                except (ConnectionResetError, BlockingIOError):
                    closed.add(connection.fileno())
            if answered_at is None and health(port, 1) == 200:
                answered_at = time.monotonic() - started
                print(f"/health answered again {answered_at:.1f} s after the attack began, {len(closed)} stale connections closed so far")
        elapsed = time.monotonic() - started
        print(f"stale connections closed by chatterd: {len(closed)} of {HELD} within {elapsed:.1f} s (head deadline {HEAD_TIMEOUT} s)")
        if answered_at is None or answered_at > 4 * HEAD_TIMEOUT:
            failures.append(f"/health did not answer within {4 * HEAD_TIMEOUT} s while the sockets were held")
        if len(closed) < HELD:
            failures.append(f"only {len(closed)} of {HELD} stale connections were closed")
        if server.poll() is not None:
            failures.append(f"chatterd exited ({server.returncode})")
    finally:
        for connection in held:
            connection.close()
        server.terminate()
        try:
            _, errors = server.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            _, errors = server.communicate()
        shutil.rmtree(data, ignore_errors=True)
    logged = errors.count("missed its deadline")
    print(f"chatterd logged {logged} deadline closes; cap reached: {'connection cap reached' in errors}")
    if logged == 0:
        failures.append("chatterd did not log the closes")
    for failure in failures:
        print(f"FAIL: {failure}")
    print("connection limits: " + ("every check passed" if not failures else f"{len(failures)} failed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
