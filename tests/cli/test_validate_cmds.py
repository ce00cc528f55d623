"""``gcv validate``, ``gcv diff`` and ``gcv schema export`` through the real typer app."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.contract.loading import BASELINE_ENV

ROOT = Path(__file__).resolve().parents[2]
BASELINE_FILE = ROOT / "artifacts" / "baselines" / "shrine_trial.json"
BASE: dict[str, Any] = json.loads(BASELINE_FILE.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv(BASELINE_ENV, raising=False)


def run(*args: str | Path) -> Any:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def run_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run(*args, "--json")
    doc = json.loads(result.stdout)  # exactly one JSON document, nothing else on stdout
    assert isinstance(doc, dict)
    assert result.stdout.count("\n{") == 0 and result.stdout.startswith("{")
    assert result.stderr == ""
    assert doc["exit_code"] == result.exit_code
    return result.exit_code, doc


def write(tmp_path: Path, content: Any, name: str = "candidate.json") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content, indent=2), encoding="utf-8")
    return path


def mutated(**pattern: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["phases"][1]["pattern"].update(pattern)
    return doc


# --- validate: exit 0 -------------------------------------------------------------------------

def test_validate_baseline_against_default_baseline() -> None:
    result = run("validate", BASELINE_FILE)
    assert result.exit_code == 0
    assert "OK" in result.stdout and "passes every layer" in result.stdout
    assert "skipped (no goal given)" in result.stdout


def test_validate_json_ok() -> None:
    code, doc = run_json("validate", BASELINE_FILE)
    assert code == 0 and doc["ok"] is True
    assert [layer["status"] for layer in doc["layers"]] == ["passed", "skipped", "passed", "passed"]
    assert doc["candidate_hash"] == doc["baseline_hash"]


def test_validate_with_goal(tmp_path: Path) -> None:
    candidate = write(tmp_path, mutated(bidirectional=True, rotation_per_wave_deg=-17))
    goal = write(tmp_path, {"target_phase_ids": ["phase_2"], "bidirectional": True, "reverse_rotation": True},
                 "goal.json")
    code, doc = run_json("validate", candidate, "--goal", goal)
    assert code == 0 and doc["goal_given"] is True
    assert doc["layers"][1]["status"] == "passed"


# --- validate: exit 1 -------------------------------------------------------------------------

def test_validate_invalid_candidate_human(tmp_path: Path) -> None:
    candidate = write(tmp_path, mutated(bullets_per_wave=64, bullet_lifetime_seconds=12))
    result = run("validate", candidate)
    assert result.exit_code == 1
    assert "rules.alive_bound" in result.stdout
    assert "$.phases[1].pattern" in result.stdout
    assert "INVALID" in result.stdout and "1 error in rules" in result.stdout
    assert "\x1b[" not in result.stdout  # NO_COLOR / not a terminal: plain text


def test_validate_invalid_candidate_json(tmp_path: Path) -> None:
    candidate = write(tmp_path, mutated(bullets_per_wave=64, bullet_lifetime_seconds=12))
    code, doc = run_json("validate", candidate)
    assert code == 1 and doc["ok"] is False
    issue = doc["layers"][2]["errors"][0]
    assert issue["rule_id"] == "rules.alive_bound" and issue["actual"] > 350


@pytest.mark.parametrize("doc,rule", [
    (dict(BASE, colour="red"), "schema.extra_field"),
    (mutated(bullets_per_wave="twelve"), "schema.type"),
    (mutated(bullet_speed=[3]), "schema.type"),
    (dict(BASE, phases=[]), "schema.length"),
])
def test_validate_schema_errors_exit_1(tmp_path: Path, doc: dict[str, Any], rule: str) -> None:
    code, report = run_json("validate", write(tmp_path, doc))
    assert code == 1
    assert report["layers"][0]["errors"][0]["rule_id"] == rule
    assert [layer["status"] for layer in report["layers"][1:]] == ["skipped"] * 3


def test_validate_goal_not_met(tmp_path: Path) -> None:
    goal = write(tmp_path, {"target_phase_ids": ["phase_2"], "pattern_type": "petal"}, "goal.json")
    code, doc = run_json("validate", BASELINE_FILE, "--goal", goal)
    assert code == 1
    assert doc["layers"][1]["errors"][0]["rule_id"] == "reference.pattern_type_mismatch"


# --- validate: exit 2 -------------------------------------------------------------------------

BAD_FILES: list[tuple[str, Any, str]] = [
    ("invalid_json", '{"contract": "gcv.bullet_hell/1",\n  "name": }', "line 2, column 11"),
    ("nan", '{"contract": NaN}', "NaN"),
    ("infinity", '{"a": -Infinity}', "Infinity"),
    ("overflow", '{"a": 1e400}', "too large"),
    ("non_utf8", b'{"name": "\xff\xfe"}', "byte offset 10"),
    ("duplicate_keys", '{"name": "a", "name": "b"}', 'duplicate key "name"'),
    ("empty", "", "line 1, column 1"),
]


@pytest.mark.parametrize("name,content,expected", BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_validate_bad_file_human(tmp_path: Path, name: str, content: Any, expected: str) -> None:
    path = write(tmp_path, content)
    result = run("validate", path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "candidate" in result.stderr and str(path.name) in result.stderr
    assert expected in result.stderr.replace("\n", " ") or expected in result.stderr


@pytest.mark.parametrize("name,content,expected", BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_validate_bad_file_json(tmp_path: Path, name: str, content: Any, expected: str) -> None:
    path = write(tmp_path, content)
    code, doc = run_json("validate", path)
    assert code == 2
    assert set(doc) == {"error", "file", "detail", "exit_code"}
    assert doc["file"] == str(path)
    assert expected in doc["error"]


def test_validate_missing_file(tmp_path: Path) -> None:
    result = run("validate", tmp_path / "nope.json")
    assert result.exit_code == 2 and "file not found" in result.stderr
    code, doc = run_json("validate", tmp_path / "nope.json")
    assert code == 2 and doc["error"] == "candidate: file not found"


def test_validate_directory(tmp_path: Path) -> None:
    code, doc = run_json("validate", tmp_path)
    assert code == 2 and "directory" in doc["error"]


def test_validate_missing_argument() -> None:
    result = run("validate")
    assert result.exit_code == 2 and "CANDIDATE" in result.stderr
    code, doc = run_json("validate")
    assert code == 2 and "CANDIDATE" in doc["error"]


def test_validate_nan_points_at_the_field(tmp_path: Path) -> None:
    text = json.dumps(BASE, indent=2).replace('"bullet_speed": 3.6', '"bullet_speed": NaN')
    code, doc = run_json("validate", write(tmp_path, text))
    assert code == 2 and doc["detail"] == "$.phases[1].pattern.bullet_speed"


# --- baselines and goals ------------------------------------------------------------------------

def test_explicit_and_env_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tight = copy.deepcopy(BASE)
    tight["targets"]["max_player_hits"] = 1
    tight_path = write(tmp_path, tight, "tight.json")
    code, doc = run_json("validate", BASELINE_FILE, "--baseline", tight_path)
    assert code == 1 and doc["layers"][3]["errors"][0]["rule_id"] == "safety.target_loosened"
    monkeypatch.setenv(BASELINE_ENV, str(tight_path))
    code, _ = run_json("validate", BASELINE_FILE)
    assert code == 1
    code, _ = run_json("validate", tight_path)
    assert code == 0


def test_broken_baseline_is_exit_2(tmp_path: Path) -> None:
    bad = write(tmp_path, dict(BASE, limits={"max_alive_bullets": 0}), "base.json")
    result = run("validate", BASELINE_FILE, "--baseline", bad)
    assert result.exit_code == 2 and "baseline" in result.stderr
    code, doc = run_json("validate", BASELINE_FILE, "--baseline", bad)
    assert code == 2 and doc["file"] == str(bad) and doc["error"].startswith("baseline:")
    code, doc = run_json("validate", BASELINE_FILE, "--baseline", tmp_path / "missing.json")
    assert code == 2 and "file not found" in doc["error"]


def test_broken_goal_is_exit_2(tmp_path: Path) -> None:
    goal = write(tmp_path, {"target_phase_ids": ["phase_2"], "pattern_type": "laser"}, "goal.json")
    code, doc = run_json("validate", BASELINE_FILE, "--goal", goal)
    assert code == 2 and doc["error"].startswith("goal:") and doc["detail"] == "$.pattern_type"
    code, doc = run_json("validate", BASELINE_FILE, "--goal", write(tmp_path, "{", "g2.json"))
    assert code == 2


# --- diff ---------------------------------------------------------------------------------------

def test_diff_identical() -> None:
    result = run("diff", BASELINE_FILE, BASELINE_FILE)
    assert result.exit_code == 0 and "no differences" in result.stdout


def test_diff_human_and_json(tmp_path: Path) -> None:
    after = write(tmp_path, mutated(bullets_per_wave=14, bidirectional=True))
    result = run("diff", BASELINE_FILE, after)
    assert result.exit_code == 0
    assert "$.phases[1].pattern.bullets_per_wave" in result.stdout and "2 fields differ" in result.stdout
    code, doc = run_json("diff", BASELINE_FILE, after)
    assert code == 0 and doc["count"] == 2
    assert doc["changes"][0] == {"path": "$.phases[1].pattern.bullets_per_wave", "before": 12, "after": 14,
                                 "kind": "changed"}


def test_diff_invalid_config_is_still_diffed(tmp_path: Path) -> None:
    code, doc = run_json("diff", BASELINE_FILE, write(tmp_path, {"contract": "other"}))
    assert code == 0 and doc["changes"][0]["path"] == "$.contract"


def test_diff_bad_input(tmp_path: Path) -> None:
    code, doc = run_json("diff", BASELINE_FILE, tmp_path / "missing.json")
    assert code == 2 and doc["error"] == "after: file not found"
    code, doc = run_json("diff", write(tmp_path, '{"a": NaN}'), BASELINE_FILE)
    assert code == 2 and doc["error"].startswith("before:")
    code, doc = run_json("diff", BASELINE_FILE)
    assert code == 2


# --- nothing written, schema export ---------------------------------------------------------------

def test_validate_and_diff_write_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    candidate = write(tmp_path, mutated(bullets_per_wave=64, bullet_lifetime_seconds=12))
    monkeypatch.chdir(work)
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (("validate", candidate), ("validate", candidate, "--json"), ("diff", BASELINE_FILE, candidate),
                 ("validate", tmp_path / "missing.json")):
        run(*args)
    assert list(work.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_schema_export(tmp_path: Path) -> None:
    result = run("schema", "export", "--dir", tmp_path / "out")
    assert result.exit_code == 0
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "bullet_hell.schema.json" in names and "goal.schema.json" in names
    for name in names:
        assert (tmp_path / "out" / name).read_text() == (ROOT / "schemas" / name).read_text()
    assert "wrote" in result.stdout


def test_schema_export_unwritable(tmp_path: Path) -> None:
    blocker = write(tmp_path, "x", "file")
    result = run("schema", "export", "--dir", blocker / "sub")
    assert result.exit_code == 2 and "cannot write schemas" in result.stderr
