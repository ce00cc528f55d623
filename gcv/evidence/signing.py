"""Optional signing of the manifest in a DSSE envelope (``manifest.dsse.json``).

Envelope (DSSE v1)::

    {"payloadType": "application/vnd.in-toto+json",
     "payload": base64(manifest.json bytes),
     "signatures": [{"keyid": "...", "sig": base64(signature over PAE)}]}

    PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
    (LEN = decimal byte count, SP = one space; type and body as bytes)

Keys are configured by the operator, never by a bundle:

* ``GCV_SIGNING_KEY_HMAC`` = a shared secret -> HMAC-SHA256. keyid
  ``hmac-sha256:<first 16 hex of sha256("gcv-hmac-keyid" NUL secret)>``. Verifying needs the
  same secret (same variable) at verify time; without it an HMAC signature cannot be checked
  and verification fails rather than pretend.
* ``GCV_SIGNING_KEY_ED25519`` = path to a PEM PKCS#8 Ed25519 private key -> Ed25519
  (needs the ``cryptography`` package). keyid = sha256 hex of the raw 32-byte public key;
  the signature entry also carries that public key (``public_key``, base64 raw), an
  extension field DSSE allows.
  Verifying uses ``GCV_VERIFY_KEY_ED25519`` (path to the PEM public key, or the private
  key) when set: then the signature must come from exactly that key and is *trusted*.
  Without it the embedded key is used, which only proves the bundle is unchanged since
  someone holding that key signed it: anyone can make a key and sign a forged bundle, so
  the result says ``trusted: false`` and names the keyid to compare with one you know.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

PAYLOAD_TYPE = "application/vnd.in-toto+json"
ENV_HMAC = "GCV_SIGNING_KEY_HMAC"
ENV_ED25519 = "GCV_SIGNING_KEY_ED25519"
ENV_VERIFY_ED25519 = "GCV_VERIFY_KEY_ED25519"


class SigningError(Exception):
    pass


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding."""
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


class Signer(Protocol):
    keyid: str
    method: str

    def sign(self, data: bytes) -> bytes: ...

    def entry(self, sig: bytes) -> dict[str, str]: ...


def hmac_keyid(secret: bytes) -> str:
    return "hmac-sha256:" + hashlib.sha256(b"gcv-hmac-keyid\x00" + secret).hexdigest()[:16]


class HmacSigner:
    method = "hmac-sha256"

    def __init__(self, secret: str | bytes) -> None:
        self.secret = secret.encode("utf-8") if isinstance(secret, str) else secret
        if len(self.secret) < 16:
            raise SigningError(f"{ENV_HMAC} is too short: use at least 16 characters (32 random bytes is better)")
        self.keyid = hmac_keyid(self.secret)

    def sign(self, data: bytes) -> bytes:
        return hmac.new(self.secret, data, hashlib.sha256).digest()

    def entry(self, sig: bytes) -> dict[str, str]:
        return {"keyid": self.keyid, "sig": base64.b64encode(sig).decode("ascii")}


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as exc:  # pragma: no cover - cryptography is pinned
        raise SigningError("Ed25519 needs the 'cryptography' package (pip install cryptography)") from exc
    return serialization, ed25519


def _raw_public(public_key: Any) -> bytes:
    serialization, _ = _crypto()
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def ed25519_keyid(raw_public: bytes) -> str:
    return hashlib.sha256(raw_public).hexdigest()


class Ed25519Signer:
    method = "ed25519"

    def __init__(self, private_key: Any) -> None:
        _, ed25519 = _crypto()
        if not isinstance(private_key, ed25519.Ed25519PrivateKey):
            raise SigningError("the signing key is not an Ed25519 private key")
        self.key = private_key
        self.public_raw = _raw_public(private_key.public_key())
        self.keyid = ed25519_keyid(self.public_raw)

    @classmethod
    def from_pem_file(cls, path: Path | str) -> Ed25519Signer:
        serialization, _ = _crypto()
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise SigningError(f"cannot read the Ed25519 key named by {ENV_ED25519}: {exc.strerror}") from None
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise SigningError(f"{ENV_ED25519} does not name an unencrypted PEM private key: {exc}") from None
        return cls(key)

    def sign(self, data: bytes) -> bytes:
        return self.key.sign(data)

    def entry(self, sig: bytes) -> dict[str, str]:
        return {"keyid": self.keyid, "sig": base64.b64encode(sig).decode("ascii"),
                "public_key": base64.b64encode(self.public_raw).decode("ascii")}


