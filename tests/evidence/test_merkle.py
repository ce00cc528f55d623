"""The Merkle root over a bundle's subjects (gcv.evidence.merkle): RFC 6962's tree hash, leaves
sorted by name bytes, recomputed here from the definition."""

from __future__ import annotations

import hashlib

import pytest

from gcv.evidence.merkle import leaf_data, merkle_root, sorted_subjects

D1, D2, D3 = (hashlib.sha256(x).hexdigest() for x in (b"one", b"two", b"three"))


def _leaf(name: str, digest: str) -> bytes:
    return hashlib.sha256(b"\x00" + name.encode() + b"\x00" + bytes.fromhex(digest)).digest()


def _node(a: bytes, b: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + a + b).digest()


def test_the_empty_tree_and_one_leaf() -> None:
    assert merkle_root([]) == hashlib.sha256(b"").hexdigest()
    assert merkle_root([("a.json", D1)]) == _leaf("a.json", D1).hex()
    assert leaf_data("a.json", D1) == b"a.json\x00" + bytes.fromhex(D1)


def test_three_leaves_split_at_the_largest_power_of_two() -> None:
    expected = _node(_node(_leaf("a", D1), _leaf("b", D2)), _leaf("c", D3)).hex()
    assert merkle_root([("c", D3), ("a", D1), ("b", D2)]) == expected  # order given does not matter


def test_names_sort_by_utf8_bytes_and_every_byte_counts() -> None:
    assert [n for n, _ in sorted_subjects([("é", D1), ("z", D2), ("Z", D3)])] == ["Z", "z", "é"]
    base = merkle_root([("a", D1), ("b", D2)])
    assert merkle_root([("a", D1), ("b", D3)]) != base and merkle_root([("a", D1), ("c", D2)]) != base
    with pytest.raises(ValueError, match="NUL"):
        merkle_root([("a\x00b", D1)])
