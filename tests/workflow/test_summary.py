"""The machine summary of a workflow (gcv.workflow.summary): one object for `gcv status --json`,
`gcv run --json` and the console; the change with each edit's origin; the catalog row."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from gcv.workflow.summary import catalog_row, change_with_origins, second_reading_summary, summary_object
from tests.support.simutil import Clock

REQUEST = "make phase 1 bullets 20% slower"


def _awaiting(root: Path) -> tuple[WorkflowLoop, str]:
    loop = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(REQUEST, baseline, Settings(), baseline_source=source)
    loop.advance(wf)
    return loop, wf


def test_the_summary_of_a_request_awaiting_authorization(tmp_path: Path) -> None:
    loop, wf = _awaiting(tmp_path)
    d, state = loop.load(wf)
    out = summary_object(d, state)
    assert (out["workflow_id"], out["status"], out["decision"], out["terminal_reason"]) == (
        wf, "awaiting_authorization", "accepted", None)
    assert (out["runs_used"], out["model_calls_used"], out["evaluation"], out["final_candidate"]) == (0, 1, None, None)
    assert out["headline"] == "Awaiting authorization" and out["unrequested"] == []
    assert out["baseline_source"] == "registry v1" and out["provider"] == "offline"
    assert out["change"] == [{"path": "$.phases[0].pattern.bullet_speed", "before": 3, "after": 2.4,
                              "kind": "changed", "percent": -20.0, "origin": "requested", "requested": True,
                              "requested_value": 2.4}]
    assert out["change"] == change_with_origins(d, state)
    assert second_reading_summary(state) is None and out["second_reading"] is None


def test_the_catalog_row_is_read_from_the_state(tmp_path: Path) -> None:
    loop, wf = _awaiting(tmp_path)
    _, state = loop.load(wf)
    row = catalog_row(state)
    assert row == {"id": wf, "created_at": state.created_at, "updated_at": state.created_at,
                   "status": "awaiting_authorization", "request": REQUEST, "engine": "python-sim",
                   "provider": "offline", "baseline_hash": state.baseline_hash, "actor": None, "engines_used": "",
                   "terminal_reason": None, "resubmitted_from": None, "decision": None, "decided_by": None}
    state = loop.authorize(wf, actor="ann")
    assert catalog_row(state)["actor"] == "ann" and catalog_row(state)["updated_at"] == state.authorization.at


@pytest.mark.slow
def test_the_summary_of_evidence_ready_says_it_is_the_requested_change(tmp_path: Path) -> None:
    loop, wf = _awaiting(tmp_path)
    loop.authorize(wf, actor="ann")
    state = loop.advance(wf)
    out = summary_object(loop.ws.workflow_dir(wf), state)
    assert out["status"] == "evidence_ready" and out["headline"] == "evidence ready: the requested change"
    assert out["intent_checks_hold"] and out["evaluation"]["passed"]
    assert all("label" in c for c in out["evaluation"]["checks"])
    assert out["final_candidate_hash"] == state.final_candidate_hash and out["runs_used"] == 2
    assert out["decisions"] and "accept" in out["decisions"]
