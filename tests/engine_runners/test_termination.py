"""SIGTERM / SIGINT to `gcv run` and `gcv resume`: every engine process ends, the workflow
resumes, and a later run never starts a second engine into a folder a live one writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.procutil import wait_gone

REPO = Path(__file__).resolve().parents[2]
FAKE_PLAYER = REPO / "tests" / "support" / "fakes" / "fake_player.sh"
REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive"


def _gcv(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "from gcv.cli.app import main; main()", *args], env=env,
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _env(tmp_path: Path, mode: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GCV_UNITY", "GCV_UE", "GCV_FAKE"))}
    env.update(GCV_UNITY_PLAYER=str(FAKE_PLAYER), GCV_FAKE_MODE=mode, GCV_FAKE_ENGINE="unity",
               GCV_FAKE_PYTHON=sys.executable, PYTHONPATH=str(REPO), GCV_HOME=str(tmp_path / "ws"))
    return env


def _wait_for(pattern: str, root: Path, timeout: float = 60) -> list[Path]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = list(root.glob(pattern))
        if found:
            return found
        time.sleep(0.05)
    return []


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_gcv_run_ends_the_engine_tree_and_the_workflow_resumes(tmp_path: Path, sig: int) -> None:
    proc = _gcv(["run", REQUEST, "--engine", "unity", "--yes", "--repair-scope", "fight", "--json"], _env(tmp_path, "setsid_child"), tmp_path)
    pid_files = _wait_for("ws/workflows/*/runs/*/child.pid", tmp_path)
    assert pid_files, proc.communicate(timeout=5)
    grandchild = int(pid_files[0].read_text())
    sent = time.monotonic()
    proc.send_signal(sig)
    proc.communicate(timeout=30)
    assert time.monotonic() - sent < 10
    assert proc.returncode == 130  # interrupted, resumable
    assert wait_gone(grandchild), "the engine's grandchild (own session) survived the signal"
    run_dir = pid_files[0].parent
    assert not (run_dir / "engine.lock").exists()  # released: resume may use the folder
    wf = run_dir.parent.parent.name
    done = subprocess.run([sys.executable, "-c", "from gcv.cli.app import main; main()", "resume", wf, "--json"],
                          env=_env(tmp_path, "ok"), cwd=tmp_path, capture_output=True, timeout=300)
    summary = json.loads(done.stdout)
    assert summary["status"] == "evidence_ready", done.stderr.decode()[-2000:]
    assert summary["engines_used"] == ["unity"]


@pytest.mark.slow
def test_resume_never_starts_a_second_engine_into_a_live_folder(tmp_path: Path) -> None:
    """gcv killed with SIGKILL leaves its engine writing; the next resume ends it first."""
    proc = _gcv(["run", REQUEST, "--engine", "unity", "--yes", "--repair-scope", "fight", "--json"], _env(tmp_path, "hang"), tmp_path)
    pid_files = _wait_for("ws/workflows/*/runs/*/child.pid", tmp_path)
    assert pid_files
    run_dir = pid_files[0].parent
    lock = json.loads((run_dir / "engine.lock").read_text())
    engine_pid = lock["engine"]["pid"]
    proc.kill()  # SIGKILL: no handler runs, the engine is orphaned and keeps running
    proc.communicate(timeout=10)
    assert not wait_gone(engine_pid, timeout=0.5), "the orphaned engine should still be running here"
    wf = run_dir.parent.parent.name
    done = subprocess.run([sys.executable, "-c", "from gcv.cli.app import main; main()", "resume", wf, "--json"],
                          env=_env(tmp_path, "ok"), cwd=tmp_path, capture_output=True, timeout=300)
    assert json.loads(done.stdout)["status"] == "evidence_ready", done.stderr.decode()[-2000:]
    assert wait_gone(engine_pid), "resume ran next to the orphaned engine instead of ending it"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER is Linux only")
def test_subreaper_adopts_orphans_so_they_can_be_ended(tmp_path: Path) -> None:
    script = f"""
import subprocess, sys, time
sys.path.insert(0, {str(REPO)!r})
from engine_runners.termination import make_subreaper, end_descendants
import psutil
assert make_subreaper()
# a child that starts a grandchild in a new session, then exits: the grandchild is orphaned
subprocess.run([sys.executable, "-c",
    "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
    "start_new_session=True); print(p.pid)"], stdout=open({str(tmp_path / 'pid')!r}, 'w'))
orphan = int(open({str(tmp_path / 'pid')!r}).read())
time.sleep(0.2)
assert psutil.Process(orphan).ppid() == psutil.Process().pid, "not adopted"
assert end_descendants() >= 1
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr
    assert wait_gone(int((tmp_path / "pid").read_text()))



@pytest.mark.slow
def test_a_second_writer_is_refused_at_once_with_the_holders_pid(tmp_path: Path) -> None:
    """Two `gcv resume WF` at once would run the same engine step twice and break the hash chain."""
    proc = _gcv(["run", REQUEST, "--engine", "unity", "--yes", "--repair-scope", "fight", "--json"], _env(tmp_path, "hang"), tmp_path)
    try:
        pid_files = _wait_for("ws/workflows/*/runs/*/child.pid", tmp_path)
        assert pid_files
        wf = pid_files[0].parent.parent.parent.name
        events = (tmp_path / "ws" / "workflows" / wf / "events.jsonl").read_bytes()
        for command in (["resume", wf, "--json"], ["decide", wf, "rollback", "--actor", "x", "--note", "stop", "--json"]):
            started = time.monotonic()
            second = subprocess.run([sys.executable, "-c", "from gcv.cli.app import main; main()", *command],
                                    env=_env(tmp_path, "ok"), cwd=tmp_path, capture_output=True, timeout=60)
            assert time.monotonic() - started < 15  # at once, not after the first one finishes
            out = json.loads(second.stdout)
            assert second.returncode == 2 and f"in use by PID {proc.pid}" in out["error"], out
        assert (tmp_path / "ws" / "workflows" / wf / "events.jsonl").read_bytes() == events  # nothing written
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
