"""Budgets and guardrails: each a named, pure rule with its own terminal reason.

The loop asks every rule before the step it guards; a rule that fires ends the loop with
its terminal reason (recorded in the state, the event log and the manifest). Rules never
read a clock or the network: the orchestrator passes ``now`` in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Budgets(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_candidate_runs: int = Field(default=3, ge=1, le=50, description="candidate engine runs")
    max_model_calls: int = Field(default=4, ge=1, le=100, description="agent calls, retries included")
    max_tokens: int = Field(default=200_000, ge=0, le=50_000_000, description="cumulative provider tokens")
    deadline_seconds: float = Field(default=600.0, gt=0, le=86_400, description="wall clock from authorization")
    stagnation_rounds: int = Field(default=2, ge=1, le=20, description="rounds without improvement")
    max_agent_retries: int = Field(default=1, ge=0, le=5, description="retries of malformed agent output")


@dataclass(frozen=True)
class Stop:
    rule: str  # the terminal reason
    status: str  # the workflow status it leads to
    message: str


def engine_run_budget(usage: dict[str, Any], budgets: Budgets) -> Stop | None:
    if usage["candidate_runs"] >= budgets.max_candidate_runs:
        return Stop("engine_run_budget", "budget_exhausted",
                    f"used {usage['candidate_runs']} of {budgets.max_candidate_runs} candidate engine runs")
    return None


def model_call_budget(usage: dict[str, Any], budgets: Budgets) -> Stop | None:
    if usage["model_calls"] >= budgets.max_model_calls:
        return Stop("model_call_budget", "budget_exhausted",
                    f"used {usage['model_calls']} of {budgets.max_model_calls} model calls")
    return None


def token_budget(usage: dict[str, Any], budgets: Budgets, next_estimate: int = 0) -> Stop | None:
    total = usage["tokens"] + next_estimate
    if total > budgets.max_tokens:
        what = "would reach" if next_estimate else "reached"
        return Stop("token_budget", "budget_exhausted",
                    f"cumulative tokens {what} {total} > budget {budgets.max_tokens}")
    return None


def deadline(now: float, deadline_at: float | None) -> Stop | None:
    if deadline_at is not None and now >= deadline_at:
        return Stop("deadline", "budget_exhausted",
                    "the wall-clock deadline passed; ending on the best verified candidate so far")
    return None


def stagnation(scores: list[float], budgets: Budgets) -> Stop | None:
    """No improvement of the miss score for ``stagnation_rounds`` consecutive rounds."""
    n = budgets.stagnation_rounds
    if len(scores) <= n:
        return None
    best_before = min(scores[: len(scores) - n])
    if all(score >= best_before for score in scores[-n:]):
        return Stop("stagnation", "blocked",
                    f"no improvement for {n} rounds (miss score {scores[-1]:g} vs best {best_before:g})")
    return None


def spin(history: list[tuple[str, str]], intent: str, fingerprint: str) -> Stop | None:
    """The same intent proposed on identical evidence twice."""
    if (intent, fingerprint) in history:
        return Stop("spin", "blocked",
                    f"{intent} proposed again on identical evidence; a repeat cannot change the result")
    return None
