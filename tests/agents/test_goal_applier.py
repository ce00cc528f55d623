"""The goal applier: exact arithmetic, one rounding half away from zero, no silent clamping."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcv.agents.base import BlockIssue
from gcv.agents.goal_applier import (
    DEFAULT_ROTATION_DEG,
    PATTERN_RANGES,
    PRESSURE_STEPS,
    GoalRangeError,
    apply_goal,
    apply_goal_with_notes,
    fmt,
    round_to_places,
)
from gcv.contract.goal import EDITABLE_FIELDS, Goal
from gcv.contract.loading import load_config
from gcv.contract.models import PATTERN_TYPES, BulletHellConfig
from tests.conftest import BASELINE_PATH
from tests.support.strategies import valid_configs


def goal(**kw: Any) -> Goal:
    return Goal(**kw)


def edit(field: str, op: str, value: float) -> dict[str, Any]:
    return {"field": field, "operation": op, "value": value}


def pattern(cfg: BulletHellConfig, phase_id: str) -> dict[str, Any]:
    phase = cfg.phase(phase_id)
    assert phase is not None
    return phase.pattern.model_dump()


# --- exact rounding -----------------------------------------------------------------------------

ROUNDING = [
    # (phase, field, op, value, expected) on the shrine baseline
    ("phase_2", "bullets_per_wave", "scale", 1.25, 15),         # 12 * 1.25 = 15
    ("phase_2", "wave_interval_ms", "scale", 0.85, 595),        # 700 * 0.85 = 595
    ("phase_2", "bullet_speed", "scale", 0.8, 2.88),            # 3.6 * 0.8 = 2.88, not 2.8800000000000003
    ("phase_3", "wave_interval_ms", "scale", 0.85, 723),        # 850 * 0.85 = 722.5 -> 723 (half away)
    ("phase_3", "bullets_per_wave", "scale", 1.3125, 11),       # 8 * 1.3125 = 10.5 -> 11 (round() gives 10)
    ("phase_1", "bullets_per_wave", "scale", 0.78125, 13),      # 16 * 0.78125 = 12.5 -> 13 (round() gives 12)
    ("phase_2", "bullets_per_wave", "add", 0.5, 13),            # 12.5 -> 13
    ("phase_2", "bullets_per_wave", "add", -0.5, 12),           # 11.5 -> 12 (round() gives 12 too)
    ("phase_2", "bullets_per_wave", "add", -1.5, 11),           # 10.5 -> 11 (round() gives 10)
    ("phase_1", "bullet_speed", "scale", 0.8335, 2.501),        # 2.5005 -> 2.501 (3 places, half away)
    ("phase_1", "bullet_speed", "scale", 0.8345, 2.504),        # 2.5035 -> 2.504 (round() gives 2.503 or 2.504)
    ("phase_2", "rotation_per_wave_deg", "set", -12.3455, -12.346),  # negative half -> away from zero
    ("phase_2", "rotation_per_wave_deg", "scale", -0.5, -8.5),  # 17 * -0.5 = -8.5 (decimal field keeps .5)
    ("phase_2", "bullet_lifetime_seconds", "scale", 0.5, 2.6),  # 5.2 * 0.5
    ("phase_2", "spread_angle_deg", "scale", 0.25, 90),         # 360 * 0.25
    ("phase_3", "layer_count", "add", 1, 3),
    ("phase_2", "wave_interval_ms", "set", 612.5, 613),         # set is rounded too (and noted)
    ("phase_2", "bullet_speed", "set", 4.1, 4.1),
    ("phase_2", "bullet_speed", "add", 0.1, 3.7),               # 3.6 + 0.1 = 3.7 exactly, not 3.7000000000000002
]


@pytest.mark.parametrize("phase_id, field, op, value, expected", ROUNDING,
                         ids=[f"{r[1]}-{r[2]}-{r[3]}" for r in ROUNDING])
def test_exact_rounding(baseline: BulletHellConfig, phase_id: str, field: str, op: str, value: float,
                        expected: float) -> None:
    cand = apply_goal(baseline, goal(target_phase_ids=[phase_id], edits=[edit(field, op, value)]))
    got = pattern(cand, phase_id)[field]
    assert got == expected
    assert repr(got) == repr(type(got)(expected))  # no float noise in the written value
    if field in ("bullets_per_wave", "wave_interval_ms", "layer_count"):
        assert isinstance(got, int)


def test_round_to_places_is_half_away_from_zero() -> None:
    assert round_to_places(Fraction(25005, 10000)) == Fraction(2501, 1000)
    assert round_to_places(Fraction(-25005, 10000)) == Fraction(-2501, 1000)
    assert round_to_places(Fraction(5, 2), 0) == 3
    assert round_to_places(Fraction(-5, 2), 0) == -3
    assert round_to_places(Fraction(7, 2), 0) == 4  # round(3.5) == 4 as well
    assert round_to_places(Fraction(9, 2), 0) == 5  # round(4.5) == 4: banker's rounding is not used


def test_edits_of_one_field_apply_in_order_and_round_once(baseline: BulletHellConfig) -> None:
    # 12 * 0.375 = 4.5, - 0.25 = 4.25 -> 4; rounding each step would give 5 - 0.25 = 4.75 -> 5
    cand = apply_goal(baseline, goal(target_phase_ids=["phase_2"], edits=[
        edit("bullets_per_wave", "scale", 0.375), edit("bullets_per_wave", "add", -0.25)]))
    assert pattern(cand, "phase_2")["bullets_per_wave"] == 4
    cand = apply_goal(baseline, goal(target_phase_ids=["phase_2"], edits=[
        edit("bullet_speed", "set", 2), edit("bullet_speed", "scale", 1.5)]))
    assert pattern(cand, "phase_2")["bullet_speed"] == 3


def test_fmt_writes_numbers_as_people_do() -> None:
    assert fmt(Fraction(288, 100)) == "2.88"
    assert fmt(15) == "15"
    assert fmt(-0.5) == "-0.5"
    assert fmt(3.0) == "3"


# --- pressure defaults ----------------------------------------------------------------------------

def test_pressure_increase_default_step(baseline: BulletHellConfig) -> None:
    cand = apply_goal(baseline, goal(target_phase_ids=["phase_1", "phase_2", "phase_3"], pressure="increase"))
    assert [(p.pattern.bullets_per_wave, p.pattern.wave_interval_ms) for p in cand.phases] == [
        (20, 1020), (15, 595), (10, 723)]
    assert PRESSURE_STEPS["increase"] == {"bullets_per_wave": Fraction(5, 4), "wave_interval_ms": Fraction(17, 20)}


def test_pressure_decrease_default_step(baseline: BulletHellConfig) -> None:
    cand = apply_goal(baseline, goal(target_phase_ids=["phase_1", "phase_2", "phase_3"], pressure="decrease"))
    # 16*0.8 = 12.8 -> 13, 1200*1.15 = 1380; 12*0.8 = 9.6 -> 10, 700*1.15 = 805; 8*0.8 = 6.4 -> 6, 850*1.15 = 977.5 -> 978
    assert [(p.pattern.bullets_per_wave, p.pattern.wave_interval_ms) for p in cand.phases] == [
        (13, 1380), (10, 805), (6, 978)]


def test_pressure_moves_at_least_one_unit_and_stops_at_bounds(baseline: BulletHellConfig) -> None:
    data = baseline.model_dump(mode="json")
    data["phases"][1]["pattern"].update(bullets_per_wave=1, wave_interval_ms=4990)
    small = BulletHellConfig.model_validate(data)
    app = apply_goal_with_notes(small, goal(target_phase_ids=["phase_2"], pressure="decrease"))
    p = pattern(app.candidate, "phase_2")
    assert p["bullets_per_wave"] == 1  # already at the bound
    assert p["wave_interval_ms"] == 5000  # 4990 * 1.15 = 5738.5, stopped at the bound
    assert any("contract bound 5000" in n for n in app.notes)
    data["phases"][1]["pattern"].update(bullets_per_wave=2, wave_interval_ms=700)
    two = BulletHellConfig.model_validate(data)
    # 2 * 1.25 = 2.5 -> 3; 2 * 0.8 = 1.6 -> 2 would not move, so at least one unit: 1
    assert pattern(apply_goal(two, goal(target_phase_ids=["phase_2"], pressure="decrease")), "phase_2")[
        "bullets_per_wave"] == 1


def test_pressure_at_both_bounds_is_a_range_error(baseline: BulletHellConfig) -> None:
    data = baseline.model_dump(mode="json")
    data["phases"][1]["pattern"].update(bullets_per_wave=64, wave_interval_ms=100)
    dense = BulletHellConfig.model_validate(data)
    with pytest.raises(GoalRangeError) as info:
        apply_goal(dense, goal(target_phase_ids=["phase_2"], pressure="increase"))
    assert info.value.issues[0].field == "$.phases[1].pattern.bullets_per_wave"


def test_explicit_density_edits_replace_the_pressure_step(baseline: BulletHellConfig) -> None:
    app = apply_goal_with_notes(baseline, goal(target_phase_ids=["phase_2"], pressure="increase",
                                               edits=[edit("bullets_per_wave", "set", 20)]))
    assert pattern(app.candidate, "phase_2")["bullets_per_wave"] == 20
    assert pattern(app.candidate, "phase_2")["wave_interval_ms"] == 700
    assert any("explicit edits" in n for n in app.notes)


# --- pattern shape ---------------------------------------------------------------------------------

def test_key_example_phase_2_denser_bidirectional_spiral(baseline: BulletHellConfig) -> None:
    cand = apply_goal(baseline, goal(target_phase_ids=["phase_2"], pattern_type="spiral", bidirectional=True,
                                     pressure="increase",
                                     constraints={"max_alive_bullets": 350, "min_low_fps": 55}))
    p = pattern(cand, "phase_2")
    assert (p["type"], p["bidirectional"], p["bullets_per_wave"], p["wave_interval_ms"]) == ("spiral", True, 15, 595)
    assert cand.phases[0] == baseline.phases[0] and cand.phases[2] == baseline.phases[2]
    assert cand.limits == baseline.limits and cand.targets == baseline.targets


def test_bidirectional_on_a_ring_becomes_a_spiral_with_default_rotation(baseline: BulletHellConfig) -> None:
    app = apply_goal_with_notes(baseline, goal(target_phase_ids=["phase_1"], bidirectional=True))
    p = pattern(app.candidate, "phase_1")
    assert (p["type"], p["bidirectional"], p["rotation_per_wave_deg"]) == ("spiral", True, DEFAULT_ROTATION_DEG)
    assert any("makes it a spiral" in n for n in app.notes)


def test_bidirectional_named_non_rotating_type_is_refused(baseline: BulletHellConfig) -> None:
    with pytest.raises(GoalRangeError) as info:
        apply_goal(baseline, goal(target_phase_ids=["phase_2"], pattern_type="ring", bidirectional=True))
    assert info.value.issues[0].field == "$.phases[1].pattern.bidirectional"


def test_switching_to_petal_raises_layers_to_two(baseline: BulletHellConfig) -> None:
    p = pattern(apply_goal(baseline, goal(target_phase_ids=["phase_2"], pattern_type="petal")), "phase_2")
    assert (p["type"], p["layer_count"], p["rotation_per_wave_deg"]) == ("petal", 2, 17)


def test_switching_to_aimed_fan_narrows_the_spread(baseline: BulletHellConfig) -> None:
    p = pattern(apply_goal(baseline, goal(target_phase_ids=["phase_1"], pattern_type="aimed_fan")), "phase_1")
    assert (p["type"], p["spread_angle_deg"]) == ("aimed_fan", 90)


def test_switching_to_ring_makes_a_full_circle_and_drops_bidirectional(baseline: BulletHellConfig) -> None:
    data = baseline.model_dump(mode="json")
    data["phases"][1]["pattern"].update(bidirectional=True, spread_angle_deg=120)
    bidir = BulletHellConfig.model_validate(data)
    p = pattern(apply_goal(bidir, goal(target_phase_ids=["phase_2"], pattern_type="ring")), "phase_2")
    assert (p["type"], p["spread_angle_deg"], p["bidirectional"]) == ("ring", 360, False)


def test_petal_with_one_layer_is_a_range_error(baseline: BulletHellConfig) -> None:
    with pytest.raises(GoalRangeError) as info:
        apply_goal(baseline, goal(target_phase_ids=["phase_3"], edits=[edit("layer_count", "set", 1)]))
    assert info.value.issues[0].field == "$.phases[2].pattern.layer_count"
    assert ">= 2" in info.value.issues[0].allowed


def test_reverse_rotation_negates_relative_to_the_baseline(baseline: BulletHellConfig) -> None:
    cand = apply_goal(baseline, goal(target_phase_ids=["phase_2", "phase_3"], reverse_rotation=True))
    assert pattern(cand, "phase_2")["rotation_per_wave_deg"] == -17
    assert pattern(cand, "phase_3")["rotation_per_wave_deg"] == -11
    # with an explicit magnitude: 25 the other way
    cand = apply_goal(baseline, goal(target_phase_ids=["phase_2"], reverse_rotation=True,
                                     edits=[edit("rotation_per_wave_deg", "set", 25)]))
    assert pattern(cand, "phase_2")["rotation_per_wave_deg"] == -25


def test_reverse_rotation_of_a_phase_that_does_not_rotate_is_refused(baseline: BulletHellConfig) -> None:
    with pytest.raises(GoalRangeError) as info:
        apply_goal(baseline, goal(target_phase_ids=["phase_1"], reverse_rotation=True))
    assert info.value.issues[0].field == "$.phases[0].pattern.rotation_per_wave_deg"


# --- ranges: never clamped --------------------------------------------------------------------------

@pytest.mark.parametrize("field, op, value, asked, allowed", [
    ("bullets_per_wave", "set", 200, 200, "1..64"),
    ("bullets_per_wave", "scale", 6, 72, "1..64"),
    ("wave_interval_ms", "set", 20, 20, "100..5000"),
    ("bullet_speed", "set", -3, -3.0, "0.5..12"),
    ("bullet_lifetime_seconds", "scale", 3, 15.6, "0.5..12"),
    ("rotation_per_wave_deg", "add", 170, 187.0, "-180..180"),
    ("spread_angle_deg", "add", 1, 361.0, "1..360"),
    ("layer_count", "add", 5, 6, "1..4"),
])
def test_out_of_range_edits_are_errors_not_clamps(baseline: BulletHellConfig, field: str, op: str, value: float,
                                                  asked: Any, allowed: str) -> None:
    with pytest.raises(GoalRangeError) as info:
        apply_goal(baseline, goal(target_phase_ids=["phase_2"], edits=[edit(field, op, value)]))
    issue = info.value.issues[0]
    assert issue.field == f"$.phases[1].pattern.{field}"
    assert issue.asked == asked
    assert issue.allowed == allowed
    assert allowed in issue.message


def test_unknown_or_duplicate_target_phase(baseline: BulletHellConfig) -> None:
    with pytest.raises(GoalRangeError) as info:
        apply_goal(baseline, goal(target_phase_ids=["phase_9"], pressure="increase"))
    assert info.value.issues[0].field == "goal.target_phase_ids"
    with pytest.raises(GoalRangeError):
        apply_goal(baseline, goal(target_phase_ids=["phase_2", "phase_2"], pressure="increase"))


# --- targets ------------------------------------------------------------------------------------------

def test_constraints_only_tighten_targets(baseline: BulletHellConfig) -> None:
    app = apply_goal_with_notes(baseline, goal(target_phase_ids=["phase_2"], constraints={
        "max_alive_bullets": 300, "min_low_fps": 60, "max_player_hits": 2}))
    t = app.candidate.targets
    assert (t.max_alive_bullets, t.min_low_fps, t.max_player_hits) == (300, 60, 2)
    app = apply_goal_with_notes(baseline, goal(target_phase_ids=["phase_2"], constraints={
        "max_alive_bullets": 1000, "min_low_fps": 30, "max_player_hits": 9}))
    assert app.candidate.targets == baseline.targets
    assert app.candidate.limits == baseline.limits
    assert len(app.notes) == 3 and all("kept" in n for n in app.notes)


def test_a_constraint_stricter_than_the_contract_is_an_error(baseline: BulletHellConfig) -> None:
    with pytest.raises(GoalRangeError) as info:
        apply_goal(baseline, goal(target_phase_ids=["phase_2"], constraints={"min_low_fps": 300}))
    assert info.value.issues[0].field == "$.targets.min_low_fps"


def test_ranges_come_from_the_contract_models() -> None:
    assert PATTERN_RANGES["bullets_per_wave"] == (1, 64)
    assert PATTERN_RANGES["wave_interval_ms"] == (100, 5000)
    assert PATTERN_RANGES["bullet_speed"] == (Fraction(1, 2), 12)
    assert set(PATTERN_RANGES) == set(EDITABLE_FIELDS)


def test_apply_goal_is_pure(baseline: BulletHellConfig) -> None:
    before = baseline.model_dump(mode="json")
    g = goal(target_phase_ids=["phase_2"], pressure="increase", bidirectional=True)
    assert apply_goal(baseline, g) == apply_goal(baseline, g)
    assert baseline.model_dump(mode="json") == before


# --- property: random goals never crash ------------------------------------------------------------------

def _decimal(lo: int, hi: int, places: int = 3) -> st.SearchStrategy[float | int]:
    scale = 10 ** places
    return st.integers(lo * scale, hi * scale).map(lambda k: k // scale if k % scale == 0 else k / scale)


_EDITS = st.builds(
    lambda field, op, value: {"field": field, "operation": op, "value": value},
    st.sampled_from(EDITABLE_FIELDS), st.sampled_from(["set", "scale", "add"]),
    st.one_of(_decimal(-200, 200), _decimal(-5, 5, 6), st.integers(-100000, 100000)),
)


@st.composite
def random_goals(draw: st.DrawFn, cfg: BulletHellConfig) -> Goal:
    ids = [p.phase_id for p in cfg.phases]
    targets = draw(st.lists(st.sampled_from(ids + ["nope"]) if draw(st.booleans()) and draw(st.booleans())
                            else st.sampled_from(ids), min_size=1, max_size=min(6, len(ids) + 1)))
    return Goal(
        target_phase_ids=targets,
        pattern_type=draw(st.none() | st.sampled_from(PATTERN_TYPES)),
        bidirectional=draw(st.none() | st.booleans()),
        reverse_rotation=draw(st.booleans()),
        pressure=draw(st.sampled_from(["increase", "decrease", "keep"])),
        edits=draw(st.lists(_EDITS, max_size=5)),
        constraints={
            "max_alive_bullets": draw(st.none() | st.integers(1, 100000)),
            "min_low_fps": draw(st.none() | _decimal(0, 1000)),
            "max_player_hits": draw(st.none() | st.integers(0, 1000)),
        },
    )


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_goals_on_random_configs_give_a_candidate_or_a_clear_range_error(data: st.DataObject) -> None:
    cfg = data.draw(valid_configs())
    _check_random_goal(cfg, data.draw(random_goals(cfg)))


_SHRINE = load_config(BASELINE_PATH)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_random_goals_on_the_baseline_give_a_candidate_or_a_clear_range_error(data: st.DataObject) -> None:
    _check_random_goal(_SHRINE, data.draw(random_goals(_SHRINE)))


def _check_random_goal(cfg: BulletHellConfig, g: Goal) -> None:
    try:
        cand = apply_goal(cfg, g)
    except GoalRangeError as exc:
        assert exc.issues, "a range error names at least one issue"
        for issue in exc.issues:
            assert isinstance(issue, BlockIssue)
            assert issue.field and issue.allowed and issue.message
        return
    # a candidate: schema-valid, only patterns and targets changed, targets never past limits
    again = BulletHellConfig.model_validate(cand.model_dump(mode="json"))
    assert again == cand
    assert cand.limits == cfg.limits
    assert (cand.scenario, cand.player, cand.boss) == (cfg.scenario, cfg.player, cfg.boss)
    for before, after in zip(cfg.phases, cand.phases):
        assert (before.phase_id, before.title, before.trigger_boss_hp_below) == (
            after.phase_id, after.title, after.trigger_boss_hp_below)
        if before.phase_id not in g.target_phase_ids:
            assert before == after
        p = after.pattern
        if p.type == "petal":
            assert p.layer_count >= 2
        if p.type == "aimed_fan":
            assert p.spread_angle_deg <= 180
        if p.bidirectional:
            assert p.type in ("spiral", "petal") and p.rotation_per_wave_deg != 0
    t = cand.targets
    assert t.max_alive_bullets <= cfg.targets.max_alive_bullets
    assert t.max_player_hits <= cfg.targets.max_player_hits
    assert t.min_low_fps >= cfg.targets.min_low_fps
