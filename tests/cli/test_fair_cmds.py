"""``gcv fair`` through the real typer app: exit codes, files, one JSON object, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.sim.players import load_trace
from tests.support.fairutil import baseline_data, falling_wall, with_phase

ROOT = Path(__file__).resolve().parents[2]
BASELINE_FILE = ROOT / "artifacts" / "baselines" / "shrine_trial.json"


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "home"))


def run(*args: str | Path) -> Any:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def run_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run(*args, "--json")
    doc = json.loads(result.stdout)  # exactly one JSON document, nothing else on stdout
    assert isinstance(doc, dict) and result.stdout.startswith("{") and result.stdout.count("\n{") == 0
    assert result.stderr == ""
    assert doc["exit_code"] == result.exit_code
    return result.exit_code, doc


def write(tmp_path: Path, doc: Any, name: str = "config.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.slow
def test_baseline_is_fair_exit_0_with_a_replayable_witness(tmp_path: Path) -> None:
    code, doc = run_json("fair", BASELINE_FILE, "--out", tmp_path / "out")
    assert code == 0 and doc["report"]["verdict"] == "fair"
    files = doc["files"]
    assert set(files) == {"witness", "tightest_frame", "chart", "report"}
    assert all(Path(p).is_file() and Path(p).parent == tmp_path / "out" for p in files.values())
    load_trace(Path(files["witness"]))  # a valid gcv.inputs/1 trace
    assert json.loads(Path(files["report"]).read_text())["verdict"] == "fair"
    # the proof, as a user would run it: gcv sim with the trace as the player
    sim = run("sim", BASELINE_FILE, "--player", f"inputs:{files['witness']}", "--out", tmp_path / "sim", "--json")
    assert sim.exit_code == 0 and json.loads(sim.stdout)["telemetry"]["player_hits"] == 0


def test_unfair_exit_1_names_tick_phase_and_wave_and_writes_the_frame(tmp_path: Path) -> None:
    config = write(tmp_path, falling_wall())
    result = run("fair", config)
    assert result.exit_code == 1
    out = result.stdout
    assert "UNFAIR" in out and "tick 21" in out and "drop" in out
    frames = list((tmp_path / "home" / "fair").glob("*/unfair_tick_000021.png"))
    assert len(frames) == 1 and frames[0].read_bytes().startswith(b"\x89PNG")
    code, doc = run_json("fair", config)
    assert code == 1 and doc["report"]["unfair"]["tick"] == 21
    assert doc["files"]["unfair_frame"].endswith("unfair_tick_000021.png")


def test_undetermined_exit_3(tmp_path: Path) -> None:
    config = write(tmp_path, with_phase(falling_wall(), 0, type="aimed_fan", spread_angle_deg=30))
    code, doc = run_json("fair", config, "--seed", "4")
    assert code == 3 and doc["report"]["verdict"] == "undetermined" and doc["report"]["seed"] == 4
    assert "witness" not in doc["files"] and "unfair_frame" not in doc["files"]
    human = run("fair", config)
    assert human.exit_code == 3 and "UNDETERMINED" in human.stdout and "aimed phases" in human.stdout


def test_bad_inputs_exit_2(tmp_path: Path) -> None:
    code, doc = run_json("fair", tmp_path / "missing.json")
    assert code == 2 and doc["file"].endswith("missing.json")
    code, doc = run_json("fair", write(tmp_path, "{not json"))
    assert code == 2 and "error" in doc
    invalid = baseline_data()
    invalid["player"]["graze_radius"] = 0.1  # below the hit radius: the rules layer refuses it
    code, doc = run_json("fair", write(tmp_path, invalid))
    assert code == 2 and doc["error"].startswith("the config is invalid")
    assert any(i["rule_id"] == "rules.graze_radius" for layer in doc["validation"]["layers"] for i in layer["errors"])
    human = run("fair", write(tmp_path, invalid))
    assert human.exit_code == 2 and "rules.graze_radius" in human.stderr
    for option, value in (("--seed", "-1"), ("--budget-seconds", "0")):
        result = run("fair", write(tmp_path, falling_wall()), option, value)
        assert result.exit_code == 2 and option in result.stderr and "greater than or equal" in result.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, doc = run_json("fair", write(tmp_path, falling_wall()), "--out", blocker / "sub")
    assert code == 2 and "output folder" in doc["error"]
    result = run("fair")
    assert result.exit_code == 2 and "CONFIG" in result.stderr


@pytest.mark.slow
def test_option_errors_are_one_json_object_through_the_entry_point(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "gcv.cli.app", "fair", str(write(tmp_path, falling_wall())),
                          "--budget-seconds", "0", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    doc = json.loads(out.stdout)
    assert doc["exit_code"] == 2 and "--budget-seconds" in doc["error"]


def test_help_documents_the_exit_codes() -> None:
    result = run("fair", "--help")
    assert result.exit_code == 0
    assert "0 fair, 1 unfair, 3 undetermined, 2 bad input" in " ".join(result.stdout.split())


def test_the_work_budget_option_decides_and_the_defaults_mirror_the_analysis(tmp_path: Path) -> None:
    """--budget-work is the budget (deterministic); --budget-seconds only a safety stop."""
    from gcv.analysis import budget
    from gcv.cli.commands import fair_cmds

    assert (fair_cmds.DEFAULT_BUDGET_WORK, fair_cmds.DEFAULT_SAFETY_SECONDS, fair_cmds.MAX_BUDGET_WORK) == (
        budget.DEFAULT_BUDGET_WORK, budget.DEFAULT_SAFETY_SECONDS, budget.MAX_BUDGET_WORK)
    config = write(tmp_path, with_phase(falling_wall(), 0, type="aimed_fan", spread_angle_deg=30))
    code, doc = run_json("fair", config, "--budget-work", "1000")
    effort = doc["report"]["effort"]
    assert code == 3 and effort["budget_work"] == 1000 and effort["stopped_by"] == "work"
    assert effort["work_units"] >= 1000 and effort["budget_seconds"] == budget.DEFAULT_SAFETY_SECONDS
    again = run_json("fair", config, "--budget-work", "1000")[1]["report"]["effort"]
    assert again["work_units"] == effort["work_units"] and again["work_by_stage"] == effort["work_by_stage"]
    human = run("fair", config, "--budget-work", "1000")
    assert human.exit_code == 3 and "the work budget ran out" in human.stdout
    for value in ("0", "-5"):
        result = run("fair", config, "--budget-work", value)
        assert result.exit_code == 2 and "--budget-work" in result.stderr
    assert "--budget-work" in " ".join(run("fair", "--help").stdout.split())
