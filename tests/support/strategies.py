"""Hypothesis strategies for random VALID ``gcv.bullet_hell/1`` configs.

Public API (reused by the simulator property tests; ``from tests.support.strategies import valid_configs``):

* :func:`valid_config_data` -- plain JSON data (dicts), as a file would hold it;
* :func:`valid_configs` -- the same as validated :class:`BulletHellConfig` models;
* :func:`decimals` -- a bounded decimal with at most six decimal places.

Every config drawn passes all four validation layers against itself: field ranges come
from the models, and the cross-field rules are satisfied by construction (unique ids,
first trigger 1.0, strictly decreasing triggers, targets within limits, graze > hit,
positions inside the arena, aimed fans <= 180 degrees, petals with >= 2 layers,
bidirectional only on rotating spirals/petals). The derived limits are met by giving each
phase a budget of ``limits.max_alive_bullets // phase_count`` bullets: a phase keeps at most
``slots * ceil(max(lifetime, 1 s) / interval)`` bullets alive, so the sum over phases bounds
both the alive count (whatever the phase timing) and the spawn rate. Multi-layer rings,
spirals and petals use a 360 degree spread so their layers interleave instead of
colliding; the rare bidirectional spiral whose two arms cross exactly (a duplicate bullet)
is filtered out with the rules layer's own duplicate check.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache, partial
from typing import Any

from hypothesis import strategies as st

from gcv.contract.models import PATTERN_TYPES, BulletHellConfig
from gcv.sim.fixed import ms_to_ticks, seconds_to_ticks
from gcv.sim.program import compile_program
from gcv.sim.schedule import emission_schedule

ID_PATTERN = r"[a-z0-9_\-]{1,32}"
_ONE_SECOND_TICKS = 60


def _to_number(k: int, scale: int) -> float | int:
    if scale == 1:
        return k
    return float(Fraction(k, scale))


@lru_cache(maxsize=4096)
def decimals(lo: float | int | Fraction, hi: float | int | Fraction, *, places: int = 6,
             exclude_lo: bool = False) -> st.SearchStrategy[float | int]:
    """A number in [lo, hi] (or (lo, hi]) written with at most ``places`` decimals.

    Whole numbers come out as ``int`` (JSON ``36`` is a valid decimal too). Strategies are
    cached: building and validating a fresh one per draw dominated generation time.
    """
    low = Fraction(repr(lo)) if isinstance(lo, float) else Fraction(lo)
    high = Fraction(repr(hi)) if isinstance(hi, float) else Fraction(hi)
    options = []
    for q in range(places + 1):
        scale = 10 ** q
        k_lo, k_hi = math.ceil(low * scale), math.floor(high * scale)
        if exclude_lo and Fraction(k_lo, scale) == low:
            k_lo += 1
        if k_lo <= k_hi:
            options.append(st.integers(k_lo, k_hi).map(partial(_to_number, scale=scale)))
    if not options:
        raise ValueError(f"no decimal with <= {places} places in range {lo}..{hi}")
    return st.one_of(options)


def _exact(value: float | int) -> Fraction:
    return Fraction(repr(float(value))) if isinstance(value, float) else Fraction(value)


@st.composite
def _vec_inside(draw: Any, width: float | int, height: float | int) -> dict[str, Any]:
    hx, hy = _exact(width) / 2, _exact(height) / 2
    return {"x": draw(decimals(-hx, hx)), "y": draw(decimals(-hy, hy))}


@st.composite
def _pattern(draw: Any, budget: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(PATTERN_TYPES))
    rotation = draw(st.one_of(st.just(0), decimals(-180, 180)))
    if kind == "petal":
        layers = draw(st.integers(2, 4))
    elif kind == "aimed_fan":
        layers = 1
    else:
        layers = draw(st.integers(1, 4))
    if kind == "aimed_fan":
        spread: float | int = draw(decimals(1, 180))
    elif kind == "petal" or (kind in ("ring", "spiral") and layers > 1):
        spread = 360
    else:
        spread = draw(st.one_of(st.just(360), decimals(1, 360)))
    rotating = kind in ("spiral", "petal") and _exact(rotation) != 0
    bidirectional = draw(st.booleans()) if rotating else False
    interval_ms = draw(st.integers(100, 5000))
    lifetime = draw(decimals(0.5, 12))

    def waves_alive() -> int:
        interval = max(1, ms_to_ticks(interval_ms))
        life = max(_ONE_SECOND_TICKS, seconds_to_ticks(lifetime))
        return -(-life // interval)

    directions = 2 if bidirectional else 1
    if budget // (directions * layers * waves_alive()) == 0:
        interval_ms, lifetime = 5000, min(_exact(lifetime), 5)
        lifetime = float(lifetime) if lifetime.denominator != 1 else int(lifetime)
    if budget // (directions * layers * waves_alive()) == 0:
        bidirectional, directions = False, 1
        if kind == "petal" and budget < 2:
            kind = "spiral"
        layers = 2 if kind == "petal" else 1
    cap = budget // (directions * layers * waves_alive())
    assert cap >= 1
    return {
        "type": kind,
        "bullets_per_wave": draw(st.integers(1, min(64, cap))),
        "wave_interval_ms": interval_ms,
        "bullet_speed": draw(decimals(0.5, 12)),
        "bullet_lifetime_seconds": lifetime,
        "rotation_per_wave_deg": rotation,
        "spread_angle_deg": spread,
        "layer_count": layers,
        "bidirectional": bidirectional,
    }


@st.composite
def _raw_config(draw: Any, max_phases: int = 6) -> dict[str, Any]:
    width, height = draw(decimals(4, 100)), draw(decimals(4, 100))
    duration = draw(decimals(5, 600))
    hit = draw(decimals(0.01, 2))
    graze_lo = max(Fraction(2, 100), _exact(hit))
    graze = draw(decimals(graze_lo, 5, exclude_lo=graze_lo == _exact(hit)))
    limit_alive = draw(st.integers(1, 350))
    limit_fps = draw(decimals(1, 240))
    limit_hits = draw(st.integers(0, 99))
    count = draw(st.integers(1, min(max_phases, limit_alive)))
    ids = draw(st.lists(st.from_regex(ID_PATTERN, fullmatch=True), min_size=count, max_size=count,
                        unique=True))
    micro = sorted(draw(st.lists(st.integers(1, 999_999), min_size=count - 1, max_size=count - 1,
                                 unique=True)), reverse=True)
    triggers: list[float | int] = [1.0, *(float(Fraction(m, 1_000_000)) for m in micro)]
    budget = limit_alive // count
    phases = [{
        "phase_id": ids[i],
        "title": draw(st.text(min_size=1, max_size=80)),
        "trigger_boss_hp_below": triggers[i],
        "pattern": draw(_pattern(budget)),
    } for i in range(count)]
    return {
        "contract": "gcv.bullet_hell/1",
        "name": draw(st.text(min_size=1, max_size=120)),
        "scenario": {
            "scenario_id": draw(st.from_regex(r"[a-z0-9_\-]{1,64}", fullmatch=True)),
            "duration_seconds": duration,
            "arena_width": width,
            "arena_height": height,
        },
        "player": {
            "max_health": draw(st.integers(1, 99)),
            "move_speed": draw(decimals(0.5, 30)),
            "focus_multiplier": draw(decimals(0.05, 1)),
            "hit_radius": hit,
            "graze_radius": graze,
            "start_position": draw(_vec_inside(width, height)),
            "invulnerability_seconds": draw(decimals(0, 5)),
            "auto_fire_damage": draw(st.integers(1, 1_000_000)),
            "auto_fire_interval_seconds": draw(decimals(0.016667, 10)),
        },
        "boss": {
            "boss_id": draw(st.from_regex(r"[a-z0-9_\-]{1,64}", fullmatch=True)),
            "max_health": draw(st.integers(1, 100_000_000)),
            "position": draw(_vec_inside(width, height)),
        },
        "phases": phases,
        "limits": {"max_alive_bullets": limit_alive, "min_low_fps": limit_fps,
                   "max_player_hits": limit_hits},
        "targets": {
            "max_alive_bullets": draw(st.integers(1, limit_alive)),
            "max_player_hits": draw(st.integers(0, limit_hits)),
            "min_survival_seconds": draw(decimals(0, duration)),
            "min_low_fps": draw(decimals(limit_fps, 240)),
            "require_all_phases": draw(st.booleans()),
        },
    }


def _no_duplicate_bullets(data: dict[str, Any]) -> bool:
    if not any(p["pattern"]["bidirectional"] for p in data["phases"]):
        return True  # one rotation sign per phase: duplicate-free by construction
    from gcv.validation.rules_layer import duplicate_bullets

    program = compile_program(BulletHellConfig.model_validate(data))
    return not duplicate_bullets(program, emission_schedule(program))


def valid_config_data(max_phases: int = 6) -> st.SearchStrategy[dict[str, Any]]:
    """Random valid configs as plain JSON data."""
    return _raw_config(max_phases).filter(_no_duplicate_bullets)


def valid_configs(max_phases: int = 6) -> st.SearchStrategy[BulletHellConfig]:
    """Random valid configs as validated models."""
    return valid_config_data(max_phases).map(BulletHellConfig.model_validate)
