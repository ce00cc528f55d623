"""The workflow loop (gcv.workflow.loop): a request goes proposed -> awaiting_authorization with
the offline provider and python-sim, nothing runs before a person authorizes, and each step is
one event in the hash-chained history. The whole paths live in tests/workflow/test_paths.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.contract.status import Status
from gcv.store.catalog import Workspace
from gcv.store.logs import verify_chain
from gcv.workflow.baselines import active_baseline
from gcv.contract.activity_keys import requirement_key
from gcv.workflow.loop import IllegalTransition, WorkflowError, WorkflowLoop, failed_summary, new_workflow_id
from gcv.workflow.state import Settings
from tests.support.evalutil import evaluation, over_budget
from tests.support.simutil import Clock

REQUEST = "make phase 1 bullets 20% slower"


def _proposed(root: Path) -> tuple[WorkflowLoop, str]:
    loop = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(loop.ws, 0.0)
    return loop, loop.create(REQUEST, baseline, Settings(), baseline_source=source)


def _types(loop: WorkflowLoop, wf: str) -> list[tuple[str, str | None]]:
    return [(e["type"], e.get("to")) for e in loop.ws.workflow_dir(wf).events()]


def test_new_workflow_ids_name_the_time_and_differ_by_request() -> None:
    wf = new_workflow_id("x", 1_800_000_000.0)
    assert wf.startswith("wf-20270115-080000-") and len(wf) == len("wf-20270115-080000-") + 6
    assert new_workflow_id("x", 1_800_000_000.0) == wf
    assert new_workflow_id("y", 1_800_000_000.0) != wf


def test_requirement_activity_keys() -> None:
    assert [requirement_key(n) for n in (1, 2, 3)] == ["requirement", "requirement:2", "requirement:3"]


def test_failed_summary_names_each_failed_check_or_says_all_pass() -> None:
    assert failed_summary(evaluation(over_budget(peak=420))) == "peak_alive_bullets 420>350 FAIL"
    from tests.support.evalutil import base_telemetry

    assert failed_summary(evaluation(base_telemetry())) == "all checks PASS"


def test_create_records_the_request_and_refuses_the_same_id_twice(tmp_path: Path) -> None:
    loop, wf = _proposed(tmp_path)
    _, state = loop.load(wf)
    assert state.status == Status.PROPOSED and state.request == REQUEST
    assert state.settings.provider == "offline" and state.settings.engine == "python-sim"
    assert _types(loop, wf) == [("created", "proposed")]
    assert [r["status"] for r in loop.ws.list_workflows()] == ["proposed"]
    baseline, source = active_baseline(loop.ws, 0.0)
    with pytest.raises(WorkflowError, match="already exists"):
        loop.create(REQUEST, baseline, Settings(), baseline_source=source, wf_id=wf)


def test_advance_reads_the_request_and_stops_for_authorization(tmp_path: Path) -> None:
    loop, wf = _proposed(tmp_path)
    state = loop.advance(wf)
    assert state.status == Status.AWAITING_AUTHORIZATION
    assert state.requirement is not None and state.requirement.decision == "accepted"
    assert state.goal_hash and len(state.rounds) == 1 and state.rounds[0].origin == "requirement"
    d = loop.ws.workflow_dir(wf)
    assert state.rounds[0].candidate_hash != state.baseline_hash  # the request changed the fight
    assert d.get(state.rounds[0].candidate_hash)["phases"][0]["pattern"]["bullet_speed"] == pytest.approx(
        d.get(state.baseline_hash)["phases"][0]["pattern"]["bullet_speed"] * 0.8, abs=1e-3)
    assert state.usage.engine_runs == 0 and state.authorization is None  # nothing ran
    assert [t for t in _types(loop, wf) if t[0] in ("created", "transition")] == [
        ("created", "proposed"), ("transition", "awaiting_authorization")]
    assert verify_chain(list(d.events())) is None
    assert loop.ws.list_workflows()[0]["status"] == "awaiting_authorization"
    # a workflow waiting for a person does not move on its own
    seq = state.event_seq
    assert loop.advance(wf).event_seq == seq


def test_authorize_needs_an_actor_and_the_right_state(tmp_path: Path) -> None:
    loop, wf = _proposed(tmp_path)
    with pytest.raises(IllegalTransition):
        loop.authorize(wf, actor="tester")  # still proposed
    loop.advance(wf)
    with pytest.raises(WorkflowError, match="actor"):
        loop.authorize(wf, actor="  ")
    state = loop.authorize(wf, actor="tester")
    assert state.status == Status.AUTHORIZED and state.authorization is not None
    assert state.authorization.actor == "tester" and state.authorization.scope.candidate_runs == 3
    assert state.deadline_at == state.authorization.at + state.settings.budgets.deadline_seconds
    with pytest.raises(WorkflowError, match="unknown decision"):
        loop.decide(wf, decision="maybe", actor="tester", note="")


@pytest.mark.slow
def test_an_authorized_request_runs_to_evidence_ready(tmp_path: Path) -> None:
    loop, wf = _proposed(tmp_path)
    loop.advance(wf)
    loop.authorize(wf, actor="tester")
    state = loop.advance(wf)
    assert state.status == Status.EVIDENCE_READY and state.terminal_reason == "accepted_by_review"
    assert state.usage.engine_runs == 2 and state.final_candidate_hash == state.rounds[-1].candidate_hash
    state = loop.decide(wf, decision="accept", actor="tester", note="ok")
    assert state.status == Status.ACCEPTED and state.human_decision is not None
    with pytest.raises(WorkflowError, match="already decided"):
        loop.decide(wf, decision="accept", actor="tester", note="again")
