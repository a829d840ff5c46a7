"""A passkey authenticator for the benchmarks: the smallest thing that answers chatterd's options as a
synced platform passkey does (WebAuthn Level 3 §6.3.2-3): a P-256 key, `none` attestation, flags UP, UV,
BE and BS, a counter that stays 0, and the client data a browser writes. The tests' authenticator is
Tests/ChatterTestSupport/SoftwareAuthenticator.swift; this one exists so the passkey row can sign
tens of thousands of assertions in seconds (the `cryptography` package, about 28,000 signatures/s)."""

import base64
import hashlib
import json
import os
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor_bytes(data):
    """A CBOR byte string's head (major type 2) and the bytes."""
    n = len(data)
    if n < 24:
        return bytes([0x40 | n]) + data
    if n < 256:
        return bytes([0x58, n]) + data
    return bytes([0x59]) + struct.pack(">H", n) + data


def cbor_text(text):
    data = text.encode()
    assert len(data) < 24
    return bytes([0x60 | len(data)]) + data


class Passkey:
    """One discoverable credential for one account (its user handle), on the relying party `rp_id`."""

    def __init__(self, rp_id, origin, user_handle):
        self.rp_id, self.origin, self.user_handle = rp_id, origin, user_handle
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.id = os.urandom(16)
        self.rp_hash = hashlib.sha256(rp_id.encode()).digest()
        # Every assertion's authenticator data is the same: the counter of a synced passkey stays 0.
        self.assertion_data = self.rp_hash + bytes([UP | UV | BE | BS]) + struct.pack(">I", 0)

    def cose_key(self):
        numbers = self.key.public_key().public_numbers()
        # {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}
        return (bytes([0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21]) + cbor_bytes(numbers.x.to_bytes(32, "big"))
                + bytes([0x22]) + cbor_bytes(numbers.y.to_bytes(32, "big")))

    def client_data(self, kind, challenge):
        return json.dumps({"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False},
                          separators=(",", ":")).encode()

    def registration(self, challenge, name="bench"):
        """The body of POST /v1/auth/passkey/register for creation options whose challenge is `challenge`."""
        attested = bytes(16) + struct.pack(">H", len(self.id)) + self.id + self.cose_key()
        auth_data = self.rp_hash + bytes([UP | UV | BE | BS | AT]) + struct.pack(">I", 0) + attested
        attestation = (bytes([0xA3]) + cbor_text("fmt") + cbor_text("none") + cbor_text("attStmt") + bytes([0xA0])
                       + cbor_text("authData") + cbor_bytes(auth_data))
        credential = {
            "id": b64url(self.id), "rawId": b64url(self.id), "type": "public-key", "authenticatorAttachment": "platform",
            "response": {"clientDataJSON": b64url(self.client_data("webauthn.create", challenge)),
                         "attestationObject": b64url(attestation), "transports": ["internal"]},
        }
        return {"credential": credential, "name": name}

    def assertion(self, challenge):
        """The body of POST /v1/auth/passkey/signin for request options whose challenge is `challenge`."""
        client_data = self.client_data("webauthn.get", challenge)
        signature = self.key.sign(self.assertion_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        credential = {
            "id": b64url(self.id), "rawId": b64url(self.id), "type": "public-key", "authenticatorAttachment": "platform",
            "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(self.assertion_data),
                         "signature": b64url(signature), "userHandle": b64url(self.user_handle)},
        }
        return {"credential": credential}
