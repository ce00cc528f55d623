"""The verdicts: a baseline proven fair, a hand-computed wall proven unfair at its tick,
aimed fights never called unfair, budgets honoured, the check the loop reads."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, assume, given, settings

from gcv.analysis import analyze, fairness_check, run_analysis
from gcv.analysis.report import FairnessReport
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.models import Check
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from gcv.sim.schedule import emission_schedule
from tests.support.fairutil import baseline_data, falling_wall, with_phase
from tests.support.strategies import valid_configs


@pytest.fixture(scope="module")
def baseline_report() -> FairnessReport:
    return analyze(baseline_data(), seed=1, budget_seconds=120)


def test_baseline_is_fair_with_a_witness_that_replays_hit_free(baseline_report: FairnessReport) -> None:
    r = baseline_report
    assert r.verdict == "fair" and r.unfair is None and not r.player_dependent
    w = r.witness
    assert w is not None and w.ticks == r.fight_ticks == 2155
    # the report's replay, and an independent one here
    assert w.replay.player_hits == 0 and w.replay.status == "completed"
    program = compile_program(BulletHellConfig.model_validate(baseline_data()))
    tel = Simulation(program, {"kind": "inputs", "trace": w.trace}).run(seed=1).telemetry
    assert tel["player_hits"] == 0 and tel["ticks"] == r.fight_ticks and tel["state_hash"] == w.replay.state_hash
    # fight_ticks is where the boss dies (time would run out at 2160)
    assert emission_schedule(program).boss_death_tick == r.fight_ticks - 1


def test_baseline_safe_area_summary(baseline_report: FairnessReport) -> None:
    sa = baseline_report.safe_area
    assert sa.basis == "player_independent"
    assert len(sa.curve_milli) == sa.measured_ticks == baseline_report.fight_ticks
    assert all(0 <= v <= 1000 for v in sa.curve_milli)
    assert [p.phase_id for p in sa.phases] == ["phase_1", "phase_2", "phase_3"]
    for p in sa.phases:
        lo = max(p.start_tick, sa.warmup_ticks)
        seg = sa.curve_milli[lo:p.end_tick]
        assert p.ticks_considered == len(seg) > 0
        assert p.min_milli == min(seg) == sa.curve_milli[p.min_tick] and lo <= p.min_tick < p.end_tick
        assert 900 < p.min_milli < 1000  # open, not empty: a few percent of the arena under bullets
    assert sa.tightest_milli == min(p.min_milli for p in sa.phases)
    assert 0 < sa.warmup_ticks < sa.phases[0].end_tick


def test_falling_wall_is_unfair_at_the_hand_computed_tick() -> None:
    """One bullet of radius 2 falls straight at a player on the bottom edge of a 4 x 4 arena.

    Program integers (Q16, per tick): speed = focus speed = rha(0.5 * 65536 / 60) = 546
    (diagonal (546 * 46341) >> 16 = 386); hit radius r = 2 * 65536 = 131072, r^2 = 2^34 =
    17,179,869,184; the player starts at (0, -131072), the boss at (0, 131072). The ring of
    one bullet has slot angle 270 deg = 49152 and speed rha(6 * 65536 / 60) = 6554, so
    VX = (6554 * icos(49152)) >> 16 = 0 and VY = -6554. It is fired at tick 0 (one wave: the
    next would be at tick 300, the end of the fight) and at tick t is at (0, 131072 - 6554 t).

    After t + 1 moves of at most 546 per axis, clamped at y >= -131072, every position lies in
    x in [-546 (t+1), 546 (t+1)], y in [-131072, -131072 + 546 (t+1)]; the bottom corners
    (+-546 (t+1), -131072) are reached by holding left or right. The bullet is above that box,
    so the corners are the farthest positions from it: D(t) = (546 (t+1))^2 + (262144 - 6554 t)^2.

      t = 20: 11466^2 + 131064^2 = 131,469,156 + 17,177,772,096 = 17,309,241,252 > r^2
              (the corner is safe: a hit-free path exists up to tick 20)
      t = 21: 12012^2 + 124510^2 = 144,288,144 + 15,502,740,100 = 15,647,028,244 <= r^2
              (every reachable position is hit)

    So the fight becomes unfair at tick 21, and holding right is hit at tick 21 and no earlier.
    """
    doc = falling_wall()
    report = analyze(doc, seed=1, budget_seconds=30)
    assert report.verdict == "unfair" and report.witness is None
    u = report.unfair
    assert u is not None and u.tick == 21 and u.seconds == pytest.approx(0.35)
    assert u.active_phase_id == u.responsible_phase_id == "drop"
    assert (u.responsible_wave.wave_index, u.responsible_wave.spawn_tick, u.responsible_wave.share_milli) == (0, 0, 1000)
    assert u.bullets_alive == 1 and u.reachable > 0
    # the engine agrees with the hand calculation for the best escape
    program = compile_program(BulletHellConfig.model_validate(doc))
    for direction in (1, -1):
        trace = {"format": "gcv.inputs/1", "tick_hz": 60, "runs": [[300, direction, 0, 0]]}
        tel = Simulation(program, {"kind": "inputs", "trace": trace}).run(seed=1).telemetry
        assert tel["hit_ticks"][0] == 21
    # after the wall the curve is zero, and the tightest moment is the unfair tick
    assert report.safe_area.curve_milli[21:] == [0] * (report.fight_ticks - 21)
    assert report.safe_area.tightest_tick == 21
    check = fairness_check(report)
    assert not check.passed and check.phase_id == "drop" and "tick 21" in check.detail


def test_the_same_wall_aimed_is_never_called_unfair() -> None:
    """An aimed fan of one bullet fired at the player's start is the very same bullet (aim
    iatan2(-4, 0) = 270 deg), so the fight is just as unfair, but its bullets depend on the
    player, so the analysis must not claim it: undetermined, with the reason."""
    doc = with_phase(falling_wall(), 0, type="aimed_fan", spread_angle_deg=30)
    report = analyze(doc, seed=1, budget_seconds=30)
    assert report.player_dependent and report.aimed_phase_ids == ["drop"]
    assert report.verdict == "undetermined" and report.unfair is None and report.witness is None
    assert "aim at the player" in report.reason
    assert report.effort.search.stopped_by == "exhausted"
    assert report.safe_area.basis == "search_path"
    assert fairness_check(report).passed  # not proven unfair: the default gate does not fail it
    assert not fairness_check(report, require_proof=True).passed


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(config=valid_configs(max_phases=3))
def test_aimed_configs_never_get_unfair(config: BulletHellConfig) -> None:
    program = compile_program(config)
    windows = emission_schedule(program).windows
    assume(any(program["phases"][w.index]["aim"] and w.wave_ticks for w in windows))
    report = analyze(config, seed=3, budget_seconds=1.0)
    assert report.player_dependent
    assert report.verdict != "unfair" and report.unfair is None
    if report.verdict == "fair":
        assert report.witness is not None and report.witness.replay.player_hits == 0


@pytest.mark.slow
def test_aimed_baseline_variants_get_a_witness() -> None:
    for doc in (with_phase(baseline_data(), 1, type="aimed_fan", bullets_per_wave=7, spread_angle_deg=60,
                           rotation_per_wave_deg=0),
                with_phase(baseline_data(), 2, type="scatter", bullets_per_wave=10, spread_angle_deg=90,
                           layer_count=1, rotation_per_wave_deg=0)):
        report = analyze(doc, seed=5, budget_seconds=60)
        assert report.verdict == "fair", report.reason
        assert report.safe_area.basis == "witness_path"


class _Clock:
    """Every reading is 1 s later: a 3 s budget ends after a few readings."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def test_an_exhausted_budget_is_undetermined_with_the_effort() -> None:
    analysis = run_analysis(baseline_data(), seed=1, budget_seconds=3, clock=_Clock())
    r = analysis.report
    assert r.verdict == "undetermined" and r.witness is None and r.unfair is None
    assert not r.effort.reach_complete and r.effort.reach_ticks < r.fight_ticks
    assert r.safe_area.measured_ticks == r.effort.reach_ticks < r.fight_ticks
    assert any("budget" in n for n in r.notes) and "budget" in r.reason


