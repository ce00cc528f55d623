"""The telemetry document as a pydantic model: the source of schemas/telemetry.schema.json.

Engines write telemetry; runners validate it against this before anyone reads a figure.
Gameplay figures are integers. ``fps_source`` says where the frame-time figures came from:
``model`` (the Python simulator and the harnesses: a documented cost model, not a
measurement) or ``measured`` (a real engine rendering frames).
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel

HASH = r"^[0-9a-f]{64}$"


class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class EngineInfo(_Strict):
    name: str = Field(min_length=1, max_length=64)
    implementation: Literal["python", "csharp", "cpp"]
    version: str = Field(min_length=1, max_length=64)
    engine_version: str | None = None


class Hardware(_Strict):
    gpu: str | None = None
    cpu: str | None = None


class FrameModel(_Strict):
    fixed_us: int = Field(ge=0)
    per_bullet_us: int = Field(ge=0)
    per_check_us: int = Field(ge=0)


class PhaseResult(_Strict):
    phase_id: str
    reached: bool
    start_tick: int | None = Field(ge=0)
    end_tick: int | None = Field(ge=0)
    ticks: int = Field(ge=0)
    bullets_spawned: int = Field(ge=0)
    player_hits: int = Field(ge=0)
    grazes: int = Field(ge=0)
    peak_alive_bullets: int = Field(ge=0)
    alive_tick_sum: int = Field(ge=0)
    mean_alive_bullets: float = Field(ge=0)


class Telemetry(_Strict):
    telemetry: Literal["gcv.telemetry/1"]
    engine: EngineInfo
    run_id: str
    status: Literal["completed", "died"]
    end_reason: Literal["time_up", "boss_defeated", "player_died"]
    ticks: int = Field(ge=1)
    tick_hz: Literal[60]
    duration_ticks: int = Field(ge=1)
    seed: int = Field(ge=0, le=(1 << 63) - 1)
    player: str = Field(min_length=1, max_length=80)
    config_hash: str = Field(pattern=HASH)
    program_hash: str = Field(pattern=HASH)
    total_bullets_spawned: int = Field(ge=0)
    peak_alive_bullets: int = Field(ge=0)
    player_hits: int = Field(ge=0)
    hit_ticks: list[int]
    grazes: int = Field(ge=0)
    survival_ticks: int = Field(ge=0)
    player_health_remaining: int = Field(ge=0)
    boss_health_remaining: int = Field(ge=0)
    phases_reached: int = Field(ge=1)
    phase_results: list[PhaseResult] = Field(min_length=1)
    alive_per_second: list[int]
    state_hash: str = Field(pattern=HASH)
    state_hashes: list[str]
    fps_source: Literal["model", "measured"]
    average_fps: float = Field(ge=0)
    low_fps: float = Field(ge=0)
    worst_frame_ms: float = Field(ge=0)
    frame_model: FrameModel | None = None
    hardware: Hardware | None = None
    wall_time_ms: int | None = Field(default=None, ge=0)
