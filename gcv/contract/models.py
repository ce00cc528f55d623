"""The ``gcv.bullet_hell/1`` contract: one boss fight, fully described.

Field names are fixed because other tools (the engines, reviewers' scripts) read them.
Units: lengths in world units, speeds in units per second, times in seconds unless the
name says ``_ms``, angles in degrees. The arena is centred on (0, 0); +y points up, so
the boss sits at positive y and the player starts at negative y.

Only field-level rules live here (types, ranges, no extra fields), so that these models
and the committed JSON Schema accept exactly the same documents. Cross-field rules
(trigger order, targets vs limits, duplicate bullets, ...) live in ``gcv.validation``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.patterns import PATTERN_NAMES, PatternKind
from gcv.contract.types import DEC_CHECK, INT_COERCE, dec_field, int_field

CONTRACT_ID = "gcv.bullet_hell/1"

PatternType = PatternKind  # the kinds and their properties: gcv.contract.patterns
PATTERN_TYPES: tuple[str, ...] = PATTERN_NAMES


class Strict(GcvModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False,
                              validate_default=True)


class Vec2(Strict):
    x: Annotated[float, dec_field(ge=-1000, le=1000, description="units"), DEC_CHECK]
    y: Annotated[float, dec_field(ge=-1000, le=1000, description="units"), DEC_CHECK]


class Scenario(Strict):
    scenario_id: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_\-]+$")
    duration_seconds: Annotated[float, dec_field(ge=5, le=600, description="fight length, seconds"), DEC_CHECK]
    arena_width: Annotated[float, dec_field(ge=4, le=100, description="units"), DEC_CHECK]
    arena_height: Annotated[float, dec_field(ge=4, le=100, description="units"), DEC_CHECK]


class Player(Strict):
    max_health: Annotated[int, INT_COERCE, int_field(ge=1, le=99, description="hits the player can take")]
    move_speed: Annotated[float, dec_field(ge=0.5, le=30, description="units/s"), DEC_CHECK]
    focus_multiplier: Annotated[float, dec_field(ge=0.05, le=1, description="speed factor while focused"), DEC_CHECK]
    hit_radius: Annotated[float, dec_field(ge=0.01, le=2, description="units"), DEC_CHECK]
    graze_radius: Annotated[float, dec_field(ge=0.02, le=5, description="units, must exceed hit_radius"), DEC_CHECK]
    start_position: Vec2
    invulnerability_seconds: Annotated[float, dec_field(ge=0, le=5, description="seconds after a hit"), DEC_CHECK]
    auto_fire_damage: Annotated[int, INT_COERCE, int_field(ge=1, le=1_000_000, description="boss damage per shot")]
    auto_fire_interval_seconds: Annotated[float, dec_field(ge=0.016667, le=10, description="seconds between shots"), DEC_CHECK]


class Boss(Strict):
    boss_id: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_\-]+$")
    max_health: Annotated[int, INT_COERCE, int_field(ge=1, le=100_000_000)]
    position: Vec2


class Pattern(Strict):
    type: PatternType
    bullets_per_wave: Annotated[int, INT_COERCE, int_field(ge=1, le=64)]
    wave_interval_ms: Annotated[int, INT_COERCE, int_field(ge=100, le=5000)]
    bullet_speed: Annotated[float, dec_field(ge=0.5, le=12, description="units/s"), DEC_CHECK]
    bullet_lifetime_seconds: Annotated[float, dec_field(ge=0.5, le=12), DEC_CHECK]
    rotation_per_wave_deg: Annotated[float, dec_field(ge=-180, le=180), DEC_CHECK]
    spread_angle_deg: Annotated[float, dec_field(ge=1, le=360), DEC_CHECK]
    layer_count: Annotated[int, INT_COERCE, int_field(ge=1, le=4)]
    bidirectional: bool


class Phase(Strict):
    phase_id: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9_\-]+$")
    title: str = Field(min_length=1, max_length=80)
    trigger_boss_hp_below: Annotated[float, dec_field(gt=0, le=1, description="boss health ratio that starts this phase"), DEC_CHECK]
    pattern: Pattern


class Limits(Strict):
    """Hard platform limits. The baseline owns them; a candidate never changes them."""

    max_alive_bullets: Annotated[int, INT_COERCE, int_field(ge=1, le=350)]
    min_low_fps: Annotated[float, dec_field(ge=1, le=240), DEC_CHECK]
    max_player_hits: Annotated[int, INT_COERCE, int_field(ge=0, le=99)]


class Targets(Strict):
    """Design targets; never looser than the limits."""

    max_alive_bullets: Annotated[int, INT_COERCE, int_field(ge=1, le=350)]
    max_player_hits: Annotated[int, INT_COERCE, int_field(ge=0, le=99)]
    min_survival_seconds: Annotated[float, dec_field(ge=0, le=600), DEC_CHECK]
    min_low_fps: Annotated[float, dec_field(ge=1, le=240), DEC_CHECK]
    require_all_phases: bool
    # Left out of the config's JSON while false, so configs written before it keep their hash.
    require_dodgeable: bool = Field(
        default=False, exclude_if=lambda v: v is False,
        description="every candidate must be proven dodgeable: no tick where every reachable position is hit "
                    "(gcv fair; docs/analysis.md)")


class BulletHellConfig(Strict):
    contract: Literal["gcv.bullet_hell/1"]
    name: str = Field(min_length=1, max_length=120)
    scenario: Scenario
    player: Player
    boss: Boss
    phases: list[Phase] = Field(min_length=1, max_length=6)
    limits: Limits
    targets: Targets

    def phase(self, phase_id: str) -> Phase | None:
        return next((p for p in self.phases if p.phase_id == phase_id), None)
