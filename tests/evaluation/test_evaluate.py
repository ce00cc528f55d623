"""Evaluation: every hard check, every intent check, miss score, fingerprint."""

from __future__ import annotations

import pytest

from gcv.contract.goal import DesignerConstraints, Goal, ParameterEdit
from gcv.evaluation.evaluate import evaluate
from gcv.evaluation.models import Evaluation
from tests.support.evalutil import (
    base, base_telemetry, edit, evaluation, over_budget, run, too_many_hits, variant, with_targets,
)


def goal(**kw) -> Goal:
    kw.setdefault("target_phase_ids", ["phase_2"])
    return Goal(**kw)


def constraints(**kw) -> Goal:
    return goal(constraints=DesignerConstraints(**kw))


# --- effective targets ----------------------------------------------------------------

def test_targets_never_come_from_the_candidate():
    b = with_targets(base(), max_alive_bullets=60)  # baseline peak is 64
    loosened = with_targets(base(), max_alive_bullets=350)
    ev = evaluate(baseline=b, goal=None, baseline_telemetry=base_telemetry(), candidate=loosened,
                  candidate_telemetry=base_telemetry())
    check = ev.check("peak_alive_bullets")
    assert (check.expected, check.actual, check.passed) == (60, 64, False)
    assert not ev.passed


# --- hard checks ------------------------------------------------------------------------

def test_the_baseline_passes_every_hard_check():
    ev = evaluation(base_telemetry())
    assert ev.passed and ev.miss_score == 0
    assert [c.name for c in ev.checks] == ["run_status", "peak_alive_bullets", "player_hits",
                                           "survival", "low_fps", "phase_coverage"]
    assert all(c.hard and c.passed and c.miss == 0 for c in ev.checks)
    assert ev.intent_checks == [] and ev.fps_source == "model"


def test_peak_alive_check_records_the_figures_and_the_culprit_phase():
    check = evaluation(over_budget(420, "phase_2")).check("peak_alive_bullets")
    assert (check.field, check.op, check.expected, check.actual) == ("peak_alive_bullets", "<=", 350, 420)
    assert not check.passed and check.phase_id == "phase_2"
    assert check.miss == pytest.approx(70 / 350)
    assert check.short() == "peak_alive_bullets@phase_2 420>350 FAIL"
    passing = evaluation(base_telemetry()).check("peak_alive_bullets")
    assert passing.passed and passing.actual == 64 and passing.phase_id == "phase_3"


def test_peak_at_the_target_passes():
    assert evaluation(over_budget(350)).check("peak_alive_bullets").passed


def test_player_hits_check_blames_the_phase_with_most_hits():
    check = evaluation(too_many_hits(5, "phase_1")).check("player_hits")
    assert (check.field, check.op, check.expected, check.actual) == ("player_hits", "<=", 3, 5)
    assert not check.passed and check.phase_id == "phase_1"
    assert check.miss == pytest.approx(2 / 3)
    ok = evaluation(base_telemetry()).check("player_hits")
    assert ok.passed and ok.actual == 2 and ok.phase_id == "phase_3"


def test_zero_hits_names_no_phase_and_zero_target_scores_by_one():
    tel = too_many_hits(0)
    assert evaluation(tel).check("player_hits").phase_id is None
    check = evaluation(too_many_hits(2), goal=constraints(max_player_hits=0)).check("player_hits")
    assert not check.passed and check.miss == pytest.approx(2.0)  # (2 - 0) / max(0, 1)


def test_a_death_fails_status_and_survival_in_the_phase_it_happened():
    cand = variant(base(), "phase_2", bullets_per_wave=40, bidirectional=True, layer_count=2)
    tel = run(cand)
    assert tel["status"] == "died"
    ev = evaluation(tel, candidate=cand)
    status, survival = ev.check("run_status"), ev.check("survival")
    assert (status.field, status.op, status.expected, status.actual) == ("status", "==", "completed", "died")
    assert not status.passed and status.phase_id == "phase_2" and status.miss == 1.0
    assert (survival.field, survival.op, survival.expected) == ("survival_ticks", ">=", 2160)
    assert survival.actual == tel["survival_ticks"] < 2160 and survival.phase_id == "phase_2"
    assert survival.miss == pytest.approx((2160 - tel["survival_ticks"]) / 2160)
    assert "died" in survival.detail and "phase_2" in survival.detail
    coverage = ev.check("phase_coverage")
    assert not coverage.passed and coverage.phase_id == "phase_3" and coverage.actual == 2


