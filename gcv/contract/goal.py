"""The structured goal: what a designer's request asks for, before any number is applied.

A Requirement Agent (offline parser or a model) produces this; a deterministic applier
turns it into a candidate config. Edits name a pattern field, never a free-form path.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Final, Literal

from pydantic import Field

from gcv.contract.models import PatternType, Strict
from gcv.contract.types import DEC_CHECK, INT_COERCE, dec_field, int_field

GOAL_ID: Final = "gcv.goal/1"

EditableField = Literal[
    "bullets_per_wave",
    "wave_interval_ms",
    "bullet_speed",
    "bullet_lifetime_seconds",
    "rotation_per_wave_deg",
    "spread_angle_deg",
    "layer_count",
]
EDITABLE_FIELDS: tuple[str, ...] = (
    "bullets_per_wave", "wave_interval_ms", "bullet_speed", "bullet_lifetime_seconds",
    "rotation_per_wave_deg", "spread_angle_deg", "layer_count",
)


# the fields that set a phase's density (an explicit edit of either gives "denser" its size)
DENSITY_FIELDS: tuple[str, ...] = ("bullets_per_wave", "wave_interval_ms")

# A qualitative pressure change ("denser", "less dense", no number) keeps at least this share of
# the baseline phase's spawn rate in every candidate, repairs included: +10% for "increase",
# -10% for "decrease" (docs/repair.md). The calculator's default step is about +47% / -30%.
QUALITATIVE_MIN_SHARE = Fraction(1, 10)


class ParameterEdit(Strict):
    """One explicit edit. ``scale`` multiplies (0.8 = 20% less), ``add`` adds, ``set`` sets."""

    field: EditableField
    operation: Literal["set", "scale", "add"]
    value: Annotated[float, dec_field(ge=-100000, le=100000), DEC_CHECK]
    # true for a word without a number ("faster", "more bullets": the reader's default step);
    # left out of the goal's JSON unless true, so goals written before it keep their hash
    qualitative: bool | None = Field(
        default=None, exclude_if=lambda v: not v,
        description="true when the request gave no number for this edit (a word such as 'faster': the "
                    "default step); leave out or false when a number was named")


class DesignerConstraints(Strict):
    """Limits the designer stated in the request; they tighten (or, explicitly, set) targets."""

    max_alive_bullets: Annotated[int, INT_COERCE, int_field(ge=1, le=100000)] | None = None
    min_low_fps: Annotated[float, dec_field(ge=0, le=1000), DEC_CHECK] | None = None
    max_player_hits: Annotated[int, INT_COERCE, int_field(ge=0, le=1000)] | None = None
    # "keep it dodgeable": left out of the goal's JSON unless stated, so goals keep their hash
    require_dodgeable: bool | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="true when the designer asks that the fight stay dodgeable (a hard check)")


class Goal(Strict):
    goal: Literal["gcv.goal/1"] = GOAL_ID
    target_phase_ids: list[str] = Field(min_length=1, max_length=6)
    pattern_type: PatternType | None = None
    bidirectional: bool | None = None
    reverse_rotation: bool = False
    pressure: Literal["increase", "decrease", "keep"] = "keep"
    edits: list[ParameterEdit] = Field(default_factory=list, max_length=16)
    constraints: DesignerConstraints = Field(default_factory=DesignerConstraints)
    preserve_visual_style: bool = False
    source_text: str = Field(default="", max_length=4000)


# how a person reads each target a designer can state or raise
TARGET_WORDS: dict[str, str] = {"max_player_hits": "player hits at most", "max_alive_bullets": "alive bullets at most",
                                "min_low_fps": "1% low FPS at least"}


def with_targets(goal: Goal, targets: dict[str, int | float]) -> Goal:
    """``goal`` with each of ``targets`` (``max_player_hits`` ...) stated as a designer constraint:
    a target the designer chose to raise among the offered trade-offs (``raise_target``). The
    effective targets and the safety layer then take it as the designer's stated value."""
    if not targets:
        return goal
    return goal.model_copy(update={"constraints": goal.constraints.model_copy(update=dict(targets))})
