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
