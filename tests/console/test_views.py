"""What the review page says about each candidate: pre-screened and not run, or run with parity."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.console.views import candidates
from gcv.store.catalog import Workspace
from gcv.workflow.activities import default_activities
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from tests.support.simutil import Clock
from tests.workflow.test_prescreen import REQUEST, _Engine


@pytest.mark.slow
def test_each_candidate_says_whether_it_cost_an_engine_run(tmp_path: Path) -> None:
    activities = default_activities()
    activities.runner = lambda name: _Engine("ok")
    loop = WorkflowLoop(Workspace(tmp_path), clock=Clock(), activities=activities)
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(REQUEST, baseline, Settings(engine="fake"), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="tester")
    state = loop.advance(wf)
    first, second = candidates(state)
    assert first["text"].startswith("pre-screened: failed run_status") and "not run in the engine" in first["text"]
    assert second["text"] == "engine run on fake (ok); parity ok (gameplay equals the reference pre-screen)"
