"""Loading contract documents strictly, and the JSON Schema helpers behind the schema layer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gcv.contract.canonical import canonical_json, config_hash
from gcv.contract.goal import Goal
from gcv.contract.jsonschema_check import (
    GcvValidator,
    config_schema,
    ecma_pattern,
    normalize_schema,
)
from gcv.contract.loading import (
    BASELINE_ENV,
    GcvInputError,
    default_baseline_path,
    find_repo_root,
    json_path,
    load_config,
    load_goal,
    load_json_file,
    parse_json_text,
)
from gcv.contract.models import BulletHellConfig
from gcv.validation.report import json_safe


def write(tmp_path: Path, text: str | bytes, name: str = "doc.json") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path) -> GcvInputError:
    with pytest.raises(GcvInputError) as info:
        load_json_file(path)
    assert info.value.file == str(path)
    return info.value


# --- load_json_file ---------------------------------------------------------------------------

def test_missing_file(tmp_path: Path) -> None:
    err = refused(tmp_path / "nope.json")
    assert err.message == "file not found"


def test_directory(tmp_path: Path) -> None:
    err = refused(tmp_path)
    assert "directory" in err.message


def test_invalid_json_says_line_and_column(tmp_path: Path) -> None:
    err = refused(write(tmp_path, '{\n  "a": 1,\n  "b": ,\n}'))
    assert "not valid JSON" in err.message
    assert "line 3, column 8" in err.message


def test_empty_file(tmp_path: Path) -> None:
    err = refused(write(tmp_path, ""))
    assert "line 1, column 1" in err.message


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_refused_with_place(tmp_path: Path, token: str) -> None:
    err = refused(write(tmp_path, '{"a": {"b": [1, 2, ' + token + ']}}'))
    assert f"'{token}' is not a JSON number" in err.message
    assert "line 1, column 20" in err.message
    assert err.path_in_doc == "$.a.b[2]"


def test_nan_inside_a_string_is_fine(tmp_path: Path) -> None:
    assert load_json_file(write(tmp_path, '{"a": "NaN", "b": "Infinity"}')) == {"a": "NaN", "b": "Infinity"}


@pytest.mark.parametrize("token", ["1e400", "-1e400", "1" * 400, "1.5e309"])
def test_overflowing_numbers_refused(tmp_path: Path, token: str) -> None:
    err = refused(write(tmp_path, '{"speed":\n  ' + token + "}"))
    assert "too large" in err.message
    assert "line 2, column 3" in err.message
    assert err.path_in_doc == "$.speed"


def test_integer_beyond_python_digit_limit_refused(tmp_path: Path) -> None:
    err = refused(write(tmp_path, '{"a": ' + "9" * 5000 + "}"))
    assert "too large" in err.message


def test_non_utf8_bytes_give_byte_offset(tmp_path: Path) -> None:
    err = refused(write(tmp_path, b'{"name": "caf\xe9"}'))
    assert "not UTF-8" in err.message
    assert "byte offset 13" in err.message


def test_utf8_bom_is_tolerated(tmp_path: Path) -> None:
    assert load_json_file(write(tmp_path, b'\xef\xbb\xbf{"a": 1}')) == {"a": 1}


def test_non_utf8_after_bom_offset_counts_the_bom(tmp_path: Path) -> None:
    err = refused(write(tmp_path, b'\xef\xbb\xbf{"a": "\xff"}'))
    assert "byte offset 10" in err.message


def test_duplicate_keys_refused_with_path(tmp_path: Path) -> None:
    text = '{"phases": [{"phase_id": "a"}, {"phase_id": "b",\n "phase_id": "c"}]}'
    err = refused(write(tmp_path, text))
    assert 'duplicate key "phase_id"' in err.message
    assert "line 2, column 2" in err.message
    assert err.path_in_doc == "$.phases[1].phase_id"


def test_duplicate_keys_in_nested_objects_are_independent(tmp_path: Path) -> None:
    data = load_json_file(write(tmp_path, '{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]}'))
    assert data["c"][1]["x"] == 4


def test_lone_surrogate_refused(tmp_path: Path) -> None:
    err = refused(write(tmp_path, '{"name": "\\ud800"}'))
    assert "surrogate" in err.message


def test_surrogate_pair_is_fine(tmp_path: Path) -> None:
    assert load_json_file(write(tmp_path, '{"name": "\\ud83d\\ude00"}')) == {"name": "\U0001F600"}


def test_deeply_nested_json_is_an_input_error(tmp_path: Path) -> None:
    err = refused(write(tmp_path, "[" * 100_000 + "]" * 100_000))
    assert err.message


def test_error_str_names_file_and_path() -> None:
    err = GcvInputError("c.json", "bad", "$.a")
    assert str(err) == "c.json: bad (at $.a)"
    assert err.to_dict() == {"file": "c.json", "message": "bad", "path_in_doc": "$.a"}


def test_parse_json_text_accepts_plain_json() -> None:
    assert parse_json_text('{"a": [1, 2.5, true, null, "x"]}', "t") == {"a": [1, 2.5, True, None, "x"]}


# --- load_config / load_goal ------------------------------------------------------------------

def test_load_config_baseline(repo_root: Path) -> None:
    cfg = load_config(repo_root / "artifacts" / "baselines" / "shrine_trial.json")
    assert cfg.phases[1].phase_id == "phase_2"


def test_load_config_reports_first_field_error(tmp_path: Path, repo_root: Path) -> None:
    data = json.loads((repo_root / "artifacts/baselines/shrine_trial.json").read_text())
    data["phases"][1]["pattern"]["bullets_per_wave"] = 0
    with pytest.raises(GcvInputError) as info:
        load_config(write(tmp_path, json.dumps(data)))
    assert info.value.path_in_doc == "$.phases[1].pattern.bullets_per_wave"
    assert "greater than or equal to 1" in info.value.message


def test_load_goal(tmp_path: Path) -> None:
    goal = load_goal(write(tmp_path, json.dumps({"target_phase_ids": ["phase_2"], "bidirectional": True})))
    assert isinstance(goal, Goal) and goal.bidirectional is True
    with pytest.raises(GcvInputError) as info:
        load_goal(write(tmp_path, json.dumps({"target_phase_ids": [], "pattern_type": "laser"})))
    assert info.value.path_in_doc in ("$.target_phase_ids", "$.pattern_type")


# --- paths and the repository -----------------------------------------------------------------

def test_json_path() -> None:
    assert json_path([]) == "$"
    assert json_path(["phases", 1, "pattern", "bullets_per_wave"]) == "$.phases[1].pattern.bullets_per_wave"
    assert json_path(["odd key", "é"]) == '$["odd key"]["é"]'


def test_find_repo_root(repo_root: Path) -> None:
    assert find_repo_root() == repo_root
    assert find_repo_root(repo_root / "gcv" / "contract") == repo_root


def test_default_baseline_path(monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> None:
    monkeypatch.delenv(BASELINE_ENV, raising=False)
    assert default_baseline_path() == repo_root / "artifacts" / "baselines" / "shrine_trial.json"
    monkeypatch.setenv(BASELINE_ENV, "/elsewhere/b.json")
    assert default_baseline_path() == Path("/elsewhere/b.json")


# --- canonical form of the baseline -----------------------------------------------------------

def test_baseline_round_trips_through_canonical_json(baseline: BulletHellConfig) -> None:
    again = BulletHellConfig.model_validate(json.loads(canonical_json(baseline)))
    assert again == baseline
    assert config_hash(again) == config_hash(baseline)


def test_raw_and_model_hash_agree(repo_root: Path, baseline: BulletHellConfig) -> None:
    raw = json.loads((repo_root / "artifacts/baselines/shrine_trial.json").read_text())
    assert config_hash(raw) == config_hash(baseline)


# --- JSON Schema helpers -----------------------------------------------------------------------

def test_ecma_pattern_dollar_is_end_of_input() -> None:
    assert ecma_pattern(r"^[a-z0-9_\-]+$") == r"^[a-z0-9_\-]+\Z"
    assert ecma_pattern(r"^a[$]b\$c$") == r"^a[$]b\$c\Z"
    assert re.search(ecma_pattern(r"^[a-z]+$"), "abc\n") is None
    assert re.search(ecma_pattern(r"^[a-z]+$"), "abc")


def test_normalize_schema_rewrites_pydantic_bounds() -> None:
    raw = {"properties": {"ge": {"type": "integer", "ge": 1, "le": 4, "description": ""},
                          "r": {"type": "number", "gt": 0, "lt": 1, "description": "why"}}}
    assert normalize_schema(raw) == {"properties": {
        "ge": {"type": "integer", "minimum": 1, "maximum": 4},
        "r": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "description": "why"}}}


def test_config_schema_has_integer_bounds() -> None:
    pattern = config_schema()["$defs"]["Pattern"]["properties"]["bullets_per_wave"]
    assert (pattern["minimum"], pattern["maximum"]) == (1, 64)


def test_validator_extensions() -> None:
    v = GcvValidator({"type": "object", "properties": {
        "d": {"type": "number", "x-maxDecimalPlaces": 6},
        "s": {"type": "string", "pattern": "^[a-z]+$"}}})
    assert v.is_valid({"d": 0.123456, "s": "abc"})
    assert v.is_valid({"d": 10 ** 400})  # an integer literal has no decimals
    assert not v.is_valid({"d": 0.1234567})
    assert not v.is_valid({"d": float("nan")})
    assert not v.is_valid({"s": "abc\n"})
    assert not v.is_valid({"s": "\ud800"})


def test_json_safe() -> None:
    assert json_safe({"a": [float("nan"), float("inf"), -float("inf"), "\ud800", 1.5, (1, 2)]}) == \
        {"a": ["NaN", "Infinity", "-Infinity", "\\ud800", 1.5, [1, 2]]}
