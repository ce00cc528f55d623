"""Compile a validated config into the integer-only sim program that every engine consumes.

The program is the hand-off point between Python and the engines: every decimal of the
config is converted here, once, exactly (see ``gcv.sim.fixed``), and the per-bullet
emission slots (angle offset, speed, rotation sign) are precomputed so that the ports only
add integers. Engines never parse a decimal and never re-derive a slot.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from gcv.contract.canonical import config_hash, content_hash
from gcv.contract.models import BulletHellConfig, Pattern
from gcv.sim import fixed
from gcv.sim.fixed import ONE, TURN, deg_to_angle, exact, round_half_away
from gcv.contract.patterns import PATTERNS, ROTATING_KINDS

PROGRAM_ID = "gcv.sim_program/1"
ROTATING = ROTATING_KINDS  # the other kinds ignore rotation_per_wave_deg
PATTERN_CODES = {name: spec.code for name, spec in PATTERNS.items()}  # ring 0 ... scatter 4

# Frame-time model (microseconds): fixed cost + per alive bullet + per collision check.
FRAME_MODEL = {"fixed_us": 9000, "per_bullet_us": 20, "per_check_us": 6}

# Bot skills: decide every `reaction_ticks`, look `lookahead_ticks` ahead, and with
# probability mistake_num/mistake_den take a random move instead of the best one.
BOT_SKILLS: dict[str, dict[str, int]] = {
    "novice": {"reaction_ticks": 10, "lookahead_ticks": 6, "mistake_num": 1, "mistake_den": 6},
    "average": {"reaction_ticks": 5, "lookahead_ticks": 10, "mistake_num": 1, "mistake_den": 15},
    "expert": {"reaction_ticks": 2, "lookahead_ticks": 16, "mistake_num": 1, "mistake_den": 50},
}
BOT_CLEARANCE_CAP = round_half_away(Fraction(5, 2) * ONE) ** 2  # (2.5 units)^2, Q32
BOT_HOME_SHIFT = 4  # home penalty = squared distance to the start position >> 4

# Scripted Lissajous path: x = sin(0.72 t) * W * 0.34, y = start_y + sin(0.39 t) * H * 0.1.
SCRIPTED_RATE_X = 0.72  # rad/s
SCRIPTED_RATE_Y = 0.39
SCRIPTED_AMP_X = Fraction(34, 100)
SCRIPTED_AMP_Y = Fraction(10, 100)
DESPAWN_MARGIN = Fraction(65, 100)  # bullets leave beyond 0.65 x width / height


def _rate_q16(rad_per_second: float) -> int:
    """Angle units per tick in Q16 (the only place a float constant enters the program)."""
    return round_half_away(Fraction(rad_per_second * TURN / (2 * math.pi) / fixed.TICK_HZ) * ONE)


def _slots(pattern: Pattern) -> list[list[int]]:
    """[angle_offset, speed_q16_per_tick, rotation_sign] for every bullet of one wave."""
    return [list(slot) for slot in _slots_of(pattern.type, pattern.bullets_per_wave, pattern.layer_count,
                                              exact(pattern.spread_angle_deg), exact(pattern.bullet_speed),
                                              pattern.bidirectional)]


@lru_cache(maxsize=512)
def _slots_of(kind: str, n: int, layers: int, spread: Fraction, base_speed: Fraction,
              bidirectional: bool) -> tuple[tuple[int, int, int], ...]:
    """The slots of every pattern with these fields (the only ones slots depend on), exact.

    Cached: one ``gcv run`` compiles the same few patterns a couple of dozen times (each
    validation, run and frame), and a 512-slot pattern costs milliseconds in exact arithmetic."""
    layout = PATTERNS[kind].slots
    step = spread / n
    directions = (1, -1) if bidirectional else (1,)
    slots: list[tuple[int, int, int]] = []
    for sign in directions:
        for layer in range(layers):
            layer_offset = Fraction(layer * 180, n * layers)
            speed = base_speed
            if layout == "petal":
                speed = base_speed * (1 + Fraction(16, 100) * layer)
            speed_q16 = round_half_away(speed * ONE / fixed.TICK_HZ)
            for i in range(n):
                if layout in ("arc", "petal"):
                    deg = 270 - spread / 2 + step / 2 + layer_offset + i * step
                    if sign < 0:
                        deg += step / 2
                    offset = deg_to_angle(deg)
                    if layout == "petal":
                        wobble_angle = round_half_away(Fraction(i * TURN, n))
                        offset += (deg_to_angle(12) * fixed.isin(wobble_angle)) >> 16
                elif layout == "fan":
                    fan = spread * i / (n - 1) - spread / 2 if n > 1 else Fraction(0)
                    offset = deg_to_angle(fan + layer_offset)
                else:  # scatter layout: offset is the left edge of the spread; a draw adds [0, span)
                    offset = deg_to_angle(-spread / 2)
                slots.append((offset, speed_q16, sign))
    return tuple(slots)


def compile_program(config: BulletHellConfig) -> dict[str, Any]:
    """Config -> sim program (plain JSON data). The config must already be validated."""
    s, p, b = config.scenario, config.player, config.boss
    width, height = exact(s.arena_width), exact(s.arena_height)
    speed = fixed.speed_to_q16_per_tick(p.move_speed)
    phases = []
    for phase in config.phases:
        pat = phase.pattern
        phases.append({
            "phase_id": phase.phase_id,
            "trigger_micro": round_half_away(exact(phase.trigger_boss_hp_below) * 1_000_000),
            "pattern": pat.type,
            "pattern_code": PATTERN_CODES[pat.type],
            "bullets_per_wave": pat.bullets_per_wave,
            "wave_interval_ticks": max(1, fixed.ms_to_ticks(pat.wave_interval_ms)),
            "lifetime_ticks": max(1, fixed.seconds_to_ticks(pat.bullet_lifetime_seconds)),
            "rotation_per_wave": deg_to_angle(pat.rotation_per_wave_deg) if pat.type in ROTATING else 0,
            "aim": PATTERNS[pat.type].aims,
            "scatter_span": deg_to_angle(pat.spread_angle_deg) if PATTERNS[pat.type].draws else 0,
            "slots": _slots(pat),
        })
    bots = {}
    for name, skill in BOT_SKILLS.items():
        bots[name] = {
            "reaction_ticks": skill["reaction_ticks"],
            "lookahead_ticks": skill["lookahead_ticks"],
            "mistake_threshold": (skill["mistake_num"] << 32) // skill["mistake_den"],
        }
    program: dict[str, Any] = {
        "program": PROGRAM_ID,
        "config_hash": config_hash(config),
        "tick_hz": fixed.TICK_HZ,
        "duration_ticks": fixed.seconds_to_ticks(s.duration_seconds),
        "arena": {
            "half_width": round_half_away(width * ONE / 2),
            "half_height": round_half_away(height * ONE / 2),
            "despawn_x": round_half_away(width * DESPAWN_MARGIN * ONE),
            "despawn_y": round_half_away(height * DESPAWN_MARGIN * ONE),
        },
        "player": {
            "max_health": p.max_health,
            "speed": speed,
            "focus_speed": round_half_away(exact(p.move_speed) * exact(p.focus_multiplier) * ONE / fixed.TICK_HZ),
            "hit_radius": fixed.to_q16(p.hit_radius),
            "graze_radius": fixed.to_q16(p.graze_radius),
            "start_x": fixed.to_q16(p.start_position.x),
            "start_y": fixed.to_q16(p.start_position.y),
            "invulnerability_ticks": fixed.seconds_to_ticks(p.invulnerability_seconds),
            "auto_fire_damage": p.auto_fire_damage,
            "auto_fire_interval_ticks": max(1, fixed.seconds_to_ticks(p.auto_fire_interval_seconds)),
        },
        "boss": {"max_health": b.max_health, "x": fixed.to_q16(b.position.x), "y": fixed.to_q16(b.position.y)},
        "phases": phases,
        "scripted": {
            "rate_x": _rate_q16(SCRIPTED_RATE_X),
            "rate_y": _rate_q16(SCRIPTED_RATE_Y),
            "amp_x": round_half_away(width * SCRIPTED_AMP_X * ONE),
            "amp_y": round_half_away(height * SCRIPTED_AMP_Y * ONE),
        },
        "bot": {"skills": bots, "clearance_cap": BOT_CLEARANCE_CAP, "home_shift": BOT_HOME_SHIFT},
        "frame_model": dict(FRAME_MODEL),
        "state_hash_interval": 60,
    }
    return program


def program_hash(program: dict[str, Any]) -> str:
    return content_hash(program)
