"""Budgets and guardrails: each a named, pure rule with its own terminal reason.

The loop asks every rule before the step it guards; a rule that fires ends the loop with
its terminal reason (recorded in the state, the event log and the manifest). Rules never
read a clock or the network: the orchestrator passes ``now`` in.
"""

from __future__ import annotations

from dataclasses import dataclass

from gcv.contract.status import Reason, Status
from gcv.workflow.state import Budgets, Usage


@dataclass(frozen=True)
class Stop:
    """Why the loop ends here: a terminal reason (its status follows from it) and words."""

    rule: Reason
    message: str

    @property
    def status(self) -> Status:
        return self.rule.status


def engine_run_budget(usage: Usage, budgets: Budgets) -> Stop | None:
    if usage.candidate_runs >= budgets.max_candidate_runs:
        return Stop(Reason.ENGINE_RUN_BUDGET,
                    f"used {usage.candidate_runs} of {budgets.max_candidate_runs} candidate engine runs")
    return None


def prescreen_budget(usage: Usage, budgets: Budgets) -> Stop | None:
    if usage.prescreen_runs >= budgets.max_prescreen_runs:
        return Stop(Reason.PRESCREEN_BUDGET,
                    f"used {usage.prescreen_runs} of {budgets.max_prescreen_runs} reference pre-screens")
    return None


def model_call_budget(usage: Usage, budgets: Budgets) -> Stop | None:
    if usage.model_calls >= budgets.max_model_calls:
        return Stop(Reason.MODEL_CALL_BUDGET, f"used {usage.model_calls} of {budgets.max_model_calls} model calls")
    return None


def clarification_budget(usage: Usage, budgets: Budgets) -> Stop | None:
    """Calls that read the designer's answers have their own budget, apart from the review rounds'."""
    if usage.clarification_calls >= budgets.max_clarification_calls:
        return Stop(Reason.MODEL_CALL_BUDGET,
                    f"used {usage.clarification_calls} of {budgets.max_clarification_calls} clarification calls "
                    "(the requirement agent reading the designer's answers); start a new request that states "
                    "everything at once")
    return None


def token_budget(usage: Usage, budgets: Budgets, next_estimate: int = 0) -> Stop | None:
    total = usage.tokens + next_estimate
    if total > budgets.max_tokens:
        what = "would reach" if next_estimate else "reached"
        return Stop(Reason.TOKEN_BUDGET, f"cumulative tokens {what} {total} > budget {budgets.max_tokens}")
    return None


def deadline(now: float, deadline_at: float | None) -> Stop | None:
    if deadline_at is not None and now >= deadline_at:
        return Stop(Reason.DEADLINE, "the wall-clock deadline passed; ending on the best verified candidate so far")
    return None


def stagnation(scores: list[float], budgets: Budgets) -> Stop | None:
    """No improvement of the miss score for ``stagnation_rounds`` consecutive rounds."""
    n = budgets.stagnation_rounds
    if len(scores) <= n:
        return None
    best_before = min(scores[: len(scores) - n])
    if all(score >= best_before for score in scores[-n:]):
        return Stop(Reason.STAGNATION,
                    f"no improvement for {n} rounds (miss score {scores[-1]:g} vs best {best_before:g})")
    return None


def spin(history: list[tuple[str, str]], intent: str, fingerprint: str) -> Stop | None:
    """The same intent proposed on identical evidence twice."""
    if (intent, fingerprint) in history:
        return Stop(Reason.SPIN, f"{intent} proposed again on identical evidence; a repeat cannot change the result")
    return None


__all__ = ["Budgets", "Stop", "engine_run_budget", "prescreen_budget", "model_call_budget", "clarification_budget",
           "token_budget", "deadline", "stagnation",
           "spin"]
