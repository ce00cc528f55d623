"""The sim program as a pydantic model: the source of schemas/sim_program.schema.json.

Every field is an integer, a boolean or a short ASCII string: engines never parse a
decimal. ``RunRequest`` validates its program with this model, so a malformed program is
refused with the field named before any engine starts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

I64 = Field(ge=-(1 << 62), le=(1 << 62))
POS = Field(ge=1, le=1 << 40)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Arena(_Strict):
    half_width: int = POS
    half_height: int = POS
    despawn_x: int = POS
    despawn_y: int = POS


class ProgramPlayer(_Strict):
    max_health: int = Field(ge=1, le=99)
    speed: int = Field(ge=0, le=1 << 24)
    focus_speed: int = Field(ge=0, le=1 << 24)
    hit_radius: int = Field(ge=0, le=1 << 24)
    graze_radius: int = Field(ge=0, le=1 << 24)
    start_x: int = I64
    start_y: int = I64
    invulnerability_ticks: int = Field(ge=0, le=36000)
    auto_fire_damage: int = Field(ge=1, le=1 << 40)
    auto_fire_interval_ticks: int = Field(ge=1, le=36000)


class ProgramBoss(_Strict):
    max_health: int = Field(ge=1, le=1 << 40)
    x: int = I64
    y: int = I64


class ProgramPhase(_Strict):
    phase_id: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9_\-]+$")
    trigger_micro: int = Field(ge=1, le=1_000_000)
    pattern: Literal["ring", "spiral", "aimed_fan", "petal", "scatter"]
    pattern_code: int = Field(ge=0, le=4)
    bullets_per_wave: int = Field(ge=1, le=64)
    wave_interval_ticks: int = Field(ge=1, le=36000)
    lifetime_ticks: int = Field(ge=1, le=36000)
    rotation_per_wave: int = Field(ge=-32768, le=32768)
    aim: bool
    scatter_span: int = Field(ge=0, le=65536)
    slots: list[list[int]] = Field(min_length=1, max_length=512,
                                   description="[angle_offset, speed_q16_per_tick, rotation_sign] per bullet")


class Skill(_Strict):
    reaction_ticks: int = Field(ge=1, le=600)
    lookahead_ticks: int = Field(ge=1, le=600)
    mistake_threshold: int = Field(ge=0, le=(1 << 32) - 1)


class Bot(_Strict):
    skills: dict[str, Skill]
    clearance_cap: int = Field(ge=1, le=1 << 50)
    home_shift: int = Field(ge=0, le=62)


class Scripted(_Strict):
    rate_x: int = Field(ge=0, le=1 << 40)
    rate_y: int = Field(ge=0, le=1 << 40)
    amp_x: int = Field(ge=0, le=1 << 40)
    amp_y: int = Field(ge=0, le=1 << 40)


class FrameModel(_Strict):
    fixed_us: int = Field(ge=0, le=1_000_000)
    per_bullet_us: int = Field(ge=0, le=10_000)
    per_check_us: int = Field(ge=0, le=10_000)


class SimProgram(_Strict):
    program: Literal["gcv.sim_program/1"]
    config_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    tick_hz: Literal[60]
    duration_ticks: int = Field(ge=1, le=36000)
    arena: Arena
    player: ProgramPlayer
    boss: ProgramBoss
    phases: list[ProgramPhase] = Field(min_length=1, max_length=6)
    scripted: Scripted
    bot: Bot
    frame_model: FrameModel
    state_hash_interval: int = Field(ge=1, le=36000)
