"""Telemetry: what a run reports, identical across the Python, C# and C++ implementations.

Gameplay figures are integers. The few non-integers (mean alive bullets, modeled FPS) are
defined as an integer number of thousandths, computed with integer arithmetic, and written
as that decimal (``milli / 1000``), so every implementation prints the same number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import gcv
from gcv.sim.program import program_hash

TELEMETRY_ID = "gcv.telemetry/1"

# Fields that are not gameplay: they may differ between engines (who ran it, how fast the
# frames were). Everything else must agree bit for bit.
NON_GAMEPLAY_FIELDS = frozenset({
    "engine", "run_id", "fps_source", "average_fps", "low_fps", "worst_frame_ms",
    "frame_model", "hardware", "wall_time_ms",
})


def milli_ratio(numerator: int, denominator: int) -> int:
    """round_half_up(1000 * numerator / denominator) for non-negative integers."""
    return (2000 * numerator + denominator) // (2 * denominator)


def from_milli(milli: int) -> float:
    return milli / 1000


def frame_figures(frame_us: list[int]) -> tuple[int, int, int]:
    """(average_fps_milli, low_fps_milli, worst_frame_us) of the modeled frame times.

    1% low: the mean frame time of the worst max(1, n // 100) frames, as FPS.
    """
    n = len(frame_us)
    total = sum(frame_us)
    worst = sorted(frame_us, reverse=True)[: max(1, n // 100)]
    average = (1_000_000_000 * n) // total
    low = (1_000_000_000 * len(worst)) // sum(worst)
    return average, low, worst[0]


class PhaseFigures(Protocol):
    phase_id: str
    start_tick: int | None
    end_tick: int | None
    ticks: int
    bullets_spawned: int
    player_hits: int
    grazes: int
    peak_alive_bullets: int
    alive_tick_sum: int


class FinishedRun(Protocol):
    """What telemetry reads of a finished simulation (``gcv.sim.engine.Simulation``).

    Read-only members, so that a simulation holding lists (or another class holding tuples)
    matches the sequences read here."""

    @property
    def program(self) -> dict[str, Any]: ...

    @property
    def program_hash(self) -> str: ...

    @property
    def status(self) -> str | None: ...

    @property
    def end_reason(self) -> str | None: ...

    @property
    def tick(self) -> int: ...

    @property
    def seed(self) -> int | None: ...  # set by reset(); a finished run always has one

    @property
    def spawned(self) -> int: ...

    @property
    def peak(self) -> int: ...

    @property
    def hits(self) -> int: ...

    @property
    def hit_ticks(self) -> Sequence[int]: ...

    @property
    def grazes(self) -> int: ...

    @property
    def health(self) -> int: ...

    @property
    def boss_health(self) -> int: ...

    @property
    def stats(self) -> Sequence[PhaseFigures]: ...

    @property
    def frame_us(self) -> list[int]: ...

    @property
    def alive_per_second(self) -> Sequence[int]: ...

    @property
    def state_hashes(self) -> Sequence[str]: ...

    @property
    def player_label(self) -> str: ...

    def state_hash(self) -> str: ...


def build_telemetry(sim: FinishedRun, *, run_id: str = "") -> dict[str, Any]:
    prog = sim.program
    status = sim.status
    if status is None:
        raise RuntimeError("telemetry is only defined for a finished run")
    survival = prog["duration_ticks"] if status == "completed" else sim.tick - 1
    phases = []
    for st in sim.stats:
        reached = st.start_tick is not None
        phases.append({
            "phase_id": st.phase_id,
            "reached": reached,
            "start_tick": st.start_tick,
            "end_tick": st.end_tick,
            "ticks": st.ticks,
            "bullets_spawned": st.bullets_spawned,
            "player_hits": st.player_hits,
            "grazes": st.grazes,
            "peak_alive_bullets": st.peak_alive_bullets,
            "alive_tick_sum": st.alive_tick_sum,
            "mean_alive_bullets": from_milli(milli_ratio(st.alive_tick_sum, st.ticks)) if st.ticks else 0,
        })
    average, low, worst = frame_figures(sim.frame_us)
    fm = prog["frame_model"]
    return {
        "telemetry": TELEMETRY_ID,
        "engine": {"name": "python-sim", "implementation": "python", "version": gcv.__version__},
        "run_id": run_id,
        "status": status,
        "end_reason": sim.end_reason,
        "ticks": sim.tick,
        "tick_hz": prog["tick_hz"],
        "duration_ticks": prog["duration_ticks"],
        "seed": sim.seed,
        "player": sim.player_label,
        "config_hash": prog["config_hash"],
        "program_hash": sim.program_hash,
        "total_bullets_spawned": sim.spawned,
        "peak_alive_bullets": sim.peak,
        "player_hits": sim.hits,
        "hit_ticks": list(sim.hit_ticks),
        "grazes": sim.grazes,
        "survival_ticks": survival,
        "player_health_remaining": max(0, sim.health),
        "boss_health_remaining": sim.boss_health,
        "phases_reached": sum(1 for p in phases if p["reached"]),
        "phase_results": phases,
        "alive_per_second": list(sim.alive_per_second),
        "state_hash": sim.state_hash(),
        "state_hashes": list(sim.state_hashes),
        "fps_source": "model",
        "average_fps": from_milli(average),
        "low_fps": from_milli(low),
        "worst_frame_ms": from_milli(milli_ratio(worst, 1000)),
        "frame_model": {"fixed_us": fm["fixed_us"], "per_bullet_us": fm["per_bullet_us"],
                        "per_check_us": fm["per_check_us"]},
    }


def desync(reference: dict[str, Any], engine: dict[str, Any]) -> dict[str, Any] | None:
    """Where an engine's gameplay parts from the reference run of the same request: the first
    differing gameplay field (in sorted order) and, from the state hashes taken every 60 ticks,
    the first 60-tick window whose state differs. None when every gameplay figure is equal."""
    ref, eng = gameplay_view(reference), gameplay_view(engine)
    if ref == eng:
        return None
    field = next(k for k in sorted(set(ref) | set(eng)) if ref.get(k) != eng.get(k))
    a, b = list(ref.get("state_hashes") or []), list(eng.get("state_hashes") or [])
    window = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
    if window is None and len(a) != len(b):
        window = min(len(a), len(b))
    return {"field": field, "reference": ref.get(field), "engine": eng.get(field),
            "window": None if window is None else [window * 60, window * 60 + 59]}


def gameplay_view(telemetry: dict[str, Any]) -> dict[str, Any]:
    """The part of a telemetry that every implementation must reproduce exactly."""
    return {k: v for k, v in telemetry.items() if k not in NON_GAMEPLAY_FIELDS}
