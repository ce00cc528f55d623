"""The Quality Review Agent: evidence in, one verdict out (accept / repair with one intent / human).

The agent sees a ``ReviewEvidence`` and answers with a ``ReviewVerdict`` that names an intent,
never a number; the policy gate (``gcv.repair.policy.gate``) then decides what actually
happens. Providers sit behind the narrow ``ReviewProvider`` interface of ``gcv.agents.base``
and receive the evidence as plain JSON data, exactly what a model would be shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from gcv.agents.base import AgentCall, ReviewProvider, ReviewVerdict
from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.models import Evaluation
from gcv.repair.models import AllowedIntents
from gcv.validation.diff import FieldChange, diff_configs


class RepairHistoryEntry(BaseModel):
    """One past round: its evaluation's ``miss_score``/``passed``, and the repair chosen on it.

    ``intent``/``phase_id`` are the repair applied to round ``round``'s candidate (None when
    that round ended without a repair). Whether the repair helped is read from the next
    round's ``miss_score`` (the next record, or the evidence's current evaluation).
    """

    model_config = ConfigDict(extra="forbid")

    round: int = Field(ge=0)
    intent: str | None = None
    phase_id: str | None = None
    miss_score: float = Field(ge=0)
    passed: bool = False


class ReviewEvidence(BaseModel):
    """What the reviewer is shown: the request, the change, the verdict of the checks, the history."""

    model_config = ConfigDict(extra="forbid")

    request_text: str = ""
    goal: Goal | None = None
    diff: list[FieldChange] = Field(default_factory=list, description="baseline -> candidate")
    evaluation: Evaluation
    baseline_phase_results: list[dict[str, Any]] = Field(default_factory=list)
    candidate_phase_results: list[dict[str, Any]] = Field(default_factory=list)
    repair_history: list[RepairHistoryEntry] = Field(default_factory=list)
    allowed_intents: list[str] = Field(default_factory=list)
    allowed_phases: dict[str, list[str]] = Field(
        default_factory=dict, description="for each allowed repair intent, the phases it may act on")
    round: int = Field(default=1, ge=0)

    @classmethod
    def build(cls, *, request_text: str, goal: Goal | None, baseline: BulletHellConfig,
              candidate: BulletHellConfig, evaluation: Evaluation, baseline_telemetry: dict[str, Any],
              candidate_telemetry: dict[str, Any], allowed: AllowedIntents,
              repair_history: Iterable[RepairHistoryEntry | dict[str, Any]] = (), round: int = 1) -> ReviewEvidence:
        return cls(
            request_text=request_text, goal=goal, diff=diff_configs(baseline, candidate),
            evaluation=evaluation,
            baseline_phase_results=list(baseline_telemetry.get("phase_results") or []),
            candidate_phase_results=list(candidate_telemetry.get("phase_results") or []),
            repair_history=[RepairHistoryEntry.model_validate(r) if isinstance(r, dict) else r
                            for r in repair_history],
            allowed_intents=list(allowed.intents), allowed_phases=dict(allowed.phases), round=round)


class ReviewAgent:
    """A thin wrapper: hand the evidence to the provider as JSON data, return its verdict."""

    def __init__(self, provider: ReviewProvider) -> None:
        self.provider = provider

    def review(self, evidence: ReviewEvidence) -> tuple[ReviewVerdict, list[AgentCall]]:
        return self.provider.review(evidence.model_dump(mode="json"), list(evidence.allowed_intents))


def _offline() -> ReviewProvider:
    from gcv.agents.offline_review import OfflineReviewProvider  # avoids an import cycle

    return OfflineReviewProvider()


def _anthropic() -> ReviewProvider:
    from gcv.agents.anthropic_provider import AnthropicReviewProvider

    return AnthropicReviewProvider()


def _replay(arg: str) -> ReviewProvider:
    from gcv.agents.replay_provider import ReplayReviewProvider

    return ReplayReviewProvider(arg)


_PROVIDERS: dict[str, Callable[[], ReviewProvider]] = {"offline": _offline, "anthropic": _anthropic}
# Providers that take an argument after a colon ("replay:PATH"); the factory gets the text after it.
_PREFIX_PROVIDERS: dict[str, Callable[[str], ReviewProvider]] = {"replay": _replay}


def register_review_provider(name: str, factory: Callable[[], ReviewProvider]) -> None:
    _PROVIDERS[name] = factory


def review_provider_names() -> list[str]:
    return sorted([*_PROVIDERS, *_PREFIX_PROVIDERS])


def get_review_provider(name: str) -> ReviewProvider:
    kind, sep, arg = name.partition(":")
    if sep and kind in _PREFIX_PROVIDERS:
        return _PREFIX_PROVIDERS[kind](arg)
    try:
        factory = _PROVIDERS[name]
    except KeyError:
        names = sorted(review_provider_names(), key=lambda n: (n != "offline", n))  # the default first
        raise ValueError(f"unknown review provider {name!r}; available: {', '.join(names)}") from None
    return factory()
