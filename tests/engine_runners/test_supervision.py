"""The shared supervision against real processes: process trees on both platform branches,
start-up budgets and liveness, deadlines, exit-code honesty, run-folder locks, interrupts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from engine_runners import supervision
from engine_runners.base import Capabilities, EnvironmentStatus, SubprocessRunner
from engine_runners.exit_codes import describe_exit
from engine_runners.protocol import RunRequest
from engine_runners.python_sim import PythonSimRunner, main as python_sim_main
from engine_runners.requests import build_request
from engine_runners.supervision import LogRules
from engine_runners.unity import UnityRunner
from tests.support.fakes.fake_windows import FakeJobApi, WindowsPopen
from tests.support.procutil import wait_gone
from tests.support.simutil import baseline_program

REPO = Path(__file__).resolve().parents[2]
FAKE = REPO / "tests" / "support" / "fakes" / "fake_engine.py"


class FakeRunner(SubprocessRunner):
    name = "fake"
    startup_budget = 5.0
    liveness_timeout = 5.0

    def __init__(self, mode: str, **env: str) -> None:
        self.mode = mode
        self.env = env

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        return [sys.executable, str(FAKE), self.mode, str(request_path)]

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO)
        env.update(self.env)
        return env

    def check(self) -> EnvironmentStatus:
        return EnvironmentStatus("fake", "available", "test double")

    def log_rules(self) -> LogRules:
        return UnityRunner().log_rules()  # Unity's progress and licence patterns

    def capabilities(self) -> Capabilities:
        return Capabilities(False, False, True, "python", "fake")


def _request(tmp_path: Path, run_id: str = "r1", capture: list[int] | None = None) -> RunRequest:
    return build_request(baseline_program(), seed=5, player={"kind": "scripted"},
                         output_dir=tmp_path / "out", run_id=run_id, capture_ticks=capture)


@pytest.fixture(autouse=True)
def _launches_allowed():
    supervision.allow_launches()
    yield
    supervision.allow_launches()


@pytest.mark.slow
def test_fake_ok_runs_end_to_end(tmp_path: Path) -> None:
    result = FakeRunner("ok").run(_request(tmp_path))
    assert result.ok, result.error
    assert result.engine == "fake" and result.handshake["engine"] == "fake"
    assert result.telemetry["status"] == "completed"
    assert "[stdout] GCV-HANDSHAKE" in Path(result.log_path).read_text()
    assert not (tmp_path / "out" / "engine.lock").exists()


# --- exit codes: success only from handshake + GCV-DONE + telemetry ------------------------

@pytest.mark.slow
@pytest.mark.parametrize("mode,kind", [
    ("crash", "crashed"),              # killed by a signal / 139
    ("win_abort", "crashed"),          # MSVC abort() exits 3: not a hash mismatch without GCV-ERROR
    ("hash_error", "hash_mismatch"),   # the engine said so
    ("silent_exit", "no_done"),        # exit 0 without GCV-DONE (Unity does this after failures)
    ("no_telemetry", "no_telemetry"), ("garbage", "bad_telemetry"),
    ("wrong_hash", "hash_mismatch"), ("schema", "bad_telemetry"),
])
def test_exit_codes_never_decide_alone(tmp_path: Path, mode: str, kind: str) -> None:
    result = FakeRunner(mode).run(_request(tmp_path))
    assert not result.ok
    assert result.error_kind == kind, result.error
    assert result.error


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["done_exit_1", "done_no_exit"])
def test_done_and_valid_telemetry_win_over_a_bad_exit(tmp_path: Path, mode: str) -> None:
    runner = FakeRunner(mode)
    runner.shutdown_grace = 1.0
    result = runner.run(_request(tmp_path))
    assert result.ok, result.error
    assert result.notes and ("exited with" in result.notes[-1] or "did not exit" in result.notes[-1])


@pytest.mark.parametrize("code,windows,text,crash", [
    (-11, False, "SIGSEGV", True), (139, False, "SIGSEGV", True), (3, True, "abort()", True),
    (0xC0000005, True, "STATUS_ACCESS_VIOLATION", True), (-1073741819, True, "STATUS_ACCESS_VIOLATION", True),
    (0xC0000409, False, "fail-fast", True), (0xC000013A, True, "CONTROL_C", True),
    (1, False, "exit code 1", False), (3, False, "exit code 3", False), (None, False, "ended by the runner", False),
])
def test_exit_code_table(code, windows: bool, text: str, crash: bool) -> None:
    described = describe_exit(code, windows=windows)
    assert text in described.text and described.crash is crash


# --- hung vs slow ----------------------------------------------------------------------------

@pytest.mark.slow
def test_progress_lines_keep_a_slow_start_alive(tmp_path: Path) -> None:
    runner = FakeRunner("slow_start", GCV_FAKE_SECONDS="2.5")
    runner.liveness_timeout = 1.0  # shorter than the start-up, longer than the gap between lines
    result = runner.run(_request(tmp_path))
    assert result.ok, result.error


@pytest.mark.slow
def test_heartbeats_keep_a_long_simulation_alive(tmp_path: Path) -> None:
    runner = FakeRunner("heartbeat", GCV_FAKE_SECONDS="2.5")
    runner.liveness_timeout = 1.0
    result = runner.run(_request(tmp_path))
    assert result.ok, result.error


@pytest.mark.slow
def test_start_up_budget_is_separate_and_names_the_phase(tmp_path: Path) -> None:
    runner = FakeRunner("slow_start", GCV_FAKE_SECONDS="20")
    runner.startup_budget, runner.liveness_timeout = 1.5, 5.0
    started = time.monotonic()
    result = runner.run(_request(tmp_path))
    assert time.monotonic() - started < 10
    assert result.error_kind == "no_handshake", result.error
    assert result.phase == "import_compile"
    assert "start-up budget of 1.5 s" in result.error and "import/compile" in result.error


@pytest.mark.slow
def test_silence_in_start_up_is_bounded_by_the_start_up_budget(tmp_path: Path) -> None:
    """Issue 28.4: before the handshake silence is no hang (liveness does not apply there); an
    engine that never handshakes is ended by the start-up budget, with its children."""
    runner = FakeRunner("silent_start")
    runner.startup_budget, runner.liveness_timeout = 2.0, 0.5
    result = runner.run(_request(tmp_path))
    assert result.error_kind == "no_handshake", result.error
    assert result.phase == "import_compile" and "start-up budget of 2 s" in result.error
    assert wait_gone(int((tmp_path / "out" / "child.pid").read_text()))


@pytest.mark.slow
def test_log_spam_without_heartbeats_is_a_hang_at_the_last_tick(tmp_path: Path) -> None:
    runner = FakeRunner("spam_after_handshake")
    runner.liveness_timeout = 1.0
    result = runner.run(_request(tmp_path), timeout=20)
    assert result.error_kind == "hung", result.error
    assert result.phase == "simulation" and result.last_tick == 120
    assert "simulation at tick 120" in result.error


@pytest.mark.slow
@pytest.mark.parametrize("mode,kind,timeout", [("hang", "timeout", 1.5), ("no_handshake", "no_handshake", 30)])
def test_hangs_are_killed_with_their_children(tmp_path: Path, mode: str, kind: str, timeout: float) -> None:
    runner = FakeRunner(mode)
    runner.startup_budget = 1.5
    runner.liveness_timeout = 60
    started = time.monotonic()
    result = runner.run(_request(tmp_path), timeout=timeout)
    assert time.monotonic() - started < 15
    assert not result.ok and result.error_kind == kind, result.error
    assert "process tree was ended" in result.error
    if kind == "timeout":
        assert "timeout of 1.5 s" in result.error  # the limit actually applied
    child = int((tmp_path / "out" / "child.pid").read_text())
    assert wait_gone(child), "the engine's child process survived the kill"


@pytest.mark.slow
def test_deadline_bounds_the_whole_run_including_start_up(tmp_path: Path) -> None:
    runner = FakeRunner("no_handshake")
    runner.startup_budget = 600
    runner.liveness_timeout = 600
    started = time.monotonic()
    result = runner.run(_request(tmp_path), timeout=600, deadline=time.time() + 1.0)
    assert time.monotonic() - started < 10
    assert result.error_kind == "deadline" and result.phase == "startup", result.error
    assert wait_gone(int((tmp_path / "out" / "child.pid").read_text()))


def test_a_passed_deadline_starts_nothing(tmp_path: Path) -> None:
    result = FakeRunner("ok").run(_request(tmp_path), deadline=time.time() - 1)
    assert result.error_kind == "deadline" and not (tmp_path / "out" / "run.log").exists()
    assert PythonSimRunner().run(_request(tmp_path), deadline=time.time() - 1).error_kind == "deadline"


@pytest.mark.slow
def test_a_grandchild_in_its_own_session_is_ended(tmp_path: Path) -> None:
    runner = FakeRunner("setsid_child")
    result = runner.run(_request(tmp_path), timeout=2.0)
    assert result.error_kind == "timeout", result.error
    child = int((tmp_path / "out" / "child.pid").read_text())
    assert wait_gone(child), "a grandchild that left the engine's session survived"


@pytest.mark.slow
def test_a_handshake_that_claims_another_engine_is_a_protocol_error(tmp_path: Path) -> None:
    result = FakeRunner("ok", GCV_FAKE_ENGINE="unity").run(_request(tmp_path))
    assert result.error_kind == "protocol_error" and result.engine == "fake", result.error
    assert "'unity'" in result.error


# --- the Windows branch, on a simulated Windows surface ------------------------------------

@pytest.mark.slow
def test_windows_branch_ends_the_tree_through_the_job_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def posix_only(*args, **kwargs):
        raise AssertionError("a POSIX-only call on the Windows path")

    monkeypatch.setattr(os, "killpg", posix_only)
    monkeypatch.setattr(os, "getpgid", posix_only)
    api, popen = FakeJobApi(), WindowsPopen()
    runner = FakeRunner("hang")
    runner.platform, runner.win_api, runner.popen = "nt", api, popen
    result = runner.run(_request(tmp_path), timeout=1.5)
    assert result.error_kind == "timeout", result.error
    assert popen.calls[0]["creationflags"] == 0x200  # CREATE_NEW_PROCESS_GROUP
    names = [c[0] for c in api.calls]
    assert names[:2] == ["create_job", "assign"] and "send_break" in names
    assert names.index("terminate") < names.index("close")
    assert wait_gone(int((tmp_path / "out" / "child.pid").read_text()))


@pytest.mark.slow
def test_windows_branch_without_a_job_still_ends_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "killpg", lambda *a: (_ for _ in ()).throw(AssertionError("killpg on Windows")))
    runner = FakeRunner("hang")
    runner.platform, runner.win_api, runner.popen = "nt", FakeJobApi(fail_create=True), WindowsPopen()
    result = runner.run(_request(tmp_path), timeout=1.5)
    assert result.error_kind == "timeout"
    assert wait_gone(int((tmp_path / "out" / "child.pid").read_text()))


@pytest.mark.slow
def test_windows_branch_runs_a_good_engine(tmp_path: Path) -> None:
    runner = FakeRunner("ok")
    runner.platform, runner.win_api, runner.popen = "nt", FakeJobApi(), WindowsPopen()
    result = runner.run(_request(tmp_path))
    assert result.ok, result.error


# --- interrupts and run folders --------------------------------------------------------------

@pytest.mark.slow
def test_stop_all_ends_running_engines_and_refuses_new_ones(tmp_path: Path) -> None:
    results = {}
    thread = threading.Thread(target=lambda: results.setdefault("r", FakeRunner("hang").run(_request(tmp_path),
                                                                                          timeout=60)))
    thread.start()
    deadline = time.monotonic() + 10
    while not (tmp_path / "out" / "child.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    assert supervision.stop_all() == 1
    thread.join(10)
    assert time.monotonic() - started < 5
    assert results["r"].error_kind == "interrupted"
    assert wait_gone(int((tmp_path / "out" / "child.pid").read_text()))
    refused = FakeRunner("ok").run(_request(tmp_path / "later"))
    assert refused.error_kind == "interrupted" and "stopping" in refused.error


def _lock(out: Path, owner: int | None, engine: int | None) -> None:
    def ident(pid):
        return None if pid is None else {"pid": pid, "started": psutil.Process(pid).create_time()}

    out.mkdir(parents=True, exist_ok=True)
    (out / "engine.lock").write_text(json.dumps({"owner": ident(owner), "engine": ident(engine), "host": "h"}))


@pytest.mark.slow
def test_run_folder_of_a_live_gcv_is_refused(tmp_path: Path) -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _lock(tmp_path / "out", other.pid, None)
        result = FakeRunner("ok").run(_request(tmp_path))
        assert result.error_kind == "run_folder_busy" and str(other.pid) in result.error
    finally:
        other.kill()
        other.wait()


@pytest.mark.slow
def test_orphaned_engine_in_the_run_folder_is_ended_and_stale_locks_cleared(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "engine.lock").write_text(json.dumps({
        "owner": {"pid": dead.pid, "started": 1.0}, "engine": {"pid": orphan.pid,
                                                                "started": psutil.Process(orphan.pid).create_time()}}))
    result = FakeRunner("ok").run(_request(tmp_path))
    assert result.ok, result.error
    assert orphan.wait(timeout=10) is not None
    assert any("ended engine process" in n for n in result.notes)
    (tmp_path / "out" / "engine.lock").write_text(json.dumps({"owner": {"pid": dead.pid, "started": 1.0},
                                                              "engine": None}))
    again = FakeRunner("ok").run(_request(tmp_path))
    assert again.ok and any("stale" in n for n in again.notes)


# --- python-sim (the reference engine) -------------------------------------------------------

def test_python_sim_subprocess_timeout_is_reported(tmp_path: Path) -> None:
    result = PythonSimRunner("subprocess").run(_request(tmp_path), timeout=0.05)
    assert not result.ok and result.error_kind == "timeout"


def test_python_sim_cli_bad_request_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{\"run_id\": 3,")
    assert python_sim_main(["--request", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("GCV-HANDSHAKE ")
    assert "not JSON" in captured.err and "line 1" in captured.err
    assert 'GCV-ERROR {"exit_code":2,"kind":"bad_request"' in captured.out


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
    assert '"kind":"hash_mismatch"' in capsys.readouterr().out


@pytest.mark.slow
def test_subprocess_run_writes_frames_and_nothing_half_written(tmp_path: Path) -> None:
    request = build_request(baseline_program(), seed=1, player={"kind": "scripted"},
                            output_dir=tmp_path / "cap", run_id="cap", capture_ticks=[600, 1200])
    result = PythonSimRunner("subprocess").run(request)
    assert result.ok, result.error
    assert [Path(f).name for f in result.frames] == ["tick_000600.png", "tick_001200.png"]
    assert result.frames_source == "engine"
    assert not list((tmp_path / "cap").rglob("*.tmp"))
