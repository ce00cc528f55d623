"""Repair calculators: exact figures, range clamps, refusals, and the designer's intent kept."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gcv.contract.goal import Goal, ParameterEdit
from gcv.repair.calculators import PatternLoad, apply_repair, spawn_rate
from gcv.repair.calculators import (
    danger_factor, floor_hundredths, increase_wave_interval, reduce_bullet_lifetime,
    reduce_bullet_speed, reduce_bullets_per_wave, reduce_pattern_layers,
)
from gcv.sim.fixed import exact
from tests.support.evalutil import base, edit, base_telemetry, evaluation, over_budget, too_many_hits, variant

F = Fraction


def repair(intent, *, phase="phase_2", telemetry=None, candidate=None, goal=None):
    cand = candidate or base()
    ev = evaluation(telemetry if telemetry is not None else over_budget(420, phase), candidate=cand,
                    goal=goal)
    return apply_repair(candidate=cand, intent=intent, phase_id=phase, evaluation=ev, goal=goal,
                        baseline=base())


def pattern_of(outcome, phase="phase_2"):
    return outcome.candidate.phase(phase).pattern


# --- the pure formulas --------------------------------------------------------------------

def test_bullets_per_wave_formula():
    assert reduce_bullets_per_wave(24, F(350, 420)) == 20
    assert reduce_bullets_per_wave(12, F(350, 351)) == 11  # at least one fewer
    assert reduce_bullets_per_wave(2, F(350, 3000)) == 1  # never below 1
    assert reduce_bullets_per_wave(1, F(1, 2)) == 1


def test_wave_interval_formula():
    assert increase_wave_interval(500, F(350, 420)) == 600
    assert increase_wave_interval(700, F(350, 351)) == 750  # at least +50 ms
    assert increase_wave_interval(4990, F(350, 420)) == 5000  # never above 5000
    assert increase_wave_interval(700, F(2, 3)) == 1050  # exact: no 1050.0000001 -> 1051
    assert increase_wave_interval(700, F(101, 110)) == 763  # ceil(762.37...)


def test_lifetime_formula():
    assert reduce_bullet_lifetime(exact(5.2), F(350, 420)) == F(433, 100)
    assert reduce_bullet_lifetime(exact(5.2), F(350, 351)) == F(495, 100)  # at least -0.25 s
    assert reduce_bullet_lifetime(exact(0.6), F(1, 2)) == F(1, 2)  # never below 0.5
    # floor(100 * 1.14 * 1/2) = 57 exactly; binary floating point gives 56.99999999999999
    assert reduce_bullet_lifetime(exact(1.14), F(1, 2)) == F(57, 100)


def test_speed_formula_and_danger_factor():
    assert danger_factor(5, 3) == F(2, 3)
    assert danger_factor(20, 3) == F(3, 5)  # clamped to 0.6
    assert danger_factor(3, 3) == F(9, 10)  # clamped to 0.9
    assert reduce_bullet_speed(exact(3.6), F(2, 3)) == F(12, 5)
    assert reduce_bullet_speed(exact(3.6), F(1, 10)) == F(216, 100)  # factor clamped to 0.6
    assert reduce_bullet_speed(exact(3.6), F(1)) == F(324, 100)  # factor clamped to 0.9
    assert reduce_bullet_speed(exact(0.55), F(2, 3)) == F(1, 2)  # never below 0.5
    # floor(100 * 2.05 * 0.6) = 123 exactly; binary floating point gives 122
    assert reduce_bullet_speed(exact(2.05), F(3, 5)) == F(123, 100)


def test_layers_and_floor_helpers():
    assert reduce_pattern_layers(3) == 2 and reduce_pattern_layers(1) == 1
    assert floor_hundredths(F(-1, 1000)) == F(-1, 100)  # floor, toward minus infinity
    assert floor_hundredths(F(43333, 10000)) == F(433, 100)


def test_config_level_spawn_rate():
    b = base()
    assert spawn_rate(b.phase("phase_2").pattern) == F(12 * 60, 42)
    load = PatternLoad.of(b.phase("phase_3").pattern)  # petal, 8 bullets x 2 layers, 850 ms
    assert (load.slots, load.interval_ticks, load.lifetime_ticks) == (16, 51, 300)
    bidir = PatternLoad.of(variant(b, "phase_2", bidirectional=True).phase("phase_2").pattern)
    assert bidir.slots == 24


# --- apply_repair: load failures ------------------------------------------------------------

def test_reduce_bullets_per_wave_on_the_failed_phase():
    cand = variant(base(), "phase_2", bullets_per_wave=24, wave_interval_ms=500)
    out = repair("REDUCE_BULLETS_PER_WAVE", candidate=cand)
    assert out.ok and out.error is None
    assert [(c.path, c.before, c.after) for c in out.changes] == [
        ("$.phases[1].pattern.bullets_per_wave", 24, 20)]
    assert "floor(24 * 5/6)" in out.explanation and "420" in out.explanation
    assert out.detail["ratio"] == "5/6" and out.detail["driven_by"] == "peak_alive_bullets"
    # nothing else moved
    before, after = cand.model_dump(), out.candidate.model_dump()
    after["phases"][1]["pattern"]["bullets_per_wave"] = 24
    assert before == after


def test_increase_wave_interval():
    cand = variant(base(), "phase_2", bullets_per_wave=24, wave_interval_ms=500)
    out = repair("INCREASE_WAVE_INTERVAL", candidate=cand)
    assert pattern_of(out).wave_interval_ms == 600
    assert pattern_of(repair("INCREASE_WAVE_INTERVAL")).wave_interval_ms == 840  # ceil(700*420/350)
    near = repair("INCREASE_WAVE_INTERVAL", telemetry=over_budget(351))
    assert pattern_of(near).wave_interval_ms == 750


def test_reduce_lifetime():
    out = repair("REDUCE_BULLET_LIFETIME")
    assert out.changes[0].path == "$.phases[1].pattern.bullet_lifetime_seconds"
    assert (out.changes[0].before, out.changes[0].after) == (5.2, 4.33)
    cand = variant(base(), "phase_2", bullet_lifetime_seconds=0.6)
    assert pattern_of(repair("REDUCE_BULLET_LIFETIME", candidate=cand)).bullet_lifetime_seconds == 0.5


def test_reduce_layers():
    cand = variant(base(), "phase_2", layer_count=3)
    out = repair("REDUCE_PATTERN_LAYERS", candidate=cand)
    assert [(c.path, c.before, c.after) for c in out.changes] == [("$.phases[1].pattern.layer_count", 3, 2)]


def test_low_fps_scales_by_actual_over_target():
    tel = edit(base_telemetry(), low_fps=50.5)  # blamed on phase_3, the highest peak
    assert pattern_of(repair("INCREASE_WAVE_INTERVAL", phase="phase_3", telemetry=tel), "phase_3"
                      ).wave_interval_ms == 926  # ceil(850 * 55 / 50.5)
    assert pattern_of(repair("REDUCE_BULLET_LIFETIME", phase="phase_3", telemetry=tel), "phase_3"
                      ).bullet_lifetime_seconds == 4.59  # floor(100 * 5 * 50.5 / 55) / 100


def test_the_largest_miss_drives_the_ratio():
    tel = edit(over_budget(420, "phase_3"), low_fps=27.5)  # r = 350/420 vs 27.5/55 = 1/2
    out = repair("REDUCE_BULLETS_PER_WAVE", phase="phase_3", telemetry=tel)
    assert pattern_of(out, "phase_3").bullets_per_wave == 4 and out.detail["driven_by"] == "low_fps"


# --- apply_repair: danger failures ---------------------------------------------------------

def test_reduce_speed_for_hits():
    out = repair("REDUCE_BULLET_SPEED", telemetry=too_many_hits(5))
    assert [(c.path, c.before, c.after) for c in out.changes] == [("$.phases[1].pattern.bullet_speed", 3.6, 2.4)]
    assert pattern_of(repair("REDUCE_BULLET_SPEED", telemetry=too_many_hits(20))).bullet_speed == 2.16
    assert pattern_of(repair("REDUCE_BULLET_SPEED", telemetry=too_many_hits(4))).bullet_speed == 2.88
    fast = variant(base(), "phase_2", bullet_speed=2.05)
    assert pattern_of(repair("REDUCE_BULLET_SPEED", candidate=fast, telemetry=too_many_hits(20))
                      ).bullet_speed == 1.23


def test_hits_scale_the_other_danger_intents_by_the_clamped_factor():
    tel = too_many_hits(5)  # factor 2/3
    assert pattern_of(repair("REDUCE_BULLETS_PER_WAVE", telemetry=tel)).bullets_per_wave == 8
    assert pattern_of(repair("INCREASE_WAVE_INTERVAL", telemetry=tel)).wave_interval_ms == 1050


# --- refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("intent", "pattern", "telemetry"), [
    ("REDUCE_BULLETS_PER_WAVE", {"bullets_per_wave": 1}, None),
    ("INCREASE_WAVE_INTERVAL", {"wave_interval_ms": 5000}, None),
    ("REDUCE_BULLET_LIFETIME", {"bullet_lifetime_seconds": 0.5}, None),
    ("REDUCE_BULLET_SPEED", {"bullet_speed": 0.5}, "hits"),
])
def test_values_at_their_bound_are_refused(intent, pattern, telemetry):
    cand = variant(base(), "phase_2", **pattern)
    out = repair(intent, candidate=cand, telemetry=too_many_hits(5) if telemetry else None)
    assert not out.ok and out.candidate is None and out.changes == []
    assert "already at its bound" in out.error


def test_layer_refusals():
    out = repair("REDUCE_PATTERN_LAYERS")
    assert not out.ok and "1 layer" in out.error
    out = repair("REDUCE_PATTERN_LAYERS", phase="phase_3")  # petal at 2 layers
    assert not out.ok and "petal" in out.error


def test_an_explicit_goal_edit_is_never_undone():
    g = Goal(target_phase_ids=["phase_2"], edits=[ParameterEdit(field="bullets_per_wave", operation="scale", value=2)])
    out = repair("REDUCE_BULLETS_PER_WAVE", goal=g)
    assert not out.ok and "explicitly edits bullets_per_wave" in out.error
    assert repair("INCREASE_WAVE_INTERVAL", goal=g).ok
    layers = Goal(target_phase_ids=["phase_2"], edits=[ParameterEdit(field="layer_count", operation="set", value=3)])
    out = repair("REDUCE_PATTERN_LAYERS", candidate=variant(base(), "phase_2", layer_count=3), goal=layers)
    assert not out.ok and "explicitly edits layer_count" in out.error
    # the edit concerns phase_1 only: phase_2 may be repaired
    other = Goal(target_phase_ids=["phase_1"], edits=[ParameterEdit(field="bullets_per_wave", operation="set", value=20)])
    assert repair("REDUCE_BULLETS_PER_WAVE", goal=other).ok


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"phase": None}, "no phase named"),
    ({"phase": "phase_9"}, "no phase 'phase_9'"),
    ({"phase": "phase_1"}, "no failed check on phase_1"),
])
def test_repairs_act_only_on_a_failed_phase(kwargs, message):
    phase = kwargs["phase"]
    cand = base()
    ev = evaluation(over_budget(420, "phase_2"))
    out = apply_repair(candidate=cand, intent="REDUCE_BULLETS_PER_WAVE", phase_id=phase,
                       evaluation=ev, goal=None, baseline=base())
    assert not out.ok and message in out.error


def test_speed_is_not_a_load_repair_and_stop_is_not_a_repair():
    assert "no failed check on phase_2 calls for REDUCE_BULLET_SPEED" in repair("REDUCE_BULLET_SPEED").error
    assert "not a repair intent" in repair("STOP").error


# --- a requested pressure increase survives every repair -----------------------------------

INCREASE = Goal(target_phase_ids=["phase_2"], bidirectional=True, pressure="increase")


def test_a_repair_that_would_drop_below_the_baseline_spawn_rate_is_refused():
    cand = variant(base(), "phase_2", bidirectional=True, bullets_per_wave=7)  # 14 slots vs 12
    out = repair("REDUCE_BULLETS_PER_WAVE", candidate=cand, goal=INCREASE)
    assert not out.ok and "pressure" in out.error and "spawn rate" in out.error
    # without the pressure intent the same repair goes through
    assert pattern_of(repair("REDUCE_BULLETS_PER_WAVE", candidate=cand)).bullets_per_wave == 5
    decrease = Goal(target_phase_ids=["phase_2"], pressure="decrease")
    assert repair("REDUCE_BULLETS_PER_WAVE", candidate=cand, goal=decrease).ok


def test_a_repair_is_limited_to_the_intent_bound():
    cand = variant(base(), "phase_2", bidirectional=True, bullets_per_wave=8)  # 16 slots
    out = repair("REDUCE_BULLETS_PER_WAVE", candidate=cand, goal=INCREASE, telemetry=over_budget(700))
    assert out.ok and pattern_of(out).bullets_per_wave == 7  # formula gives 4; 7*2 = 14 > 12
    assert out.detail["formula_value"] == 4 and out.detail["intent_bound"] == 7
    assert "limited to 7" in out.explanation


def test_interval_is_limited_to_keep_the_spawn_rate():
    cand = variant(base(), "phase_2", bullets_per_wave=13)  # 13 slots per 42 ticks vs 12 per 42
    out = repair("INCREASE_WAVE_INTERVAL", candidate=cand, goal=INCREASE.model_copy(update={"bidirectional": None}))
    # formula: 840 ms (50 ticks); 13 * 42 > 12 * T needs T <= 45 ticks, i.e. ms <= 758
    assert out.ok and pattern_of(out).wave_interval_ms == 758


def test_lifetime_is_limited_to_keep_the_alive_capacity():
    cand = variant(base(), "phase_2", bidirectional=True)  # 24 slots vs 12, lifetime 312 ticks
    out = repair("REDUCE_BULLET_LIFETIME", candidate=cand, goal=INCREASE, telemetry=over_budget(700))
    # formula 2.6 s = 156 ticks: 24 * 156 == 12 * 312, not above; 2.61 s = 157 ticks is
    assert out.ok and pattern_of(out).bullet_lifetime_seconds == 2.61


def test_layers_refused_when_one_fewer_layer_breaks_the_pressure():
    cand = variant(base(), "phase_2", layer_count=2, bullets_per_wave=7)  # 14 slots; 1 layer: 7
    out = repair("REDUCE_PATTERN_LAYERS", candidate=cand,
                 goal=Goal(target_phase_ids=["phase_2"], pressure="increase"))
    assert not out.ok and "spawn rate" in out.error


def test_slower_bullets_keep_the_pressure():
    cand = variant(base(), "phase_2", bidirectional=True, bullets_per_wave=7)
    out = repair("REDUCE_BULLET_SPEED", candidate=cand, goal=INCREASE, telemetry=too_many_hits(5))
    assert out.ok and pattern_of(out).bullet_speed == 2.4


def test_the_guard_applies_only_to_goal_target_phases():
    cand = variant(base(), "phase_2", bidirectional=True, bullets_per_wave=7)
    elsewhere = Goal(target_phase_ids=["phase_1"], pressure="increase")
    assert pattern_of(repair("REDUCE_BULLETS_PER_WAVE", candidate=cand, goal=elsewhere)).bullets_per_wave == 5


def test_a_zero_fps_report_clamps_instead_of_dividing_by_zero():
    tel = edit(base_telemetry(), low_fps=0)
    out = repair("INCREASE_WAVE_INTERVAL", phase="phase_3", telemetry=tel)
    assert out.ok and pattern_of(out, "phase_3").wave_interval_ms == 5000
    assert pattern_of(repair("REDUCE_BULLETS_PER_WAVE", phase="phase_3", telemetry=tel), "phase_3").bullets_per_wave == 1