def test_low_fps_check_and_its_source():
    tel = edit(base_telemetry(), low_fps=50.5)
    check = evaluation(tel).check("low_fps")
    assert (check.field, check.op, check.expected, check.actual) == ("low_fps", ">=", 55.0, 50.5)
    assert not check.passed and check.phase_id == "phase_3"  # the phase with the highest peak
    assert check.miss == pytest.approx(4.5 / 55)
    measured = evaluation(edit(base_telemetry(), low_fps=55, fps_source="measured"))
    assert measured.check("low_fps").passed and measured.fps_source == "measured"
    assert "measured" in measured.check("low_fps").detail


def test_phase_coverage_fails_for_an_unreached_phase_and_is_skipped_when_not_required():
    tel = edit(base_telemetry(), phases={"phase_3": {"reached": False, "ticks": 0}}, phases_reached=2)
    check = evaluation(tel).check("phase_coverage")
    assert (check.field, check.op, check.expected, check.actual) == ("phases_reached", "==", 3, 2)
    assert not check.passed and check.phase_id == "phase_3" and "phase_3" in check.detail
    assert check.miss == pytest.approx(1 / 3)
    relaxed = with_targets(base(), require_all_phases=False)
    assert evaluation(tel, baseline=relaxed).check("phase_coverage") is None


def test_missing_telemetry_fields_fail_clearly():
    tel = edit(base_telemetry(), low_fps=None, peak_alive_bullets="many")
    ev = evaluation(tel)
    assert not ev.check("low_fps").passed and "no numeric 'low_fps'" in ev.check("low_fps").detail
    assert not ev.check("peak_alive_bullets").passed
    assert ev.check("low_fps").miss == 1.0


# --- intent checks ----------------------------------------------------------------------

def test_pattern_type_and_bidirectional_intents():
    cand = variant(base(), "phase_2", type="petal", bidirectional=True)
    ev = evaluation(run(cand), candidate=cand, goal=goal(pattern_type="petal", bidirectional=True))
    pt, bd = ev.check("intent.pattern_type"), ev.check("intent.bidirectional")
    assert pt.passed and pt.field == "$.phases[1].pattern.type" and pt.phase_id == "phase_2"
    assert bd.passed and (bd.expected, bd.actual) == (True, True)
    ev = evaluation(base_telemetry(), goal=goal(pattern_type="petal", bidirectional=True))
    pt, bd = ev.check("intent.pattern_type"), ev.check("intent.bidirectional")
    assert (pt.passed, pt.expected, pt.actual) == (False, "petal", "spiral")
    assert (bd.passed, bd.expected, bd.actual) == (False, True, False)
    assert not ev.passed and all(c.hard for c in ev.intent_checks)
    assert all(c.passed for c in ev.checks)  # hard checks alone would pass


def test_reverse_rotation_intent():
    cand = variant(base(), "phase_2", rotation_per_wave_deg=-17)
    check = evaluation(run(cand), candidate=cand, goal=goal(reverse_rotation=True)).check("intent.reverse_rotation")
    assert check.passed and (check.expected, check.actual) == (-1, -1)
    assert check.field == "$.phases[1].pattern.rotation_per_wave_deg"
    same = variant(base(), "phase_2", rotation_per_wave_deg=5)
    check = evaluation(run(same), candidate=same, goal=goal(reverse_rotation=True)).check("intent.reverse_rotation")
    assert not check.passed and (check.expected, check.actual) == (-1, 1)
    # phase_1 (a ring) has no rotation to reverse
    check = evaluation(base_telemetry(), goal=goal(target_phase_ids=["phase_1"], reverse_rotation=True)
                       ).check("intent.reverse_rotation")
    assert not check.passed and "does not rotate" in check.detail


