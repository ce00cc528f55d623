"""A way back (issue 31 item 3): a workflow that ended revise, blocked or budget exhausted is
edited and resubmitted as a new workflow linked to it; a budget-exhausted one runs again with a
larger budget. Every other status, an empty request, a second resubmission and a budget that is
not larger are refused with a typed refusal."""

from __future__ import annotations

import pytest

from gcv.contract.status import Status
from gcv.service import workflows
from gcv.service.errors import Conflict, InvalidInput, NotFound, WrongState
from gcv.service.results import Rerun, Resubmitted
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Budgets
from gcv.workflow.summary import catalog_row
from tests.service.conftest import REQUEST, VAGUE

BLOCKED = "200 bullets every 0.02 s"  # refused by the rules layer at once
FAILING = "make phase 1 an aimed fan with 9 bullets every 300 ms"  # passes only after a repair
PASSES = "make phase 3 much denser"


def _exhausted(loop: WorkflowLoop) -> str:
    wf = workflows.submit(loop, workflows.Submission(request=FAILING, budgets=Budgets(max_candidate_runs=1),
                                                     seed=7, actor="dana")).wf_id
    workflows.authorize(loop, wf, actor="omar", repair_scope="fight")
    assert workflows.resume(loop, wf).status == Status.BUDGET_EXHAUSTED
    return wf


def _revised(loop: WorkflowLoop) -> str:
    wf = workflows.submit(loop, workflows.Submission(request=PASSES)).wf_id
    workflows.authorize(loop, wf, actor="omar")
    assert workflows.resume(loop, wf).status == Status.EVIDENCE_READY
    workflows.decide(loop, wf, decision="revise", actor="rita", note="denser, but only in the second half")
    return wf


def test_a_blocked_workflow_is_resubmitted_as_a_new_linked_workflow(loop: WorkflowLoop) -> None:
    old = workflows.submit(loop, workflows.Submission(request=BLOCKED, seed=5, actor="dana"))
    assert old.status == Status.BLOCKED
    new = workflows.resubmit(loop, old.wf_id, "make phase 1 a ring of 12 bullets every 400 ms", actor="dana")
    assert isinstance(new, Resubmitted) and new.wf_id != old.wf_id
    assert new.state.resubmitted_from == old.wf_id and new.state.submitted_by == "dana"
    assert new.state.request == "make phase 1 a ring of 12 bullets every 400 ms"
    assert new.state.settings.seed == 5 and new.state.baseline_hash == old.state.baseline_hash
    assert new.state.baseline_source == old.state.baseline_source
    # the old one is superseded, found through the catalog; its own records are untouched
    assert workflows.resubmissions(loop, old.wf_id) == [new.wf_id]
    assert workflows.load(loop, old.wf_id) == old.state
    row = next(r for r in loop.ws.list_workflows(5) if r["id"] == new.wf_id)
    assert row["resubmitted_from"] == old.wf_id and row["actor"] == "dana"
    # the created event records the link (verify and replay read it from there)
    created = loop.ws.workflow_dir(new.wf_id).events()[0]
    assert created["data"]["resubmitted_from"] == old.wf_id and created["data"]["actor"] == "dana"
    assert catalog_row(new.state)["resubmitted_from"] == old.wf_id


def test_a_revised_workflow_is_resubmitted(loop: WorkflowLoop) -> None:
    old = _revised(loop)
    assert workflows.load(loop, old).status == Status.REVISION_REQUESTED
    new = workflows.resubmit(loop, old, PASSES + " in the second half", actor="dana")
    assert new.state.resubmitted_from == old and new.old is not None
    assert new.old.human_decision is not None and new.old.human_decision.note.startswith("denser")


@pytest.mark.parametrize("request_text", [REQUEST, VAGUE])
def test_a_workflow_in_another_status_is_not_resubmitted(loop: WorkflowLoop, request_text: str) -> None:
    wf = workflows.submit(loop, workflows.Submission(request=request_text)).wf_id  # awaiting authorization / an answer
    with pytest.raises(WrongState) as caught:
        workflows.resubmit(loop, wf, "anything")
    assert caught.value.kind == "wrong_state"
    assert loop.ws.count_workflows() == 1