def test_report_is_deterministic_apart_from_timings(baseline_report: FairnessReport) -> None:
    again = analyze(baseline_data(), seed=1, budget_seconds=120)
    timings = {"elapsed_seconds", "reach_seconds", "search_seconds", "replay_seconds"}
    strip = lambda r: r.model_dump(exclude={"effort": timings})  # noqa: E731
    assert strip(again) == strip(baseline_report)
    assert FairnessReport.model_validate_json(again.model_dump_json()) == again


def test_fairness_check_is_an_evaluation_check(baseline_report: FairnessReport) -> None:
    passed = fairness_check(baseline_report)
    assert passed.passed and passed.name == "fair_fight" and passed.phase_id is None and passed.miss == 0
    check = Check.model_validate(passed.model_dump())  # the loop can add it to an evaluation as is
    assert check.short().endswith("ok")
    failing = Check.model_validate(fairness_check(analyze(falling_wall(), seed=1, budget_seconds=30)).model_dump())
    assert not failing.passed and failing.phase_id == "drop" and failing.short() == "fair_fight@drop unfair!=fair|undetermined FAIL"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="seed"):
        analyze(baseline_data(), seed=-1)
    with pytest.raises(ValueError, match="budget_seconds"):
        analyze(baseline_data(), seed=1, budget_seconds=0)
    broken = copy.deepcopy(baseline_data())
    broken["player"]["hit_radius"] = -1
    with pytest.raises(ValueError):
        analyze(broken, seed=1)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=valid_configs(max_phases=3))
def test_any_valid_config_gets_a_consistent_verdict(config: BulletHellConfig) -> None:
    """Whatever the config, the analysis ends with a verdict its evidence supports."""
    report = analyze(config, seed=11, budget_seconds=1.5)
    assert report.fight_ticks >= 1 and len(report.safe_area.curve_milli) == report.safe_area.measured_ticks
    if report.verdict == "fair":
        assert report.witness is not None and report.witness.replay.player_hits == 0
        assert report.witness.replay.status == "completed"
    elif report.verdict == "unfair":
        assert not report.player_dependent and report.unfair is not None
        assert 0 <= report.unfair.tick < report.fight_ticks
        assert report.safe_area.curve_milli[report.unfair.tick] == 0
    else:
        assert report.witness is None and report.unfair is None and report.reason
