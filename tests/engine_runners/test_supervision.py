"""The shared supervision and the python-sim subprocess runner against real processes."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from engine_runners.base import Capabilities, EnvironmentStatus, SubprocessRunner
from engine_runners.protocol import RunRequest
from engine_runners.python_sim import PythonSimRunner, main as python_sim_main
from engine_runners.requests import build_request
from tests.support.procutil import wait_gone
from tests.support.simutil import baseline_program

FAKE = Path(__file__).resolve().parents[1] / "support" / "fakes" / "fake_engine.py"


class FakeRunner(SubprocessRunner):
    name = "fake"
    startup_timeout = 2.0

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        return [sys.executable, str(FAKE), self.mode, str(request_path)]

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        return env

    def check(self) -> EnvironmentStatus:
        return EnvironmentStatus("fake", "available", "test double")

    def capabilities(self) -> Capabilities:
        return Capabilities(False, False, True, "python", "fake")


def _request(tmp_path: Path, run_id: str = "r1") -> RunRequest:
    return build_request(baseline_program(), seed=5, player={"kind": "scripted"},
                         output_dir=tmp_path / "out", run_id=run_id)




@pytest.mark.slow
def test_fake_ok_runs_end_to_end(tmp_path: Path) -> None:
    result = FakeRunner("ok").run(_request(tmp_path))
    assert result.ok, result.error
    assert result.handshake and result.handshake["engine"] == "fake"
    assert result.telemetry["status"] == "completed"
    assert "[stdout] GCV-HANDSHAKE" in Path(result.log_path).read_text()


@pytest.mark.parametrize("mode,kind", [
    ("crash", "crashed"), ("no_telemetry", "no_telemetry"), ("garbage", "bad_telemetry"),
    ("wrong_hash", "hash_mismatch"), ("schema", "bad_telemetry"),
])
@pytest.mark.slow
def test_misbehaving_engines_end_in_a_clear_error(tmp_path: Path, mode: str, kind: str) -> None:
    result = FakeRunner(mode).run(_request(tmp_path))
    assert not result.ok
    assert result.error_kind == kind, result.error
    assert result.error


@pytest.mark.slow
@pytest.mark.parametrize("mode,kind,timeout", [("hang", "timeout", 1.5), ("no_handshake", "no_handshake", 30)])
def test_hangs_are_killed_with_their_children(tmp_path: Path, mode: str, kind: str, timeout: float) -> None:
    started = time.monotonic()
    result = FakeRunner(mode).run(_request(tmp_path), timeout=timeout)
    assert time.monotonic() - started < 15
    assert not result.ok and result.error_kind == kind, result.error
    assert "killed" in result.error
    child = int((tmp_path / "out" / "child.pid").read_text())
    assert wait_gone(child), "the engine's child process survived the kill"


def test_python_sim_subprocess_timeout_is_reported(tmp_path: Path) -> None:
    result = PythonSimRunner("subprocess").run(_request(tmp_path), timeout=0.05)
    assert not result.ok and result.error_kind in ("timeout", "no_handshake")


def test_python_sim_cli_bad_request_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{\"run_id\": 3,")
    assert python_sim_main(["--request", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("GCV-HANDSHAKE ")
    assert "not JSON" in captured.err and "line 1" in captured.err


def test_python_sim_cli_names_the_bad_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _request(tmp_path).model_dump(mode="json")
    data["seed"] = -1
    path = tmp_path / "req.json"
    path.write_text(json.dumps(data))
    assert python_sim_main(["--request", str(path)]) == 2
    assert "field seed" in capsys.readouterr().err


def test_python_sim_cli_missing_output_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _request(tmp_path).model_dump(mode="json")
    data["output_dir"] = str(tmp_path / "does" / "not" / "exist")
    path = tmp_path / "req.json"
    path.write_text(json.dumps(data))
    assert python_sim_main(["--request", str(path)]) == 4
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "does").exists()


def test_python_sim_cli_hash_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _request(tmp_path).model_dump(mode="json")
    data["program"]["duration_ticks"] += 1
    (tmp_path / "out").mkdir()
    path = tmp_path / "req.json"
    path.write_text(json.dumps(data))
    assert python_sim_main(["--request", str(path)]) == 3
    assert not (tmp_path / "out" / "telemetry.json").exists()


@pytest.mark.slow
def test_subprocess_run_writes_frames_and_nothing_half_written(tmp_path: Path) -> None:
    request = build_request(baseline_program(), seed=1, player={"kind": "scripted"},
                            output_dir=tmp_path / "cap", run_id="cap", capture_ticks=[600, 1200])
    result = PythonSimRunner("subprocess").run(request)
    assert result.ok, result.error
    assert [Path(f).name for f in result.frames] == ["tick_000600.png", "tick_001200.png"]
    assert not list((tmp_path / "cap").rglob("*.tmp"))
