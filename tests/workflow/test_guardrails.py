"""Each guardrail is a named rule with its own terminal reason."""

from __future__ import annotations

from gcv.workflow import guardrails as g
from gcv.workflow.state import Usage

B = g.Budgets()


def usage(runs: int = 0, calls: int = 0, tokens: int = 0) -> Usage:
    return Usage(candidate_runs=runs, model_calls=calls, tokens=tokens, baseline_runs=1)


def test_defaults_match_the_issue() -> None:
    assert (B.max_candidate_runs, B.max_model_calls, B.stagnation_rounds, B.max_agent_retries) == (3, 4, 2, 1)


def test_engine_run_budget() -> None:
    assert g.engine_run_budget(usage(runs=2), B) is None
    stop = g.engine_run_budget(usage(runs=3), B)
    assert stop and stop.rule == "engine_run_budget" and stop.status == "budget_exhausted"


def test_model_call_budget() -> None:
    assert g.model_call_budget(usage(calls=3), B) is None
    stop = g.model_call_budget(usage(calls=4), B)
    assert stop and stop.rule == "model_call_budget"


def test_token_budget_before_and_after_a_call() -> None:
    budgets = g.Budgets(max_tokens=1000)
    assert g.token_budget(usage(tokens=900), budgets) is None
    before = g.token_budget(usage(tokens=900), budgets, next_estimate=200)
    assert before and before.rule == "token_budget" and "would reach 1100" in before.message
    after = g.token_budget(usage(tokens=1001), budgets)
    assert after and "reached 1001" in after.message


def test_deadline() -> None:
    assert g.deadline(99.0, 100.0) is None
    stop = g.deadline(100.0, 100.0)
    assert stop and stop.rule == "deadline" and "best verified candidate" in stop.message
    assert g.deadline(1e12, None) is None


def test_stagnation_needs_two_rounds_without_improvement() -> None:
    assert g.stagnation([3.0, 2.0], B) is None
    assert g.stagnation([3.0, 2.0, 1.0], B) is None
    stop = g.stagnation([3.0, 3.0, 3.5], B)
    assert stop and stop.rule == "stagnation" and stop.status == "blocked"
    assert g.stagnation([3.0, 3.0, 2.9], B) is None


def test_spin_same_intent_same_evidence() -> None:
    history = [("REDUCE_BULLETS_PER_WAVE", "abc")]
    assert g.spin(history, "REDUCE_BULLETS_PER_WAVE", "def") is None
    assert g.spin(history, "INCREASE_WAVE_INTERVAL", "abc") is None
    stop = g.spin(history, "REDUCE_BULLETS_PER_WAVE", "abc")
    assert stop and stop.rule == "spin"
