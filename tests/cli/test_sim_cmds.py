"""``gcv sim`` and ``gcv engines`` through the real typer app: one run of the reference simulator,
frames at the asked seconds, refusals before anything runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from tests.conftest import BASELINE_PATH
from tests.support.evalutil import base


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "home"))


def run_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, [*map(str, args), "--json"])
    assert "Traceback" not in result.output
    doc = json.loads(result.stdout)  # one JSON object, nothing else on stdout
    assert doc["exit_code"] == result.exit_code
    return result.exit_code, doc


def test_a_run_prints_the_simulators_telemetry_and_writes_frames(tmp_path: Path) -> None:
    code, doc = run_json("sim", BASELINE_PATH, "--seed", "3", "--capture", "1,0.5,1", "--out", tmp_path / "run")
    assert code == 0 and doc["output_dir"] == str(tmp_path / "run")
    reference = Simulation(compile_program(base()), {"kind": "scripted"}).run(seed=3).telemetry
    assert doc["telemetry"]["state_hash"] == reference["state_hash"] and doc["telemetry"]["seed"] == 3
    assert [Path(f).name for f in doc["frames"]] == ["tick_000030.png", "tick_000060.png"]
    assert all(Path(f).is_file() for f in doc["frames"]) and doc["capture_ticks_after_end"] == []


def test_the_human_output(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["sim", str(BASELINE_PATH), "--player", "bot:expert", "--out", str(tmp_path)])
    assert result.exit_code == 0
    assert "player bot:expert" in result.stdout and "phase_1" in result.stdout and "telemetry:" in result.stdout


@pytest.mark.parametrize("args,words", [
    (["--player", "bot:pro"], "unknown bot skill 'pro'"),
    (["--capture", "soon"], "--capture: 'soon' is not a number of seconds"),
    (["--capture", "700"], "--capture: 700 s is outside 0..600 s"),
])
def test_usage_errors_are_exit_2_before_anything_runs(tmp_path: Path, args: list[str], words: str) -> None:
    code, doc = run_json("sim", BASELINE_PATH, "--out", tmp_path / "never", *args)
    assert code == 2 and words in json.dumps(doc) and not (tmp_path / "never").exists()


def test_an_invalid_config_is_refused_with_its_report(tmp_path: Path) -> None:
    data = base().model_dump(mode="json")
    data["phases"][0]["pattern"]["bullets_per_wave"] = 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, doc = run_json("sim", bad, "--out", tmp_path / "never")
    assert code == 1 and doc["error"] == "the config is invalid; nothing was simulated"
    assert doc["validation"]["ok"] is False and not (tmp_path / "never").exists()


def test_engines_lists_every_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in [n for n in os.environ if n.startswith(("GCV_UNITY", "GCV_UE"))]:
        monkeypatch.delenv(name)
    result = CliRunner().invoke(app, ["engines", "--json"])
    assert result.exit_code == 0
    rows = {row["engine"]: row for row in json.loads(result.stdout)["engines"]}
    assert list(rows) == ["python-sim", "unity", "ue5"]
    assert rows["python-sim"]["status"] == "available" and "batches:" in rows["python-sim"]["reason"]
    assert rows["unity"]["status"] == "not_installed" and "renders_frames" in rows["unity"]["capabilities"]


@pytest.mark.slow
def test_engines_says_whether_build_agents_are_configured_and_reachable(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a scheduler to reach (the reachable case runs against real processes in
    tests/engine_runners/test_build_agents.py)."""
    import socket

    monkeypatch.setenv("GCV_HOME", str(tmp_path))
    shown = json.loads(CliRunner().invoke(app, ["engines", "--json"]).stdout)["build_agents"]
    assert shown == {"configured": False, "file": str(tmp_path / "build_agents.toml"), "engines": []}
    assert "build agents: none" in CliRunner().invoke(app, ["engines"], env={"COLUMNS": "200"}).stdout
    (tmp_path / "build_agents.toml").write_text('scheduler = "tcp://127.0.0.1:1"\nengines = ["ue7"]\n')
    shown = json.loads(CliRunner().invoke(app, ["engines", "--json"]).stdout)["build_agents"]
    assert shown["reachable"] is None and "field engines: 'ue7' is not an engine" in shown["error"]
    text = CliRunner().invoke(app, ["engines"], env={"COLUMNS": "300"}).stdout
    assert "build agents: misconfigured" in text and "ue7" in text
    pytest.importorskip("distributed")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "build_agents.toml").write_text(f'scheduler = "tcp://127.0.0.1:{port}"\nengines = ["ue5"]\n'
                                                'connect_timeout_seconds = 0.5\n')
    result = CliRunner().invoke(app, ["engines", "--json"])
    shown = json.loads(result.stdout)
    assert result.exit_code == 0 and shown["build_agents"]["reachable"] is False
    assert "cannot reach the scheduler within 0.5 s" in shown["build_agents"]["error"]
    assert {r["engine"]: r.get("runs_on") for r in shown["engines"]}["ue5"] == "build agents"
    text = CliRunner().invoke(app, ["engines"], env={"COLUMNS": "300"}).stdout
    assert f"build agents: scheduler tcp://127.0.0.1:{port} unreachable; runs of ue5 go there" in text
