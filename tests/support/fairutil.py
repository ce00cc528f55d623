"""Helpers of the fairness-analysis tests: small configs, the exact hit-free reachable sets by
brute force, and the spec's move table written out independently of ``gcv.analysis.moves``."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
from hypothesis import strategies as st

from tests.support.simutil import BASELINE_PATH
from tests.support.strategies import decimals

DIRS = ((0, 0), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


def baseline_data() -> dict[str, Any]:
    return json.loads(BASELINE_PATH.read_text(encoding="utf-8"))


def spec_steps(program: dict[str, Any]) -> list[tuple[int, int]]:
    """Every (dx*s, dy*s) of docs/simulation.md section 6, duplicates included (18 inputs)."""
    pl = program["player"]
    out = []
    for focus in (0, 1):
        s = pl["focus_speed"] if focus else pl["speed"]
        for dx, dy in DIRS:
            step = (s * 46341) >> 16 if dx and dy else s
            out.append((dx * step, dy * step))
    return out


def falling_wall(**player: Any) -> dict[str, Any]:
    """One bullet wider than the arena falls on a slow player standing on the bottom edge.

    tests/analysis/test_analyze.py derives by hand the tick at which it becomes unfair.
    """
    doc: dict[str, Any] = {
        "contract": "gcv.bullet_hell/1",
        "name": "Falling wall",
        "scenario": {"scenario_id": "falling_wall", "duration_seconds": 5, "arena_width": 4, "arena_height": 4},
        "player": {"max_health": 3, "move_speed": 0.5, "focus_multiplier": 1, "hit_radius": 2,
                   "graze_radius": 2.5, "start_position": {"x": 0, "y": -2}, "invulnerability_seconds": 0.5,
                   "auto_fire_damage": 1, "auto_fire_interval_seconds": 1},
        "boss": {"boss_id": "wall", "max_health": 1000, "position": {"x": 0, "y": 2}},
        "phases": [{"phase_id": "drop", "title": "One big bullet", "trigger_boss_hp_below": 1.0,
                    "pattern": {"type": "ring", "bullets_per_wave": 1, "wave_interval_ms": 5000,
                                "bullet_speed": 6, "bullet_lifetime_seconds": 12, "rotation_per_wave_deg": 0,
                                "spread_angle_deg": 360, "layer_count": 1, "bidirectional": False}}],
        "limits": {"max_alive_bullets": 350, "min_low_fps": 30, "max_player_hits": 3},
        "targets": {"max_alive_bullets": 350, "max_player_hits": 3, "min_survival_seconds": 5,
                    "min_low_fps": 30, "require_all_phases": True},
    }
    doc["player"].update(player)
    return doc


def with_phase(doc: dict[str, Any], index: int, **pattern: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["phases"][index]["pattern"].update(pattern)
    return out


@st.composite
def tiny_configs(draw: Any, patterns: tuple[str, ...] = ("ring", "spiral", "petal")) -> dict[str, Any]:
    """Small arenas, fast players, big bullets near the player: fights that often become
    unfair within a few ticks, small enough to enumerate every move sequence. Not always
    valid (the caller filters with the validation layers)."""
    width, height = draw(decimals(4, 6, places=1)), draw(decimals(4, 6, places=1))
    kind = draw(st.sampled_from(patterns))
    layers = draw(st.integers(2, 3)) if kind == "petal" else draw(st.integers(1, 2))
    rotation = draw(decimals(-90, 90, places=0)) if kind in ("spiral", "petal") else 0
    hit = draw(decimals(0.3, 2, places=2))
    doc = falling_wall()
    doc["scenario"].update({"arena_width": width, "arena_height": height})
    hx, hy = width / 2, height / 2
    doc["player"].update({
        "move_speed": draw(decimals(2, 30, places=1)),
        "focus_multiplier": draw(st.sampled_from([1, 0.5, 0.35])),
        "hit_radius": hit, "graze_radius": round(hit + 0.5, 2),
        "start_position": {"x": draw(decimals(-hx, hx, places=1)), "y": draw(decimals(-hy, hy, places=1))},
    })
    doc["boss"]["position"] = {"x": draw(decimals(-hx, hx, places=1)), "y": draw(decimals(-hy, hy, places=1))}
    doc["phases"][0]["pattern"] = {
        "type": kind, "bullets_per_wave": draw(st.integers(1, 16)), "wave_interval_ms": draw(st.integers(100, 800)),
        "bullet_speed": draw(decimals(1, 12, places=1)), "bullet_lifetime_seconds": draw(decimals(0.5, 2, places=1)),
        "rotation_per_wave_deg": rotation, "spread_angle_deg": 360, "layer_count": layers,
        "bidirectional": False,
    }
    return doc


def exact_hit_free_sets(program: dict[str, Any], bullets_at: Any, ticks: int, *,
                        cap: int = 80_000) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every position a player can hold at each tick 0 .. ticks-1 without having been hit,
    by enumerating every move sequence (deduplicated by position: two sequences that meet
    have the same future). ``bullets_at(t)`` gives the bullets' (X, Y) at tick t. Stops early
    (shorter list) if a set grows beyond ``cap`` positions."""
    pl, arena = program["player"], program["arena"]
    hw, hh, r2 = arena["half_width"], arena["half_height"], pl["hit_radius"] ** 2
    steps = np.array(sorted(set(spec_steps(program))), dtype=np.int64)
    xs = np.array([pl["start_x"]], dtype=np.int64)
    ys = np.array([pl["start_y"]], dtype=np.int64)
    out = []
    for t in range(ticks):
        cx = np.clip(xs[:, None] + steps[:, 0], -hw, hw).ravel()
        cy = np.clip(ys[:, None] + steps[:, 1], -hh, hh).ravel()
        key = np.unique((cx + (1 << 24)) << 26 | (cy + (1 << 24)))
        cx, cy = (key >> 26) - (1 << 24), (key & ((1 << 26) - 1)) - (1 << 24)
        bx, by = bullets_at(t)
        if bx.size and cx.size:
            hit = np.zeros(cx.size, dtype=bool)
            for k in range(0, bx.size, 64):
                dx = cx[:, None] - bx[None, k:k + 64]
                dy = cy[:, None] - by[None, k:k + 64]
                hit |= ((dx * dx + dy * dy) <= r2).any(axis=1)
            cx, cy = cx[~hit], cy[~hit]
        if cx.size > cap:
            break
        out.append((cx, cy))
        xs, ys = cx, cy
    return out


