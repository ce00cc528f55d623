"""The Unity and UE5 runners: configuration, command lines, real harness runs, misbehaving engines."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine_runners.requests import build_request
from engine_runners.ue5 import UE5Runner
from engine_runners.unity import UnityRunner
from tests.support.procutil import wait_gone
from tests.support.simutil import baseline_program
from tests.support.toolchains import require_cpp_harness, require_csharp_harness

FAKE_PLAYER = Path(__file__).resolve().parents[1] / "support" / "fakes" / "fake_player.sh"
ENV_VARS = ("GCV_UNITY_PLAYER", "GCV_UNITY_EDITOR", "GCV_UNITY_PROJECT", "GCV_UNITY_HARNESS", "GCV_UNITY_MODE",
            "GCV_UE_EDITOR_CMD", "GCV_UE_PROJECT", "GCV_UE_GAME", "GCV_UE_HARNESS", "GCV_UE_MODE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GCV_FAKE_PYTHON", sys.executable)
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))


def _request(tmp_path: Path, capture: list[int] | None = None, name: str = "out"):
    return build_request(baseline_program(), seed=2, player={"kind": "scripted"}, output_dir=tmp_path / name,
                         run_id="eng-1", capture_ticks=capture)


def test_nothing_configured_is_not_installed() -> None:
    assert UnityRunner().check().status == "not_installed"
    assert UE5Runner().check().status == "not_installed"


def test_misconfigurations_say_what_is_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(tmp_path / "nope"))
    status = UnityRunner().check()
    assert status.status == "misconfigured" and "player missing" in status.reason
    monkeypatch.delenv("GCV_UNITY_PLAYER")
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UNITY_PROJECT", str(tmp_path))
    assert "project missing" in UnityRunner().check().reason
    monkeypatch.setenv("GCV_UNITY_MODE", "cloud")
    assert UnityRunner().check().status == "misconfigured"
    monkeypatch.setenv("GCV_UE_EDITOR_CMD", str(FAKE_PLAYER))
    status = UE5Runner().check()
    assert status.status == "misconfigured" and "GCV_UE_PROJECT" in status.reason
    (tmp_path / "Game.uproject").write_text("{}")
    monkeypatch.setenv("GCV_UE_PROJECT", str(tmp_path / "Game.uproject"))
    assert UE5Runner().check().status == "available"


def test_unity_command_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "My Project"
    (project / "ProjectSettings").mkdir(parents=True)
    (project / "ProjectSettings" / "ProjectVersion.txt").write_text("m_EditorVersion: 6000.0.40f1\n")
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UNITY_PROJECT", str(project))
    runner = UnityRunner()
    assert runner.check().status == "available"
    req = tmp_path / "dir with space" / "request.json"
    assert runner.command(req, _request(tmp_path)) == [
        str(FAKE_PLAYER), "-batchmode", "-nographics", "-quit", "-projectPath", str(project),
        "-executeMethod", "Gcv.Editor.GcvBatch.Run", "-gcvRequest", str(req), "-logFile", "-"]
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(FAKE_PLAYER))
    capture = runner.command(req, _request(tmp_path, capture=[600]))
    assert capture == [str(FAKE_PLAYER), "-batchmode", "-gcvRequest", str(req), "-logFile", "-"]


def test_ue5_command_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "Game.uproject"
    project.write_text("{}")
    monkeypatch.setenv("GCV_UE_EDITOR_CMD", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UE_PROJECT", str(project))
    runner = UE5Runner()
    req = tmp_path / "dir with space" / "request.json"
    assert runner.command(req, _request(tmp_path)) == [
        str(FAKE_PLAYER), str(project), "-run=GcvRun", f'-GcvRequest="{req}"', "-unattended", "-nullrhi",
        "-nosplash", "-stdout", "-FullStdOutLogOutput"]
    monkeypatch.setenv("GCV_UE_GAME", str(FAKE_PLAYER))
    game = runner.command(tmp_path / "r.json", _request(tmp_path, capture=[600]))
    assert game[:3] == [str(FAKE_PLAYER), str(project), "-game"] and f"-GcvRequest={tmp_path / 'r.json'}" in game


def test_the_api_takes_no_executable_or_arguments() -> None:
    import inspect

    for runner in (UnityRunner, UE5Runner):
        params = list(inspect.signature(runner.run).parameters)
        assert params == ["self", "request", "timeout"]


@pytest.mark.slow
@pytest.mark.parametrize("runner_cls,var", [(UnityRunner, "GCV_UNITY_PLAYER"), (UE5Runner, "GCV_UE_GAME")])
def test_fake_engine_ok_through_each_runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner_cls, var) -> None:
    monkeypatch.setenv(var, str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_FAKE_MODE", "ok")
    result = runner_cls().run(_request(tmp_path))
    assert result.ok, result.error
    assert result.engine == "fake"  # named by its handshake, not by the runner




@pytest.mark.slow
@pytest.mark.parametrize("runner_cls,var", [(UnityRunner, "GCV_UNITY_PLAYER"), (UE5Runner, "GCV_UE_GAME")],
                         ids=["unity", "ue5"])
@pytest.mark.parametrize("mode,kind", [("hang", "timeout"), ("crash", "crashed"), ("no_telemetry", "no_telemetry"),
                                       ("garbage", "bad_telemetry"), ("wrong_hash", "hash_mismatch"),
                                       ("schema", "bad_telemetry"), ("no_handshake", "no_handshake")])
def test_misbehaving_engines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner_cls, var: str, mode: str,
                             kind: str) -> None:
    monkeypatch.setenv(var, str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_FAKE_MODE", mode)
    runner = runner_cls()
    runner.startup_timeout = 2.0
    started = time.monotonic()
    result = runner.run(_request(tmp_path), timeout=3.0)
    assert time.monotonic() - started < 20
    assert not result.ok and result.error_kind == kind, result.error
    pid_file = tmp_path / "out" / "child.pid"
    if mode in ("hang", "no_handshake"):
        assert wait_gone(int(pid_file.read_text())), "a child of the engine survived"


@pytest.mark.toolchain
def test_ue5_harness_real_subprocess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = require_cpp_harness()
    monkeypatch.setenv("GCV_UE_HARNESS", str(exe))
    runner = UE5Runner()
    assert runner.check().status == "available" and "not Unreal" in runner.check().reason
    out = tmp_path / "a dir with spaces"
    result = runner.run(_request(tmp_path, name="a dir with spaces"))
    assert result.ok, result.error
    assert result.engine == "ue5-harness"
    assert result.telemetry["engine"]["implementation"] == "cpp"
    assert (out / "telemetry.json").is_file()


@pytest.mark.toolchain
def test_unity_harness_real_subprocess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = require_csharp_harness()
    monkeypatch.setenv("GCV_UNITY_HARNESS", str(exe))
    result = UnityRunner().run(_request(tmp_path))
    assert result.ok, result.error
    assert result.engine == "unity-harness"
    assert result.telemetry["engine"]["implementation"] == "csharp"


REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


@pytest.mark.toolchain
@pytest.mark.parametrize("engine,var,expected", [("ue5", "GCV_UE_HARNESS", "ue5-harness"),
                                                 ("unity", "GCV_UNITY_HARNESS", "unity-harness")])
def test_gcv_run_end_to_end_on_a_harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str, var: str,
                                         expected: str) -> None:
    from gcv.cli.app import app

    exe = require_cpp_harness() if engine == "ue5" else require_csharp_harness()
    monkeypatch.setenv(var, str(exe))
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    result = CliRunner().invoke(app, ["run", REQUEST, "--yes", "--json", "--engine", engine])
    summary = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert summary["status"] == "evidence_ready"
    assert summary["engine"] == engine
    assert summary["engines_used"] == [expected]  # the evidence names the harness, not the engine
    py = CliRunner().invoke(app, ["run", REQUEST, "--yes", "--json"])
    assert json.loads(py.stdout)["final_candidate_hash"] == summary["final_candidate_hash"]
