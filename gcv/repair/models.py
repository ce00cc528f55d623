"""The policy's answer, the gate's decision and a calculator's result, as records.

Each carries its reason in words, because the evidence bundle shows a reviewer why an agent's
choice was carried out, changed or refused.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.intents import Intent
from gcv.contract.models import BulletHellConfig
from gcv.validation.diff import FieldChange

GateOutcome = Literal["accept", "repair", "human_review", "stop"]


class ReviewVerdict(GcvModel):
    """The Quality Review Agent's answer, as the policy gate reads it. It names an intent, never
    a number (the agents produce it; it lives here because the gate is what consumes it)."""

    model_config = ConfigDict(extra="forbid")

    verdict: Literal["accept", "repair", "human_review"]
    intent: Intent | None = None
    target_phase_id: str | None = None
    reason: str = ""
    evidence_refs: list[str] = Field(default_factory=list)


class _Frozen(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AllowedIntents(_Frozen):
    """What the evidence allows this round. Every repair intent is either allowed or refused."""

    intents: list[str] = Field(description="allowed intents: repair intents first, then REQUEST_HUMAN, STOP")
    reasons: dict[str, str] = Field(default_factory=dict, description="why each intent is allowed")
    can_accept: bool = Field(description="true only when every hard and intent check passes")
    refused: dict[str, str] = Field(default_factory=dict, description="why each other repair intent is refused")
    phases: dict[str, list[str]] = Field(
        default_factory=dict,
        description="for each allowed repair intent, the failed phases it may act on (first = default)")


class GateResult(_Frozen):
    outcome: GateOutcome
    intent: str | None = None
    phase_id: str | None = None
    accepted_as_proposed: bool
    reason: str


class RepairOutcome(_Frozen):
    """A calculator's result: the repaired candidate and exactly what changed, or why not."""

    ok: bool
    intent: str
    phase_id: str | None = None
    candidate: BulletHellConfig | None = Field(default=None, description="the repaired config (None when not ok)")
    changes: list[FieldChange] = Field(default_factory=list)
    explanation: str = ""
    error: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict, description="the figures the formula used")


class RepairScope(GcvModel):
    """What a repair may move without asking: ``(phase, field)`` pairs. By default the phases
    and the fields the request itself names (``gcv.repair.scope.default_scope``); since the
    calculators never move a field the goal edits, the default leaves a repair no room, so a
    candidate that misses a target goes to the designer as trade-offs (issue 26) instead of
    being changed where nobody asked. A chosen trade-off that moves more widens the scope,
    recorded with who chose it."""

    model_config = ConfigDict(extra="forbid")

    phases: list[str] = Field(default_factory=list, description="the phases the request names")
    fields: list[str] = Field(default_factory=list, description="the pattern fields the request names")
    widened: list[dict[str, Any]] = Field(
        default_factory=list, description="widenings by a person's choice: actor, at, option, phase_id, field")

    def allows(self, phase_id: str | None, field: str | None) -> bool:
        if phase_id is None or field is None:
            return False
        if phase_id in self.phases and field in self.fields:
            return True
        return any(w.get("phase_id") == phase_id and w.get("field") == field for w in self.widened)


class TradeOff(GcvModel):
    """One option offered to the designer when no repair inside the scope passes: a complete
    candidate, and the figures the reference simulator computed for it (the cores are
    bit-exact, so an engine run of it measures the same gameplay figures)."""

    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1)
    kind: Literal["repair", "smaller_change", "raise_target"]
    title: str
    intent: str | None = None
    phase_id: str | None = None
    widens: list[dict[str, str]] = Field(default_factory=list,
                                         description="(phase_id, field) pairs outside the scope it moves")
    changes: list[FieldChange] = Field(default_factory=list, description="what it changes against the candidate")
    candidate_hash: str
    telemetry_hash: str
    evaluation_hash: str
    passes: bool = Field(description="every hard and intent check passes in the reference simulator")
    predicted: dict[str, Any] = Field(default_factory=dict, description="the judged figures, as simulated")
    targets: dict[str, int | float] = Field(
        default_factory=dict, exclude_if=lambda v: not v,
        description="raise_target: the targets it raises (max_player_hits, max_alive_bullets, min_low_fps), which "
                    "become the designer's stated constraints once chosen")


class Choice(GcvModel):
    """The designer's pick among the offered trade-offs."""

    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1)
    actor: str
    at: float
    widened: bool = Field(description="the option moves something outside the authorized scope")


class SearchRung(GcvModel):
    """One rung tried: its ratio, the value it gives, and what the reference made of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ratio: str
    value: float | int | None = None
    outcome: str = Field(description="passes | fails | refused | invalid | same_as_earlier")
    failed_checks: list[str] = Field(default_factory=list)
    miss_score: float | None = None
