"""What the Quality Review Agent is shown: the evidence of one round, as plain data.

The same ``ReviewEvidence`` goes to every provider (offline rules, Claude, a replay), so a
recorded answer can be checked against exactly the question it answered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.models import Evaluation
from gcv.repair.models import AllowedIntents
from gcv.validation.diff import FieldChange, diff_configs


class RepairHistoryEntry(GcvModel):
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


class ReviewEvidence(GcvModel):
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


__all__ = ["ReviewEvidence", "RepairHistoryEntry"]