def signer_from_env(environ: Mapping[str, str] | None = None) -> Signer | None:
    """The configured signer, or None (unsigned bundles). Ed25519 wins if both are set."""
    env = os.environ if environ is None else environ
    if env.get(ENV_ED25519):
        return Ed25519Signer.from_pem_file(env[ENV_ED25519])
    if env.get(ENV_HMAC):
        return HmacSigner(env[ENV_HMAC])
    return None


def sign_envelope(payload: bytes, signer: Signer) -> dict[str, Any]:
    sig = signer.sign(pae(PAYLOAD_TYPE, payload))
    return {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(payload).decode("ascii"),
            "signatures": [signer.entry(sig)]}


def envelope_bytes(envelope: dict[str, Any]) -> bytes:
    return (json.dumps(envelope, indent=2, sort_keys=True) + "\n").encode("utf-8")


@dataclass
class SignatureResult:
    status: str  # "unsigned" | "verified" | "invalid" | "unverifiable"
    ok: bool
    trusted: bool = False
    method: str | None = None
    keyid: str | None = None
    message: str = ""

    @property
    def trust(self) -> str:
        """The three levels a reviewer must tell apart (plus "none" when the signature fails):

        * ``unsigned``: no signature; integrity rests on the manifest, which anyone can rewrite;
        * ``integrity``: signed with a key carried inside the bundle; proves the bundle did not
          change since it was signed, not who signed it (anyone can make a key);
        * ``trusted``: signed with a key the verifier holds (the pinned Ed25519 key, or the
          shared HMAC secret).
        """
        if self.status == "unsigned":
            return "unsigned"
        if self.status != "verified":
            return "none"
        return "trusted" if self.trusted else "integrity"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "trust": self.trust}


@dataclass(frozen=True)
class TrustStatement:
    """What a reviewer is told about who stands behind a bundle: the same level, words and
    sentence in ``gcv verify`` and on the console's review page (one function makes them)."""

    level: str  # "unsigned" | "integrity" | "trusted" | "none"
    words: str  # "unsigned" | "integrity only" | "trusted" | "none"
    explanation: str
    tone: str  # "warn" | "ok" | "bad"


TRUST_WORDS = {"unsigned": "unsigned", "integrity": "integrity only", "trusted": "trusted", "none": "none"}


def trust_statement(level: str | None, keyid: str | None = None) -> TrustStatement:
    """The words for a trust level (``SignatureResult.trust``; anything unknown is "none")."""
    known = level if level in TRUST_WORDS else "none"
    key = f" (keyid {str(keyid)[:16]}...)" if keyid else ""
    explanation = {
        "unsigned": "no signature; integrity rests on the manifest alone, which anyone can rewrite",
        "integrity": f"signed with a key carried inside the bundle{key}; it proves nothing changed since signing, "
                     f"not who signed (anyone can make a key). Pin the signer's key with {ENV_VERIFY_ED25519} "
                     "to trust it",
        "trusted": f"signed with a key you hold{key}",
        "none": "the signature could not be verified",
    }[known]
    tone = {"unsigned": "warn", "integrity": "warn", "trusted": "ok", "none": "bad"}[known]
    return TrustStatement(known, TRUST_WORDS[known], explanation, tone)


def verification_keys(environ: Mapping[str, str]) -> list[str]:
    """The verification keys configured here (names of the variables that hold them)."""
    return [name for name in (ENV_VERIFY_ED25519, ENV_HMAC) if environ.get(name)]


def _load_verify_key(path: str) -> Any:
    serialization, ed25519 = _crypto()
    data = Path(path).read_bytes()
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError:
        key = serialization.load_pem_private_key(data, password=None).public_key()
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise SigningError(f"{ENV_VERIFY_ED25519} does not name an Ed25519 key")
    return key


