"""Compiling a config into the integer program (gcv.sim.program): every decimal converted once,
exactly, and the per-bullet slots precomputed."""

from __future__ import annotations

from gcv.contract.canonical import config_hash, content_hash
from gcv.sim.fixed import ONE, TURN
from gcv.sim.program import BOT_SKILLS, PATTERN_CODES, PROGRAM_ID, compile_program, program_hash
from tests.support.evalutil import base, variant


def test_the_baseline_compiles_to_exact_integers() -> None:
    config = base()
    program = compile_program(config)
    assert program["program"] == PROGRAM_ID and program["config_hash"] == config_hash(config)
    assert program["tick_hz"] == 60 and program["duration_ticks"] == round(config.scenario.duration_seconds * 60)
    assert program["arena"]["half_width"] == round(config.scenario.arena_width * ONE / 2)
    phase = program["phases"][0]
    pattern = config.phases[0].pattern
    assert pattern.type == "ring" and pattern.bullets_per_wave == 16 and pattern.wave_interval_ms == 1200
    assert phase["wave_interval_ticks"] == 72 and phase["lifetime_ticks"] == round(pattern.bullet_lifetime_seconds * 60)
    assert phase["pattern_code"] == PATTERN_CODES["ring"] == 0
    # a ring of 16 at 3 units/s: 16 slots a sixteenth of a turn apart, 3 * 65536 / 60 = 3276.8 -> 3277
    angles = [s[0] for s in phase["slots"]]
    assert len(angles) == 16 and {b - a for a, b in zip(angles, angles[1:])} == {TURN // 16}
    assert {s[1] for s in phase["slots"]} == {3277}


def test_bidirectional_doubles_the_slots_with_the_other_rotation_sign() -> None:
    single = compile_program(variant(base(), "phase_1", type="spiral", rotation_per_wave_deg=10))["phases"][0]
    both = compile_program(variant(base(), "phase_1", type="spiral", rotation_per_wave_deg=10,
                                   bidirectional=True))["phases"][0]
    assert len(both["slots"]) == 2 * len(single["slots"])
    assert {s[2] for s in both["slots"]} == {1, -1} and {s[2] for s in single["slots"]} == {1}
    assert single["rotation_per_wave"] != 0


def test_rotation_counts_only_for_rotating_patterns() -> None:
    ring = compile_program(variant(base(), "phase_1", rotation_per_wave_deg=10))["phases"][0]
    assert ring["rotation_per_wave"] == 0


def test_bot_skills_and_the_program_hash() -> None:
    program = compile_program(base())
    assert set(program["bot"]["skills"]) == set(BOT_SKILLS) == {"novice", "average", "expert"}
    assert program["bot"]["skills"]["novice"]["mistake_threshold"] == (1 << 32) // 6
    assert program_hash(program) == content_hash(program)
    assert compile_program(base()) == program  # deterministic
    assert program_hash(compile_program(variant(base(), "phase_1", bullet_speed=2.5))) != program_hash(program)