def test_an_accepted_workflow_is_not_resubmitted(loop: WorkflowLoop) -> None:
    wf = workflows.submit(loop, workflows.Submission(request=PASSES)).wf_id
    workflows.authorize(loop, wf, actor="omar")
    workflows.resume(loop, wf)
    workflows.decide(loop, wf, decision="accept", actor="rita", note="good")
    with pytest.raises(WrongState):
        workflows.resubmit(loop, wf, PASSES)


def test_resubmit_refuses_an_empty_request_an_unknown_workflow_and_a_second_resubmission(loop: WorkflowLoop) -> None:
    old = workflows.submit(loop, workflows.Submission(request=BLOCKED)).wf_id
    with pytest.raises(InvalidInput) as empty:
        workflows.resubmit(loop, old, "   ")
    assert empty.value.field == "request" and loop.ws.count_workflows() == 1
    with pytest.raises(NotFound):
        workflows.resubmit(loop, "wf-nobody", "make phase 1 slower")
    first = workflows.resubmit(loop, old, "make phase 1 bullets 20% slower").wf_id
    with pytest.raises(Conflict) as again:
        workflows.resubmit(loop, old, "make phase 1 bullets 30% slower")
    assert again.value.kind == "conflict" and first in again.value.message
    assert loop.ws.count_workflows() == 2


def test_a_budget_exhausted_workflow_runs_again_with_a_larger_budget(loop: WorkflowLoop) -> None:
    old = _exhausted(loop)
    rerun = workflows.rerun_with_larger_budget(loop, old, actor="omar",
                                               overrides=workflows.BudgetOverrides(max_candidate_runs=3))
    assert isinstance(rerun, Rerun) and rerun.wf_id != old
    state = rerun.state
    assert state.resubmitted_from == old and state.request == FAILING and state.settings.seed == 7
    assert state.authorization is not None and state.authorization.actor == "omar"
    assert state.authorization.budgets.max_candidate_runs == 3 and state.authorization.scope.candidate_runs == 3
    assert state.settings.budgets.max_candidate_runs == 3
    assert state.usage.candidate_runs > 1  # it used the larger budget
    # the old run's repair scope (the whole fight) goes with it
    old_scope = workflows.load(loop, old).authorization.repair_scope  # type: ignore[union-attr]
    assert state.authorization.repair_scope == old_scope
    assert workflows.resubmissions(loop, old) == [rerun.wf_id]


@pytest.mark.parametrize("overrides, field", [
    (workflows.BudgetOverrides(), "budgets"),
    (workflows.BudgetOverrides(max_candidate_runs=1), "budgets"),  # the same, not larger
    (workflows.BudgetOverrides(max_candidate_runs=3, max_model_calls=1), "max_model_calls"),  # one smaller
    (workflows.BudgetOverrides(max_candidate_runs=51), "max_candidate_runs"),  # out of range
])
def test_a_budget_that_is_not_larger_is_refused(loop: WorkflowLoop, overrides: workflows.BudgetOverrides,
                                                field: str) -> None:
    old = _exhausted(loop)
    with pytest.raises(InvalidInput) as caught:
        workflows.rerun_with_larger_budget(loop, old, actor="omar", overrides=overrides)
    assert caught.value.field == field
    assert loop.ws.count_workflows() == 1


def test_only_a_budget_exhausted_workflow_runs_again_with_a_larger_budget(loop: WorkflowLoop) -> None:
    blocked = workflows.submit(loop, workflows.Submission(request=BLOCKED)).wf_id
    with pytest.raises(WrongState):
        workflows.rerun_with_larger_budget(loop, blocked, actor="omar",
                                           overrides=workflows.BudgetOverrides(max_candidate_runs=5))
    with pytest.raises(InvalidInput) as caught:
        workflows.rerun_with_larger_budget(loop, blocked, actor=" ",
                                           overrides=workflows.BudgetOverrides(max_candidate_runs=5))
    assert caught.value.field == "actor"


def test_what_each_role_is_waited_for_by() -> None:
    assert workflows.needed_by(["designer"]) == ("needs_clarification", "awaiting_choice")
    assert workflows.needed_by(["operator"]) == ("awaiting_authorization",)
    assert workflows.needed_by(["reviewer"]) == ("evidence_ready",)
    assert len(workflows.needed_by(["designer", "operator", "reviewer"])) == 4
    with pytest.raises(InvalidInput):
        workflows.needed_by(["boss"])