def verify_envelope(envelope_data: bytes | None, manifest: bytes,
                    environ: Mapping[str, str] | None = None) -> SignatureResult:
    """Check ``manifest.dsse.json`` (None = absent) against the bundle's ``manifest.json``."""
    env = os.environ if environ is None else environ
    if envelope_data is None:
        keys = verification_keys(env)
        if keys:  # a verifier that holds a key accepts only bundles that key signed
            return SignatureResult("unsigned", False,
                                   message=f"the bundle is unsigned (no manifest.dsse.json), but a verification key is "
                                           f"configured ({', '.join(keys)}): an unsigned bundle is refused here")
        return SignatureResult("unsigned", True, message="unsigned: no manifest.dsse.json in the bundle")
    try:
        envelope = json.loads(envelope_data)
        payload = base64.b64decode(envelope["payload"], validate=True)
        payload_type = envelope["payloadType"]
        signatures = envelope["signatures"]
        if not isinstance(signatures, list) or not signatures:
            raise ValueError("no signatures")
    except (ValueError, KeyError, TypeError) as exc:
        return SignatureResult("invalid", False, message=f"manifest.dsse.json is malformed: {exc}")
    if payload_type != PAYLOAD_TYPE:
        return SignatureResult("invalid", False, message=f"payloadType {payload_type!r} is not {PAYLOAD_TYPE!r}")
    if payload != manifest:
        return SignatureResult("invalid", False, message="the signed payload is not this bundle's manifest.json")
    message = pae(payload_type, payload)
    last = SignatureResult("invalid", False, message="no signature could be checked")
    for entry in signatures:
        result = _verify_one(entry, message, env)
        if result.ok:
            return result
        last = result
    return last


def _verify_one(entry: Any, message: bytes, env: Mapping[str, str]) -> SignatureResult:
    try:
        keyid = str(entry["keyid"])
        sig = base64.b64decode(entry["sig"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:
        return SignatureResult("invalid", False, message=f"a signature entry is malformed: {exc}")
    if keyid.startswith("hmac-sha256:"):
        secret = env.get(ENV_HMAC)
        if not secret:
            return SignatureResult("unverifiable", False, False, "hmac-sha256", keyid,
                                   f"HMAC-signed (keyid {keyid}); set {ENV_HMAC} to the shared secret to verify")
        secret_key = secret.encode("utf-8")
        if hmac_keyid(secret_key) != keyid:
            return SignatureResult("invalid", False, False, "hmac-sha256", keyid,
                                   f"signed with a different HMAC secret (keyid {keyid}, yours {hmac_keyid(secret_key)})")
        if not hmac.compare_digest(hmac.new(secret_key, message, hashlib.sha256).digest(), sig):
            return SignatureResult("invalid", False, False, "hmac-sha256", keyid, "HMAC signature does not match")
        return SignatureResult("verified", True, True, "hmac-sha256", keyid,
                               f"HMAC-SHA256 signature verified with the shared secret (keyid {keyid})")
    try:
        from cryptography.exceptions import InvalidSignature
        _, ed25519 = _crypto()
    except (ImportError, SigningError) as exc:
        return SignatureResult("unverifiable", False, False, "ed25519", keyid, str(exc))
    pinned = env.get(ENV_VERIFY_ED25519)
    try:
        if pinned:
            key = _load_verify_key(pinned)
            if ed25519_keyid(_raw_public(key)) != keyid:
                return SignatureResult("invalid", False, False, "ed25519", keyid,
                                       f"signed by key {keyid[:16]}..., not by the key in {ENV_VERIFY_ED25519} "
                                       f"({ed25519_keyid(_raw_public(key))[:16]}...)")
        else:
            raw = base64.b64decode(entry.get("public_key", ""), validate=True)
            if len(raw) != 32:
                return SignatureResult("unverifiable", False, False, "ed25519", keyid,
                                       f"no embedded public key; set {ENV_VERIFY_ED25519} to the signer's public key")
            if ed25519_keyid(raw) != keyid:
                return SignatureResult("invalid", False, False, "ed25519", keyid,
                                       "the embedded public key does not match its keyid")
            key = ed25519.Ed25519PublicKey.from_public_bytes(raw)
        key.verify(sig, message)
    except InvalidSignature:
        return SignatureResult("invalid", False, False, "ed25519", keyid, "Ed25519 signature does not match")
    except (OSError, ValueError, SigningError) as exc:
        return SignatureResult("unverifiable", False, False, "ed25519", keyid, f"cannot load the verify key: {exc}")
    if pinned:
        return SignatureResult("verified", True, True, "ed25519", keyid,
                               f"Ed25519 signature verified with the pinned key {keyid[:16]}...")
    return SignatureResult("verified", True, False, "ed25519", keyid,
                           f"Ed25519 signature verified with the key embedded in the bundle ({keyid}); this proves "
                           f"integrity since signing, not who signed: compare the keyid with the one you expect "
                           f"or set {ENV_VERIFY_ED25519}")
