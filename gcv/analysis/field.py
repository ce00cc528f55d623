"""The bullets of a hit-free run, computed without simulating a player.

Why this is exact (docs/analysis.md has the whole argument): in the simulator a bullet's
path is fixed at emission (it starts at the boss and moves ``boss + k * v``), the phase
timetable depends only on auto-fire (``gcv.sim.schedule``), the generator is drawn only by
scatter emission for an ``inputs`` player, and the only other way the player changes the
bullets is the collision step removing bullets that touch it. Before the first hit no
bullet has ever touched the player (any touch at a vulnerable tick is a hit), so on a
hit-free run no bullet is ever removed by a collision. Therefore every bullet of a hit-free
run is known from the program, the seed, and, for aimed phases only, the player's position
at that wave's emission tick (the aim angle).

Bullets are kept in creation order, the engine's order, so a test can compare this field
with the engine's arrays tick by tick.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from gcv.contract.patterns import PATTERNS
from gcv.sim.fixed import SplitMix64, iatan2
from gcv.sim.schedule import Schedule, emission_schedule
from gcv.sim.trig import COS_TABLE, SIN_TABLE


@dataclass(frozen=True)
class WaveSpec:
    """One wave the boss fires: when, by which phase, and its slots before any aim."""

    ordinal: int  # waves of the whole fight, in tick order
    tick: int
    phase_index: int
    wave_index: int  # within its phase
    base_angles: np.ndarray  # int64: offset + wave * rotation * sign (+ scatter draw); aim not added
    speeds: np.ndarray  # int64
    aim: bool


def wave_specs(program: dict[str, Any], seed: int, schedule: Schedule | None = None) -> list[WaveSpec]:
    """Every wave of the fight, in tick order, with the scatter draws of ``seed``.

    For an ``inputs`` player the generator is drawn only by scatter emission (one
    ``below(span)`` per slot, in slot order, in tick order), so the draws do not depend on
    where the player goes.
    """
    schedule = schedule or emission_schedule(program)
    rng = SplitMix64(seed)
    specs: list[WaveSpec] = []
    for window in sorted(schedule.windows, key=lambda w: w.start_tick):
        ph = program["phases"][window.index]
        slots = np.asarray(ph["slots"], dtype=np.int64).reshape(-1, 3)
        offsets, speeds, signs = slots[:, 0], slots[:, 1], slots[:, 2]
        for w, tick in enumerate(window.wave_ticks):
            base = offsets + w * ph["rotation_per_wave"] * signs
            if PATTERNS[ph["pattern"]].draws:
                span = ph["scatter_span"]
                base = base + np.array([rng.below(span) for _ in range(offsets.size)], dtype=np.int64)
            specs.append(WaveSpec(len(specs), tick, window.index, w, base, speeds, bool(ph["aim"])))
    return specs


def aim_angle(program: dict[str, Any], px: int, py: int) -> int:
    """The aim added to an aimed wave fired while the player stands at ``(px, py)``."""
    boss = program["boss"]
    return iatan2(py - boss["y"], px - boss["x"])


def wave_bullets(program: dict[str, Any], spec: WaveSpec, aim: int = 0) -> tuple[np.ndarray, ...]:
    """(VX, VY, DEATH) of one wave, exactly as the engine's emission step computes them."""
    ph = program["phases"][spec.phase_index]
    angles = (spec.base_angles + (aim if spec.aim else 0)) & 0xFFFF
    vx = (spec.speeds * COS_TABLE[angles]) >> 16
    vy = (spec.speeds * SIN_TABLE[angles]) >> 16
    boss, arena = program["boss"], program["arena"]
    k = np.full(vx.size, ph["lifetime_ticks"], dtype=np.int64)
    for v, pos, margin in ((vx, boss["x"], arena["despawn_x"]), (vy, boss["y"], arena["despawn_y"])):
        pos_mask, neg_mask = v > 0, v < 0
        if pos_mask.any():
            k[pos_mask] = np.minimum(k[pos_mask], (margin - pos) // v[pos_mask] + 1)
        if neg_mask.any():
            k[neg_mask] = np.minimum(k[neg_mask], (margin + pos) // (-v[neg_mask]) + 1)
    return vx, vy, spec.tick + k


class BulletField:
    """Bullets in creation order: spawn tick ``S``, velocity, removal tick ``DEATH``, phase, wave.

    Built from waves; aimed waves are included only when their aim angle is given
    (``aims[ordinal]``), so ``BulletField(program, specs)`` alone is the player-independent
    part of the fight.
    """

    def __init__(self, program: dict[str, Any], specs: list[WaveSpec],
                 aims: Mapping[int, int] | None = None) -> None:
        self.program = program
        self.boss_x, self.boss_y = program["boss"]["x"], program["boss"]["y"]
        parts: list[tuple[np.ndarray, ...]] = []
        self.included: list[WaveSpec] = []
        for spec in specs:
            if spec.aim and (aims is None or spec.ordinal not in aims):
                continue
            vx, vy, death = wave_bullets(program, spec, aims[spec.ordinal] if spec.aim and aims else 0)
            n = vx.size
            parts.append((np.full(n, spec.tick, dtype=np.int64), vx, vy, death,
                          np.full(n, spec.phase_index, dtype=np.int64),
                          np.full(n, spec.ordinal, dtype=np.int64)))
            self.included.append(spec)
        if parts:
            cols = [np.concatenate([p[j] for p in parts]) for j in range(6)]
        else:
            cols = [np.zeros(0, dtype=np.int64) for _ in range(6)]
        self.S, self.VX, self.VY, self.DEATH, self.PH, self.WAVE = cols
        self.max_life = int((self.DEATH - self.S).max()) if self.S.size else 0
        self.specs = {s.ordinal: s for s in specs}

    @property
    def size(self) -> int:
        return int(self.S.size)

    def alive(self, t: int) -> np.ndarray:
        """Indices of the bullets present at the collision step of tick ``t``, in order."""
        hi = int(np.searchsorted(self.S, t, side="right"))
        lo = int(np.searchsorted(self.S, t - self.max_life, side="right"))
        idx = np.arange(lo, hi)
        return idx[self.DEATH[lo:hi] > t]

    def alive_pairs(self, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
        """Every (tick, bullet) with the bullet present at tick's collision step, t0 <= tick < t1."""
        hi = int(np.searchsorted(self.S, t1 - 1, side="right"))
        lo = int(np.searchsorted(self.S, t0 - self.max_life, side="right"))
        idx = np.arange(lo, hi)
        first = np.maximum(self.S[lo:hi], t0)
        count = np.maximum(np.minimum(self.DEATH[lo:hi], t1) - first, 0)
        keep = count > 0
        idx, first, count = idx[keep], first[keep], count[keep]
        total = int(count.sum())
        bullet = np.repeat(idx, count)
        starts = np.repeat(np.cumsum(count) - count, count)
        tick = np.repeat(first, count) + (np.arange(total) - starts)
        return tick, bullet

    def positions_at(self, tick: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions of bullets ``idx`` at ticks ``tick`` (element-wise)."""
        age = tick - self.S[idx]
        return self.boss_x + self.VX[idx] * age, self.boss_y + self.VY[idx] * age

    def positions(self, t: int, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions after the motion step of tick ``t`` (a bullet does not move on its spawn tick)."""
        age = t - self.S[idx]
        return self.boss_x + self.VX[idx] * age, self.boss_y + self.VY[idx] * age