def ring_wall(*, width: float = 6, bullets: int = 64, hit_radius: float = 0.5, speed: float = 3.0,
              player_speed: float = 2.0, start_y: float = -1.5, name: str = "Ring wall") -> dict[str, Any]:
    """A solid ring fired from the middle of a small square arena: unfair, with known truth.

    The ring expands past every point of the arena (its bullets despawn only outside it), and
    on the arena's farthest point from the boss (a corner, ``width / sqrt 2`` away) two
    neighbouring bullets are ``2 pi R / bullets`` apart; the generator keeps that at most the
    hit radius, so no point between them is farther than the hit radius from both: a point
    player cannot slip through, and every position is hit when the ring passes it. The ring
    moves at most 0.05 units a tick (far less than the hit radius), so it cannot skip over a
    position either. The width is cut down until the spacing rule holds.
    """
    import math

    while width > 4 and 2 * math.pi * (width / math.sqrt(2)) / bullets > hit_radius:
        width -= 0.5
    doc = falling_wall()
    doc["name"] = name
    doc["scenario"].update(scenario_id="ring_wall", arena_width=width, arena_height=width, duration_seconds=5)
    doc["player"].update(move_speed=player_speed, hit_radius=hit_radius, graze_radius=round(hit_radius + 0.3, 2),
                         start_position={"x": 0, "y": start_y})
    doc["boss"]["position"] = {"x": 0, "y": 0}
    doc["phases"][0]["pattern"].update(type="ring", bullets_per_wave=bullets, wave_interval_ms=2000,
                                       bullet_speed=speed, bullet_lifetime_seconds=8)
    return doc


def edge_gap(*, hit_radius: float = 2, height: float = 20, start_x: float = -1,
             name: str = "Edge gap") -> dict[str, Any]:
    """A 4-wide arena with a column of bullets falling straight down beside a lane exactly as
    wide as the hit radius: fair, with known truth.

    The boss sits on the top edge at ``x = 2 - 2 r`` and fires one bullet straight down every
    0.1 s (0.6 units apart, a solid column of radius ``r``); the column covers ``x <= 2 - r``
    (and, as ``2 - 2 r - r <= -2`` for ``r >= 4/3``, everything left of it), so the only safe
    places are ``x > 2 - r``: a lane of width ``r`` at the right edge. The player starts at the
    bottom at ``start_x`` (by default 1 unit inside the column's reach) and is slow (0.5 units/s):
    it must start walking right about 2 s before the first bullet arrives (3.3 s in), long
    before any bullet is near. Walking right to the edge and standing there survives the whole
    fight; standing still does not (``tests/analysis/test_known_truth.py`` replays both).
    """
    doc = falling_wall(move_speed=0.5, hit_radius=hit_radius, graze_radius=hit_radius + 0.5,
                       start_position={"x": start_x, "y": -height / 2})
    doc["name"] = name
    doc["scenario"].update(scenario_id="edge_gap", arena_height=height, duration_seconds=10)
    doc["targets"]["min_survival_seconds"] = 10
    doc["boss"]["position"] = {"x": round(2 - 2 * hit_radius, 6), "y": height / 2}
    doc["phases"][0]["pattern"].update(wave_interval_ms=100, bullet_speed=6,
                                       bullet_lifetime_seconds=round(height / 6 + 0.5, 1))
    return doc
