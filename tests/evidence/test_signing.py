"""Signing the manifest in a DSSE envelope (gcv.evidence.signing): HMAC and Ed25519 signers, and
verification's three trust levels."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from gcv.evidence.signing import (ENV_ED25519, ENV_HMAC, ENV_VERIFY_ED25519, PAYLOAD_TYPE, Ed25519Signer,
                                  HmacSigner, SigningError, envelope_bytes, hmac_keyid, pae, sign_envelope,
                                  signer_from_env, trust_statement, verify_envelope)

MANIFEST = b'{"subjects": []}\n'
SECRET = "a-shared-secret-of-32-characters"


def test_pae_is_dsse_v1() -> None:
    assert pae("t", b"body") == b"DSSEv1 1 t 4 body"
    assert pae(PAYLOAD_TYPE, b"") == b"DSSEv1 28 application/vnd.in-toto+json 0 "


def test_hmac_sign_and_verify() -> None:
    signer = HmacSigner(SECRET)
    assert signer.keyid == hmac_keyid(SECRET.encode()) and signer.keyid.startswith("hmac-sha256:")
    envelope = envelope_bytes(sign_envelope(MANIFEST, signer))
    assert json.loads(envelope)["payload"] == base64.b64encode(MANIFEST).decode()
    ok = verify_envelope(envelope, MANIFEST, {ENV_HMAC: SECRET})
    assert (ok.status, ok.ok, ok.trusted, ok.trust) == ("verified", True, True, "trusted")
    assert verify_envelope(envelope, MANIFEST, {}).status == "unverifiable"
    other = verify_envelope(envelope, MANIFEST, {ENV_HMAC: "another-secret-of-enough-length"})
    assert other.status == "invalid" and "different HMAC secret" in other.message
    assert verify_envelope(envelope, b'{"subjects": [1]}\n', {ENV_HMAC: SECRET}).message == (
        "the signed payload is not this bundle's manifest.json")
    with pytest.raises(SigningError, match="too short"):
        HmacSigner("short")


def test_ed25519_embedded_key_gives_integrity_and_a_pinned_key_trust(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.generate()
    pem = tmp_path / "k.pem"
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    signer = signer_from_env({ENV_ED25519: str(pem), ENV_HMAC: SECRET})  # Ed25519 wins
    assert isinstance(signer, Ed25519Signer)
    envelope = envelope_bytes(sign_envelope(MANIFEST, signer))
    embedded = verify_envelope(envelope, MANIFEST, {})
    assert (embedded.status, embedded.trusted, embedded.trust) == ("verified", False, "integrity")
    pinned = verify_envelope(envelope, MANIFEST, {ENV_VERIFY_ED25519: str(pem)})
    assert pinned.trust == "trusted"
    other = tmp_path / "other.pem"
    other.write_bytes(ed25519.Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    assert verify_envelope(envelope, MANIFEST, {ENV_VERIFY_ED25519: str(other)}).status == "invalid"
    tampered = json.loads(envelope)
    tampered["signatures"][0]["sig"] = base64.b64encode(b"\0" * 64).decode()
    assert verify_envelope(json.dumps(tampered).encode(), MANIFEST, {}).message == "Ed25519 signature does not match"


def test_unsigned_and_malformed() -> None:
    assert signer_from_env({}) is None
    unsigned = verify_envelope(None, MANIFEST, {})
    assert (unsigned.ok, unsigned.trust) == (True, "unsigned")
    refused = verify_envelope(None, MANIFEST, {ENV_HMAC: SECRET})
    assert not refused.ok and "an unsigned bundle is refused here" in refused.message
    assert verify_envelope(b"{}", MANIFEST, {}).status == "invalid"
    assert verify_envelope(b"{}", MANIFEST, {}).trust == "none"


def test_trust_statements() -> None:
    assert trust_statement("trusted", "abcdef").explanation == "signed with a key you hold (keyid abcdef...)"
    assert (trust_statement("integrity").words, trust_statement("integrity").tone) == ("integrity only", "warn")
    assert trust_statement("bogus").level == "none" and trust_statement(None).tone == "bad"
