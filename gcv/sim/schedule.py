"""The emission schedule, derived without simulating a player.

The boss takes auto-fire damage on a fixed timetable whatever the player does, so the
tick at which each phase starts, every wave's spawn tick and every bullet's lifetime are
known from the program alone. From them this module computes an exact upper bound on the
bullets alive at once (a bullet can only leave earlier, by a hit or by leaving the arena),
including bullets that carry over a phase change. The validation rules layer uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any


@dataclass(frozen=True)
class PhaseWindow:
    index: int
    phase_id: str
    start_tick: int
    end_tick: int  # exclusive
    wave_ticks: tuple[int, ...]
    slots: int  # bullets per wave in all: directions x layers x the config's bullets_per_wave


@dataclass
class Schedule:
    duration_ticks: int
    end_tick: int  # exclusive: the fight ends at boss death or at the duration
    boss_death_tick: int | None
    windows: list[PhaseWindow]
    alive_upper_bound: int
    alive_upper_bound_tick: int
    alive_bound_series: list[int] = field(repr=False)  # the bound at every tick before end_tick

    @property
    def total_bullets(self) -> int:
        return sum(len(w.wave_ticks) * w.slots for w in self.windows)


def phase_index_for(health: int, max_health: int, phases: list[dict[str, Any]]) -> int:
    """Last phase whose trigger ratio is >= health / max_health (exact integer comparison)."""
    active = 0
    for i, phase in enumerate(phases):
        if phase["trigger_micro"] * max_health >= health * 1_000_000:
            active = i
    return active


def boss_health_after(tick: int, program: dict[str, Any]) -> int:
    """Boss health after the auto-fire step of ``tick``."""
    p, b = program["player"], program["boss"]
    shots: int = tick // p["auto_fire_interval_ticks"] + 1
    health: int = max(0, b["max_health"] - shots * p["auto_fire_damage"])
    return health


def emission_schedule(program: dict[str, Any]) -> Schedule:
    duration = program["duration_ticks"]
    p, b, phases = program["player"], program["boss"], program["phases"]
    interval, damage = p["auto_fire_interval_ticks"], p["auto_fire_damage"]
    shots_to_kill = -(-b["max_health"] // damage)
    death_tick = (shots_to_kill - 1) * interval
    end = min(duration, death_tick + 1)
    boss_death = death_tick if death_tick < duration else None

    # Phase changes can only happen on auto-fire ticks; walk those.
    segments: list[tuple[int, int]] = []  # (phase index, start tick)
    current = -1
    for tick in range(0, end, interval):
        idx = phase_index_for(boss_health_after(tick, program), b["max_health"], phases)
        if idx != current:
            segments.append((idx, tick))
            current = idx
    windows: list[PhaseWindow] = []
    delta = [0] * (end + 1)
    for k, (idx, start) in enumerate(segments):
        stop = segments[k + 1][1] if k + 1 < len(segments) else end
        ph = phases[idx]
        waves = tuple(range(start, stop, ph["wave_interval_ticks"]))
        count = len(ph["slots"])
        windows.append(PhaseWindow(idx, ph["phase_id"], start, stop, waves, count))
        for t in waves:
            delta[t] += count
            delta[min(end, t + ph["lifetime_ticks"])] -= count
    series = list(accumulate(delta[:end]))
    peak = max(series, default=0)
    peak_tick = series.index(peak) if series else 0  # the first tick at the peak
    return Schedule(duration, end, boss_death, windows, peak, peak_tick, series)
