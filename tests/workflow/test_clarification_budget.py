"""Answers have their own small budget (issue 27): a clarified request keeps every model call a
request asked directly has, and the question loop ends (with a run, or a clear stop)."""

from __future__ import annotations

from pathlib import Path

from gcv.store.catalog import Workspace
from gcv.workflow import guardrails as g
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Budgets, Settings, Usage
from tests.support.simutil import Clock


def _loop(root: Path, request: str, budgets: Budgets) -> tuple[WorkflowLoop, str]:
    engine = WorkflowLoop(Workspace(root), clock=Clock(0.5))
    baseline, source = active_baseline(engine.ws, 0.0)
    return engine, engine.create(request, baseline, Settings(budgets=budgets), baseline_source=source)


def test_the_clarification_budget_is_its_own_rule() -> None:
    budgets = Budgets(max_model_calls=4, max_clarification_calls=2)
    assert g.clarification_budget(Usage(model_calls=4, clarification_calls=1), budgets) is None
    stop = g.clarification_budget(Usage(clarification_calls=2), budgets)
    assert stop and "clarification" in stop.message and stop.status == "budget_exhausted"


def test_answers_do_not_spend_the_model_calls_the_review_rounds_need(tmp_path: Path) -> None:
    """One model call in all: asked directly or after two answers, the request reaches authorization
    with the same model calls spent (before, each answer was charged to max_model_calls)."""
    budgets = Budgets(max_model_calls=1)
    direct, wf = _loop(tmp_path / "a", "make phase 2 denser", budgets)
    asked_directly = direct.advance(wf)
    assert asked_directly.status == "awaiting_authorization"

    engine, wf = _loop(tmp_path / "b", "make it denser", budgets)
    assert engine.advance(wf).status == "needs_clarification"
    engine.answer(wf, text="hmm", actor="dana")
    assert engine.advance(wf).status == "needs_clarification"
    engine.answer(wf, text="phase 2", actor="dana")
    state = engine.advance(wf)
    assert state.status == "awaiting_authorization", (state.terminal_reason, state.terminal_message)
    assert state.usage.model_calls == asked_directly.usage.model_calls == 1
    assert state.usage.clarification_calls == 2


def test_the_loop_of_issue_27_ends_with_a_candidate_after_one_answer_at_most(tmp_path: Path) -> None:
    engine, wf = _loop(tmp_path, "make phase 3 denser and keep player hits at 2 or fewer", Budgets())
    state = engine.advance(wf)
    assert state.status == "awaiting_authorization", state.requirement


def test_answers_past_the_clarification_budget_end_the_workflow_with_the_reason(tmp_path: Path) -> None:
    engine, wf = _loop(tmp_path, "make it denser", Budgets(max_clarification_calls=1))
    engine.advance(wf)
    engine.answer(wf, text="hmm", actor="dana")
    assert engine.advance(wf).status == "needs_clarification"
    engine.answer(wf, text="hmm again", actor="dana")
    state = engine.advance(wf)
    assert state.status == "budget_exhausted" and "clarification calls" in (state.terminal_message or "")
    asked = [q for q in (state.requirement.questions if state.requirement else [])]
    assert asked  # the last questions stay readable
