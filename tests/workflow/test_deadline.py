"""``--deadline`` bounds the whole workflow, a hung engine run included."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from gcv.contract.status import Reason, Status
from gcv.store.catalog import Workspace
from gcv.workflow.activities import default_activities
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Budgets, Settings
from tests.support.batchutil import FAKE, FakeRunner
from tests.support.procutil import wait_gone


class HungEngine(FakeRunner):
    def command(self, request_path: Path, request: object) -> list[str]:
        return [sys.executable, str(FAKE), "hang", str(request_path)]  # handshakes, then never finishes


@pytest.mark.slow
def test_a_hung_engine_is_ended_at_the_deadline_and_the_workflow_says_deadline(tmp_path: Path) -> None:
    activities = default_activities()
    activities.runner = lambda name: HungEngine()
    loop = WorkflowLoop(Workspace(tmp_path), activities=activities)  # the real clock
    baseline, source = active_baseline(loop.ws, time.time())
    wf = loop.create("make phase 3 slower", baseline, Settings(engine="fake"), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="tester", budgets=Budgets(deadline_seconds=3))
    started = time.monotonic()
    state = loop.advance(wf)
    elapsed = time.monotonic() - started
    assert state.status == Status.BUDGET_EXHAUSTED and state.terminal_reason == Reason.DEADLINE, state.trace
    assert "deadline passed during the baseline run" in (state.terminal_message or "")
    assert elapsed < 20, elapsed  # ended near the 3 s deadline, not at the engine's own 10-minute timeout
    d = loop.ws.workflow_dir(wf)
    child = int((d.runs / f"{wf}-baseline" / "child.pid").read_text())
    assert wait_gone(child), "the engine's child process survived the deadline"
