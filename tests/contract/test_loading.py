"""Reading contract documents strictly (gcv.contract.loading): what json.load lets through
(duplicate keys, NaN, 1e400, lone surrogates) is refused with the file, line, column and path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gcv.contract.loading import (BASELINE_ENV, DEFAULT_BASELINE, GcvInputError, check_input_file, decode_utf8,
                                  default_baseline_path, find_repo_root, input_cap, json_kind, json_path,
                                  load_config, load_goal, parse_json_text, read_input_bytes)
from tests.conftest import BASELINE_PATH, REPO_ROOT


@pytest.mark.parametrize("text,message,path", [
    ('{"a": 1, "a": 2}', 'duplicate key "a" (each key may appear once per object) at line 1, column 10', "$.a"),
    ('{"a": NaN}', "'NaN' is not a JSON number", "$.a"),
    ('{"b": [1, -Infinity]}', "'-Infinity' is not a JSON number", "$.b[1]"),
    ('{"a": 1e400}', "number 1e400 is too large for a 64-bit float", "$.a"),
    ('[1,', "not valid JSON: Expecting value at line 1, column 4", None),
    ('{"a": "\\ud800"}', "lone UTF-16 surrogate", None),
])
def test_what_json_load_accepts_is_refused_with_where(text: str, message: str, path: str | None) -> None:
    with pytest.raises(GcvInputError) as caught:
        parse_json_text(text, "f.json")
    err = caught.value
    assert err.file == "f.json" and message in err.message and err.path_in_doc == path
    assert str(err).startswith("f.json: ") and err.to_dict()["file"] == "f.json"


def test_strict_json_still_parses() -> None:
    assert parse_json_text('{"a": [1, 2.5, "é", null, true], "b": {"c": 12345678901234567890}}', "f") == {
        "a": [1, 2.5, "é", None, True], "b": {"c": 12345678901234567890}}


def test_json_path_and_json_kind() -> None:
    assert json_path(["phases", 1, "pattern"]) == "$.phases[1].pattern"
    assert json_path(["odd key", 0]) == '$["odd key"][0]'
    assert json_path([]) == "$"
    assert [json_kind(v) for v in ({}, [], "s", 1, 1.5, True, None)] == [
        "an object", "an array", "a string", "a number", "a number", "a boolean", "null"]


def test_utf8_with_a_bom_is_read_and_a_bad_byte_is_named() -> None:
    assert decode_utf8(b"\xef\xbb\xbf{}", "f") == "{}"
    with pytest.raises(GcvInputError, match="byte 0xff at byte offset 4"):
        decode_utf8(b'{"a"\xff}', "f")


def test_files_are_checked_before_they_are_read(tmp_path: Path) -> None:
    with pytest.raises(GcvInputError, match="file not found"):
        check_input_file(tmp_path / "missing.json", "config")
    with pytest.raises(GcvInputError):
        read_input_bytes(tmp_path, "config")  # a directory
    big = tmp_path / "goal.json"
    big.write_bytes(b" " * (input_cap("goal") + 1))
    with pytest.raises(GcvInputError, match="a goal file may be at most 1.0 MiB|a goal file may be at most"):
        check_input_file(big, "goal")
    small = tmp_path / "ok.json"
    small.write_bytes(b"{}")
    assert check_input_file(small, "goal") == 2 and read_input_bytes(small, "goal") == b"{}"
    with pytest.raises(KeyError, match="unknown input kind 'poem'"):
        input_cap("poem")


def test_load_config_and_load_goal(tmp_path: Path) -> None:
    config = load_config(BASELINE_PATH)
    assert config.phases and config.phases[0].phase_id == "phase_1"
    not_object = tmp_path / "list.json"
    not_object.write_text("[]")
    with pytest.raises(GcvInputError, match="expected a JSON object, found an array"):
        load_config(not_object)
    bad_goal = tmp_path / "goal.json"
    bad_goal.write_text('{"target_phase_ids": []}')
    with pytest.raises(GcvInputError) as caught:
        load_goal(bad_goal)
    assert caught.value.path_in_doc == "$.target_phase_ids"


def test_the_default_baseline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(BASELINE_ENV, raising=False)
    assert find_repo_root(REPO_ROOT / "gcv" / "contract") == REPO_ROOT
    assert default_baseline_path() == find_repo_root() / DEFAULT_BASELINE  # type: ignore[operator]
    monkeypatch.setenv(BASELINE_ENV, os.fspath(tmp_path / "mine.json"))
    assert default_baseline_path() == tmp_path / "mine.json"
