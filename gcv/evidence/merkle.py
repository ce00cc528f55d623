"""The Merkle root over a bundle's subjects (RFC 6962 tree hash, SHA-256).

Leaves are the manifest's subjects sorted by the UTF-8 bytes of their names. One leaf's
data is ``name (UTF-8) || 0x00 || sha256 digest (32 raw bytes)``; a name never contains a
NUL byte, so the encoding is unambiguous. Hashing follows RFC 6962 section 2.1, with its
domain separation so a leaf can never be passed off as an inner node:

    MTH({})      = SHA-256()
    leaf(d)      = SHA-256(0x00 || d)
    node(l, r)   = SHA-256(0x01 || l || r)
    MTH(D[0:n])  = node(MTH(D[0:k]), MTH(D[k:n]))  with k the largest power of two < n

A reviewer can recompute the root from the manifest alone with a few lines in any
language, and one root names the whole file set (names and contents).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

ALGORITHM = "rfc6962-sha256"
LEAF_ENCODING = "name (UTF-8) || 0x00 || sha256 digest (32 raw bytes), leaves sorted by name bytes"


def leaf_data(name: str, sha256_hex: str) -> bytes:
    if "\x00" in name:
        raise ValueError("a subject name cannot contain NUL")
    return name.encode("utf-8") + b"\x00" + bytes.fromhex(sha256_hex)


def _leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _mth(leaves: Sequence[bytes]) -> bytes:
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return _leaf(leaves[0])
    k = 1
    while k * 2 < n:
        k *= 2
    return _node(_mth(leaves[:k]), _mth(leaves[k:]))


def sorted_subjects(subjects: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(subjects, key=lambda s: s[0].encode("utf-8"))


def merkle_root(subjects: Iterable[tuple[str, str]]) -> str:
    """Hex root of (name, sha256 hex) pairs, in the order defined above."""
    return _mth([leaf_data(name, digest) for name, digest in sorted_subjects(subjects)]).hex()