DENSER_BY = [ParameterEdit(field="bullets_per_wave", operation="scale", value=1.05)]  # a number: "5% denser"


def test_pressure_increase_passes_when_spawn_rate_and_mean_alive_both_rise():
    cand = variant(base(), "phase_2", bullets_per_wave=14)
    ev = evaluation(run(cand), candidate=cand, goal=goal(pressure="increase"))
    rate, alive = ev.check("intent.spawn_rate"), ev.check("intent.mean_alive")
    # no number: the spawn rate keeps at least +10% of the baseline's; the mean alive rises
    assert rate.passed and alive.passed and rate.op == ">=" and alive.op == ">"
    assert rate.field == "phase_results[phase_2].bullets_spawned/ticks"
    assert rate.expected == pytest.approx(204 * 60 / 714 * 11 / 10, abs=1e-3)
    assert alive.expected == 52.234
    assert ev.passed


def test_a_qualitative_increase_keeps_its_minimum_share_an_explicit_one_its_direction():
    cand = variant(base(), "phase_2", bullets_per_wave=13)  # +8.3% spawn rate in phase_2
    tel = run(cand)
    vague = evaluation(tel, candidate=cand, goal=goal(pressure="increase")).check("intent.spawn_rate")
    assert not vague.passed and "at least +10% of the baseline's" in vague.detail and "(it is +8.3%)" in vague.detail
    stated = evaluation(tel, candidate=cand, goal=goal(pressure="increase", edits=DENSER_BY)).check("intent.spawn_rate")
    assert stated.passed and stated.op == ">" and "strictly higher" in stated.detail
    fewer = variant(base(), "phase_2", bullets_per_wave=11)  # -8.3%: not "less dense" enough
    vague = evaluation(run(fewer), candidate=fewer, goal=goal(pressure="decrease")).check("intent.spawn_rate")
    assert not vague.passed and vague.op == "<=" and "at least -10%" in vague.detail


def test_pressure_increase_fails_when_nothing_changed():
    ev = evaluation(base_telemetry(), goal=goal(pressure="increase"))
    rate = ev.check("intent.spawn_rate")
    assert not rate.passed and "(it is +0.0%)" in rate.detail
    assert rate.miss == pytest.approx(1 / 11)  # short of +10% by a tenth of the baseline's rate
    strict = evaluation(base_telemetry(), goal=goal(pressure="increase", edits=DENSER_BY)).check("intent.spawn_rate")
    assert not strict.passed and "equal" in strict.detail
    assert strict.miss == pytest.approx(0.001)  # a failed check never scores 0
    assert not ev.passed


def test_pressure_decrease():
    fewer = variant(base(), "phase_2", bullets_per_wave=8)
    ev = evaluation(run(fewer), candidate=fewer, goal=goal(pressure="decrease"))
    assert ev.check("intent.spawn_rate").passed and ev.check("intent.mean_alive").passed
    assert ev.check("intent.spawn_rate").op == "<="
    more = variant(base(), "phase_2", bullets_per_wave=16)
    ev = evaluation(run(more), candidate=more, goal=goal(pressure="decrease"))
    assert not ev.check("intent.spawn_rate").passed and not ev.check("intent.mean_alive").passed


def test_pressure_keep_adds_no_pressure_checks():
    ev = evaluation(base_telemetry(), goal=goal(pressure="keep"))
    assert ev.intent_checks == []


def test_pressure_compares_exact_rationals():
    # baseline 1/3 bullet per tick; candidate 333333/1000000 is lower, though both show 20/s
    b_tel = edit(base_telemetry(), phases={"phase_2": {"bullets_spawned": 1, "ticks": 3}})
    c_tel = edit(base_telemetry(), phases={"phase_2": {"bullets_spawned": 333333, "ticks": 1000000}})
    ev = evaluation(c_tel, goal=goal(pressure="increase", edits=DENSER_BY), baseline_telemetry=b_tel)
    rate = ev.check("intent.spawn_rate")
    assert rate.expected == rate.actual == 20.0
    assert not rate.passed
    ev = evaluation(c_tel, goal=goal(pressure="decrease", edits=DENSER_BY), baseline_telemetry=b_tel)
    assert ev.check("intent.spawn_rate").passed
    # the minimum share is exact too: 11/10 of 1/3 per tick is 11/30, and 366666/1000000 is below it
    at = edit(base_telemetry(), phases={"phase_2": {"bullets_spawned": 11, "ticks": 30}})
    under = edit(base_telemetry(), phases={"phase_2": {"bullets_spawned": 366666, "ticks": 1000000}})
    assert evaluation(at, goal=goal(pressure="increase"), baseline_telemetry=b_tel).check("intent.spawn_rate").passed
    assert not evaluation(under, goal=goal(pressure="increase"),
                          baseline_telemetry=b_tel).check("intent.spawn_rate").passed


