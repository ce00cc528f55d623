"""Canonical JSON (gcv.contract.canonical): sorted keys, no spaces, numbers as ECMAScript writes
them (RFC 8785), so equal values hash equal whatever their spelling."""

from __future__ import annotations

import hashlib

import pytest

from gcv.contract.canonical import canonical_bytes, canonical_json, config_hash, content_hash, to_plain
from gcv.contract.goal import Goal


@pytest.mark.parametrize("value,text", [
    (0.0, "0"), (-0.0, "0"), (3.0, "3"), (2.5, "2.5"), (0.1, "0.1"), (1e-06, "0.000001"), (1.5e-7, "1.5e-7"),
    (1e21, "1e+21"), (1e20, "100000000000000000000"), (123456789012345678901234.0, "1.2345678901234569e+23"),
    (-12.75, "-12.75"), (10, "10"), (True, "true"), (None, "null"),
])
def test_numbers_and_constants_are_written_as_ecmascript_writes_them(value: object, text: str) -> None:
    assert canonical_json(value) == text


def test_objects_sort_their_keys_and_drop_whitespace() -> None:
    assert canonical_json({"b": [1, {"d": 1, "c": "é"}], "a": None}) == '{"a":null,"b":[1,{"c":"é","d":1}]}'
    assert canonical_bytes({"a": "é"}) == '{"a":"é"}'.encode("utf-8")  # UTF-8, not \\u escapes


def test_hashes_are_the_sha256_of_the_canonical_bytes() -> None:
    assert content_hash({"a": 3}) == content_hash({"a": 3.0}) == hashlib.sha256(b'{"a":3}').hexdigest()
    assert content_hash({"a": 3}) != content_hash({"a": 3.5})
    goal = Goal(target_phase_ids=["phase_1"])
    assert to_plain(goal) == goal.model_dump(mode="json")
    assert config_hash(goal) == content_hash(goal.model_dump(mode="json"))


@pytest.mark.parametrize("bad,error", [(float("nan"), ValueError), (float("inf"), ValueError),
                                       ({1: "x"}, TypeError), ({"a": {1, 2}}, TypeError)])
def test_what_has_no_canonical_form_is_refused(bad: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        canonical_json(bad)
