"""The replay provider (gcv.agents.replay_provider): a recorded workflow answers the same request
with the same decision and calls, and anything else is a mismatch that names what differs."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.agents.errors import ReplayMismatch
from gcv.agents.replay_provider import RecordingError, ReplayRequirementProvider, load_recording
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from tests.support.evalutil import base, variant
from tests.support.simutil import Clock

REQUEST = "make phase 2 bullets 20% slower"


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    loop = WorkflowLoop(Workspace(tmp_path), clock=Clock())
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(REQUEST, baseline, Settings(), baseline_source=source)
    loop.advance(wf)
    return loop.ws.workflow_dir(wf).root


def test_a_recorded_request_replays_its_decision_and_calls(recorded: Path) -> None:
    from gcv.agents.offline_requirement import OfflineRequirementProvider

    live = OfflineRequirementProvider().propose(REQUEST, base())
    rec = load_recording(recorded)
    assert rec.request == REQUEST and len(rec.requirement) == 1 and rec.reviews == {}
    decision, calls = ReplayRequirementProvider(recorded).propose(REQUEST, base())
    assert decision == live[0] and calls == live[1]


def test_anything_else_is_a_mismatch(recorded: Path) -> None:
    replay = ReplayRequirementProvider(recorded)
    with pytest.raises(ReplayMismatch, match="the request text differs from the recorded one"):
        replay.propose("make phase 3 denser", base())
    with pytest.raises(ReplayMismatch, match="the baseline differs from the recorded one"):
        replay.propose(REQUEST, variant(base(), "phase_1", bullet_speed=2.5))
    with pytest.raises(ReplayMismatch, match="the recording holds 1 requirement call"):
        replay.propose(REQUEST, base(), follow_ups=["an answer"])


def test_a_path_that_is_not_a_recording(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="does not exist"):
        load_recording(tmp_path / "missing")
    with pytest.raises(RecordingError, match="replay needs a path"):
        load_recording(" ")
    with pytest.raises(RecordingError, match="neither a workflow folder"):
        load_recording(tmp_path)
