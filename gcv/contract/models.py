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

from typing import Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.types import Dec, Int

CONTRACT_ID = "gcv.bullet_hell/1"

PatternType = Literal["ring", "spiral", "aimed_fan", "petal", "scatter"]
PATTERN_TYPES: tuple[str, ...] = ("ring", "spiral", "aimed_fan", "petal", "scatter")


class Strict(GcvModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False,
                              validate_default=True)


class Vec2(Strict):
    x: Dec(ge=-1000, le=1000, description="units")  # type: ignore[valid-type]
    y: Dec(ge=-1000, le=1000, description="units")  # type: ignore[valid-type]


class Scenario(Strict):
    scenario_id: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_\-]+$")
    duration_seconds: Dec(ge=5, le=600, description="fight length, seconds")  # type: ignore[valid-type]
    arena_width: Dec(ge=4, le=100, description="units")  # type: ignore[valid-type]
    arena_height: Dec(ge=4, le=100, description="units")  # type: ignore[valid-type]


class Player(Strict):
    max_health: Int(ge=1, le=99, description="hits the player can take")  # type: ignore[valid-type]
    move_speed: Dec(ge=0.5, le=30, description="units/s")  # type: ignore[valid-type]
    focus_multiplier: Dec(ge=0.05, le=1, description="speed factor while focused")  # type: ignore[valid-type]
    hit_radius: Dec(ge=0.01, le=2, description="units")  # type: ignore[valid-type]
    graze_radius: Dec(ge=0.02, le=5, description="units, must exceed hit_radius")  # type: ignore[valid-type]
    start_position: Vec2
    invulnerability_seconds: Dec(ge=0, le=5, description="seconds after a hit")  # type: ignore[valid-type]
    auto_fire_damage: Int(ge=1, le=1_000_000, description="boss damage per shot")  # type: ignore[valid-type]
    auto_fire_interval_seconds: Dec(ge=0.016667, le=10, description="seconds between shots")  # type: ignore[valid-type]


class Boss(Strict):
    boss_id: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_\-]+$")
    max_health: Int(ge=1, le=100_000_000)  # type: ignore[valid-type]
    position: Vec2


class Pattern(Strict):
    type: PatternType
    bullets_per_wave: Int(ge=1, le=64)  # type: ignore[valid-type]
    wave_interval_ms: Int(ge=100, le=5000)  # type: ignore[valid-type]
    bullet_speed: Dec(ge=0.5, le=12, description="units/s")  # type: ignore[valid-type]
    bullet_lifetime_seconds: Dec(ge=0.5, le=12)  # type: ignore[valid-type]
    rotation_per_wave_deg: Dec(ge=-180, le=180)  # type: ignore[valid-type]
    spread_angle_deg: Dec(ge=1, le=360)  # type: ignore[valid-type]
    layer_count: Int(ge=1, le=4)  # type: ignore[valid-type]
    bidirectional: bool


class Phase(Strict):
    phase_id: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9_\-]+$")
    title: str = Field(min_length=1, max_length=80)
    trigger_boss_hp_below: Dec(gt=0, le=1, description="boss health ratio that starts this phase")  # type: ignore[valid-type]
    pattern: Pattern


class Limits(Strict):
    """Hard platform limits. The baseline owns them; a candidate never changes them."""

    max_alive_bullets: Int(ge=1, le=350)  # type: ignore[valid-type]
    min_low_fps: Dec(ge=1, le=240)  # type: ignore[valid-type]
    max_player_hits: Int(ge=0, le=99)  # type: ignore[valid-type]


class Targets(Strict):
    """Design targets; never looser than the limits."""

    max_alive_bullets: Int(ge=1, le=350)  # type: ignore[valid-type]
    max_player_hits: Int(ge=0, le=99)  # type: ignore[valid-type]
    min_survival_seconds: Dec(ge=0, le=600)  # type: ignore[valid-type]
    min_low_fps: Dec(ge=1, le=240)  # type: ignore[valid-type]
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
