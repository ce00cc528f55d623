"""Kill the loop at every durable write and resume: same final state, same telemetry.

A forked child runs the workflow with the crash point armed (it dies with os._exit at
the N-th durable write, as a killed process would); the parent resumes it in process and
compares it with an uninterrupted run. A second test SIGKILLs a real `gcv run` process
at a few moments and resumes with `gcv resume`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gcv.repair.scope import whole_fight
from gcv.sim.telemetry import gameplay_view
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from gcv.store.atomic import CRASH
from gcv.store.catalog import Workspace
from gcv.store.logs import verify_chain
from gcv.workflow.baselines import active_baseline
from tests.support.simutil import Clock

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


def _start(root: Path) -> tuple[WorkflowLoop, str]:
    engine = WorkflowLoop(Workspace(root), clock=Clock(0.5))
    baseline, source = active_baseline(engine.ws, 0.0)
    return engine, engine.create(REQUEST, baseline, Settings(), baseline_source=source)


def _drive(engine: WorkflowLoop, wf_id: str) -> dict:
    state = engine.advance(wf_id)
    if state.status == "awaiting_authorization":
        engine.authorize(wf_id, actor="tester", repair_scope=whole_fight(active_baseline(engine.ws, 0.0)[0]))
        state = engine.advance(wf_id)
    return state


def _essence(engine: WorkflowLoop, state: dict) -> dict:
    d = engine.ws.workflow_dir(state.id)
    telemetry = [d.get(r.run.telemetry_hash) for r in state.rounds if r.run]
    for t in telemetry:
        t.pop("wall_time_ms", None)
    return {
        "status": state.status, "reason": state.terminal_reason,
        "final": state.final_candidate_hash, "usage": state.usage,
        "rounds": [(r.candidate_hash, r.miss_score, r.gate.intent if r.gate else None) for r in state.rounds],
        "telemetry": telemetry, "trace": state.trace,
        "transitions": [(e.get("from"), e.get("to")) for e in d.events() if e["type"] == "transition"],
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    engine, wf = _start(tmp_path_factory.mktemp("ref"))
    state = _drive(engine, wf)
    assert state.status == "evidence_ready"
    return _essence(engine, state)


def _crash_at(root: Path, n: int) -> int:
    pid = os.fork()
    if pid == 0:  # child: arm the crash point and run until it fires
        CRASH.limit, CRASH.count = n, 0
        try:
            engine, wf = _start(root)
            _drive(engine, wf)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.mark.slow
def test_kill_at_every_durable_write_then_resume(tmp_path: Path, reference: dict) -> None:
    crashed_points = 0
    # Every one of the first 12 writes (proposal and authorization), then every third one:
    # each crash point is a full forked run, and this machine has two cores.
    points = [n for n in range(1, 400) if n <= 12 or n % 3 == 0]
    for n in points:
        root = tmp_path / f"k{n}"
        code = _crash_at(root, n)
        if code == 0:
            break  # the run finished before the n-th write: every point was covered
        assert code == 137
        crashed_points += 1
        ws = Workspace(root)
        rows = ws.list_workflows()
        if not rows:
            continue  # died before the workflow was registered: nothing to resume
        engine = WorkflowLoop(ws, clock=Clock(0.5))
        try:
            engine.load(rows[0]["id"])
        except Exception:  # noqa: BLE001 - died between registration and the first state write
            continue
        state = _drive(engine, rows[0]["id"])
        got = _essence(engine, state)
        assert got == reference, f"resume after a crash at write {n} diverged"
        assert verify_chain(engine.ws.workflow_dir(rows[0]["id"]).events()) is None
    assert crashed_points >= 15


@pytest.mark.slow
def test_sigkill_a_real_run_and_resume(tmp_path: Path, reference: dict) -> None:
    env = dict(os.environ)
    env.pop("GCV_CRASH_AFTER", None)
    for delay in (0.8, 1.4, 2.0):
        home = tmp_path / f"h{delay}"
        env["GCV_HOME"] = str(home)
        proc = subprocess.Popen([sys.executable, "-m", "gcv.cli.app", "run", REQUEST, "--yes", "--repair-scope", "fight", "--json"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        rows = Workspace(home).list_workflows()
        if not rows:
            continue
        wf = rows[0]["id"]
        engine = WorkflowLoop(Workspace(home))
        try:
            _, state = engine.load(wf)
        except Exception:  # noqa: BLE001
            continue
        resume = [sys.executable, "-m", "gcv.cli.app", "resume", wf, "--json"]
        out = subprocess.run(resume, env=env, capture_output=True, text=True, timeout=120)
        if out.returncode == 7:  # killed before authorization: nothing ran, authorize now
            engine.authorize(wf, actor="tester", repair_scope=whole_fight(active_baseline(engine.ws, 0.0)[0]))
            out = subprocess.run(resume, env=env, capture_output=True, text=True, timeout=120)
        summary = json.loads(out.stdout)
        assert out.returncode == 0, out.stderr
        assert summary["status"] == reference["status"]
        assert summary["final_candidate_hash"] == reference["final"]
        _, state = engine.load(wf)
        d = engine.ws.workflow_dir(wf)
        tels = [gameplay_view(d.get(r.run.telemetry_hash)) for r in state.rounds if r.run]
        assert tels == [gameplay_view(t) for t in reference["telemetry"]]
