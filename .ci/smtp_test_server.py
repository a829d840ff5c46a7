#!/usr/bin/python3
"""A real SMTP server for chatterd's mail tests, on loopback ports the kernel picks.

Needs Debian's python3-aiosmtpd (run it with /usr/bin/python3); `.ci/smtp-server` installs and starts it.
Every accepted message is saved, Maildir style, under <state>/maildir/new, one file per message, with
Return-Path and Delivered-To lines prepended so tests can check the envelope too. Once every port accepts
connections, the settings are written (atomically) as shell exports to the env file.
"""
import argparse
import itertools
import logging
import os
import shlex
import signal
import subprocess
import threading
import time
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

# Fixed test credentials: they only open this throwaway loopback server.
USER = "chatter-test"
PASSWORD = "correct horse battery staple"
REJECTED_RECIPIENT = "nobody@reject.test"
HOST = "127.0.0.1"


class Maildir:
    def __init__(self, root):
        self.root = root
        self.counter = itertools.count()
        self.lock = threading.Lock()
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(root, sub), exist_ok=True)

    def deliver(self, envelope):
        with self.lock:
            name = f"{time.time_ns()}.P{os.getpid()}Q{next(self.counter)}.chatter-test"
        envelope_lines = [f"Return-Path: <{envelope.mail_from}>"]
        envelope_lines += [f"Delivered-To: {rcpt}" for rcpt in envelope.rcpt_tos]
        data = ("\r\n".join(envelope_lines) + "\r\n").encode() + envelope.original_content
        # Written to tmp/ then renamed into new/, so a reader never sees half a message.
        temporary = os.path.join(self.root, "tmp", name)
        with open(temporary, "wb") as file:
            file.write(data)
        os.rename(temporary, os.path.join(self.root, "new", name))


class Handler:
    def __init__(self, maildir, rejected=()):
        self.maildir = maildir
        self.rejected = {address.lower() for address in rejected}

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.rejected:
            return "550 5.1.1 user unknown"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        self.maildir.deliver(envelope)
        return "250 2.0.0 Message accepted for delivery"


def authenticator(server, session, envelope, mechanism, auth_data):
    accepted = (
        isinstance(auth_data, LoginPassword)
        and auth_data.login == USER.encode()
        and auth_data.password == PASSWORD.encode()
    )
    # A failed result makes aiosmtpd answer "535 5.7.8 Authentication credentials invalid".
    return AuthResult(success=accepted, handled=False)


class EphemeralController(Controller):
    """A Controller on port 0: learns the kernel's port before Controller's start-up self-test connects."""

    def _trigger_server(self):
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


def make_certificate(directory):
    cert = os.path.join(directory, "smtp-test.crt")
    key = os.path.join(directory, "smtp-test.key")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
         "-keyout", key, "-out", cert, "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.chmod(key, 0o600)
    return cert, key


def tls_context(cert, key):
    import ssl
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", default="/tmp/chatter-smtp", help="directory for the certificate and maildir")
    parser.add_argument("--env-file", default="/tmp/chatter-smtp.env")
    args = parser.parse_args()

    # The implicit-TLS port requires AUTH with auth_require_tls off on purpose (see below); aiosmtpd's
    # warning about that would only be noise in the CI log.
    warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
    logging.getLogger("mail.log").setLevel(logging.ERROR)

    os.makedirs(args.state, exist_ok=True)
    cert, key = make_certificate(args.state)
    maildir = Maildir(os.path.join(args.state, "maildir"))
    # server_hostname avoids aiosmtpd's default getfqdn(), a DNS lookup that can stall on CI machines.
    common = dict(hostname=HOST, port=0, server_hostname="localhost", ready_timeout=30)
    controllers = {
        "PLAIN": EphemeralController(Handler(maildir), **common),
        "STARTTLS": EphemeralController(
            Handler(maildir), **common, tls_context=tls_context(cert, key), require_starttls=True,
            auth_required=True, authenticator=authenticator),
        # The session is TLS from the first byte, which aiosmtpd's auth_require_tls does not recognise;
        # PLAIN is withheld so the client's AUTH LOGIN fallback gets exercised.
        "IMPLICIT_TLS": EphemeralController(
            Handler(maildir), **common, ssl_context=tls_context(cert, key), auth_required=True,
            auth_require_tls=False, auth_exclude_mechanism=["PLAIN"], authenticator=authenticator),
        "REJECT": EphemeralController(Handler(maildir, rejected=[REJECTED_RECIPIENT]), **common),
    }
    for controller in controllers.values():
        controller.start()

    settings = {f"CHATTER_TEST_SMTP_{name}_PORT": controller.port for name, controller in controllers.items()}
    settings.update({
        "CHATTER_TEST_SMTP_HOST": HOST,
        "CHATTER_TEST_SMTP_CERT": cert,
        "CHATTER_TEST_SMTP_MAILDIR": maildir.root,
        "CHATTER_TEST_SMTP_USER": USER,
        "CHATTER_TEST_SMTP_PASSWORD": PASSWORD,
        "CHATTER_TEST_SMTP_REJECTED_RECIPIENT": REJECTED_RECIPIENT,
        "CHATTER_TEST_SMTP_PID": os.getpid(),
    })
    text = "".join(f"export {name}={shlex.quote(str(value))}\n" for name, value in settings.items())
    temporary = args.env_file + ".tmp"
    with open(temporary, "w") as file:
        file.write(text)
    os.replace(temporary, args.env_file)
    print(text, end="", flush=True)

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    for controller in controllers.values():
        controller.stop()


if __name__ == "__main__":
    main()