@pytest.mark.parametrize("which", ["candidate", "baseline"])
def test_pressure_on_an_unreached_phase_fails_with_a_clear_detail(which):
    unreached = edit(base_telemetry(), phases={"phase_2": {"reached": False, "ticks": 0,
                                                           "bullets_spawned": 0, "alive_tick_sum": 0}})
    tels = {"candidate": base_telemetry(), "baseline": base_telemetry()}
    tels[which] = unreached
    ev = evaluation(tels["candidate"], goal=goal(pressure="increase"), baseline_telemetry=tels["baseline"])
    for name in ("intent.spawn_rate", "intent.mean_alive"):
        check = ev.check(name)
        assert not check.passed and check.phase_id == "phase_2"
        assert f"{which} run never reached phase_2" in check.detail


def test_a_target_phase_missing_from_the_candidate_fails_the_intent():
    g = Goal(target_phase_ids=["phase_9"], pattern_type="ring", pressure="increase")
    ev = evaluation(base_telemetry(), goal=g)
    assert [c.name for c in ev.intent_checks] == ["intent.pattern_type", "intent.spawn_rate",
                                                  "intent.mean_alive"]
    assert not any(c.passed for c in ev.intent_checks)
    assert "no phase 'phase_9'" in ev.check("intent.pattern_type").detail


# --- miss score and fingerprint ---------------------------------------------------------

def test_miss_score_sums_relative_misses():
    tel = edit(over_budget(420), low_fps=44)
    ev = evaluation(tel)
    assert ev.miss_score == pytest.approx(70 / 350 + 11 / 55)
    assert ev.summary() == ("peak_alive_bullets@phase_2 420>350 FAIL | low_fps@phase_2 44<55 FAIL")
    closer = evaluation(edit(over_budget(380), low_fps=50))
    assert 0 < closer.miss_score < ev.miss_score


def test_fingerprint_is_stable_and_tracks_the_evidence():
    a = evaluation(over_budget(420))
    b = evaluation(over_budget(420))
    assert a.fingerprint() == b.fingerprint()
    assert Evaluation.model_validate_json(a.model_dump_json()).fingerprint() == a.fingerprint()
    assert evaluation(over_budget(421)).fingerprint() != a.fingerprint()
    assert evaluation(base_telemetry()).fingerprint() != a.fingerprint()


def test_require_dodgeable_comes_from_the_baseline_or_the_designer() -> None:
    from gcv.contract.goal import DesignerConstraints, Goal
    from gcv.evaluation.targets import effective_targets
    from gcv.validation.validate import validate

    strict = base().model_copy(update={"targets": base().targets.model_copy(update={"require_dodgeable": True})})
    assert effective_targets(base()).require_dodgeable is False
    t = effective_targets(strict)
    assert t.require_dodgeable is True and t.sources["require_dodgeable"] == "baseline.targets"
    asked = Goal(target_phase_ids=["phase_2"], constraints=DesignerConstraints(require_dodgeable=True))
    t = effective_targets(base(), asked)
    assert t.require_dodgeable is True and t.sources["require_dodgeable"] == "designer"
    # a candidate cannot drop the baseline's requirement (it would move its own goalposts)
    report = validate(strict, base(), None)
    assert any(e.rule_id == "safety.target_loosened" and e.path == "$.targets.require_dodgeable"
               for layer in report.layers for e in layer.errors)
    # and a config that does not ask for it keeps the hash it always had
    assert "require_dodgeable" not in base().model_dump(mode="json")["targets"]
