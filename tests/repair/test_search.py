"""The repair search (gcv.repair.search): the gentlest rung of the intent's ladder that passes in
the reference simulator, every rung recorded; a refusal when no rung can be built."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gcv.repair.search import LADDERS, search_repair
from tests.support.evalutil import base, base_telemetry, evaluation, run, variant


def test_the_ladders_go_from_gentlest_to_strongest_in_five_percent_steps() -> None:
    speed = LADDERS["REDUCE_BULLET_SPEED"]
    assert speed[0] == Fraction(9, 10) and speed[-1] == Fraction(3, 5) and len(speed) == 7
    assert LADDERS["REDUCE_BULLETS_PER_WAVE"][0] == Fraction(19, 20) and LADDERS["REDUCE_BULLETS_PER_WAVE"][-1] == Fraction(2, 5)
    assert LADDERS["REDUCE_PATTERN_LAYERS"] == (Fraction(1),)
    for ladder in LADDERS.values():
        assert list(ladder) == sorted(ladder, reverse=True)


@pytest.fixture(scope="module")
def failing():  # type: ignore[no-untyped-def]
    """An aimed fan of 9 every 300 ms in phase 1: the scripted player is hit 5 times there (3 allowed)."""
    config = variant(base(), "phase_1", type="aimed_fan", bullets_per_wave=9, wave_interval_ms=300,
                     spread_angle_deg=60)
    ev = evaluation(run(config), candidate=config)
    assert not ev.passed and ev.check("player_hits") is not None and not ev.check("player_hits").passed
    return config, ev


def _search(config, ev, intent: str):  # type: ignore[no-untyped-def]
    return search_repair(candidate=config, intent=intent, phase_id="phase_1", evaluation=ev, goal=None,
                         baseline=base(), baseline_telemetry=base_telemetry(), simulate=run,
                         frame_times_measured=False)


def test_the_gentlest_passing_rung_wins(failing) -> None:  # type: ignore[no-untyped-def]
    config, ev = failing
    outcome, rungs = _search(config, ev, "REDUCE_BULLET_SPEED")
    assert [(r.ratio, r.value, r.outcome) for r in rungs] == [("9/10", 2.7, "fails"), ("17/20", 2.55, "passes")]
    assert rungs[-1].miss_score == 0.0 and rungs[0].failed_checks
    assert outcome.ok and outcome.candidate.phase("phase_1").pattern.bullet_speed == 2.55
    assert outcome.detail["search"] == "passed" and outcome.detail["field"] == "bullet_speed"
    assert "the gentlest of 2 rung(s)" in outcome.explanation
    assert evaluation(run(outcome.candidate), candidate=outcome.candidate).passed


def test_a_refused_intent_records_the_refusal(failing) -> None:  # type: ignore[no-untyped-def]
    config, ev = failing
    outcome, rungs = _search(config, ev, "REDUCE_PATTERN_LAYERS")
    assert not outcome.ok and outcome.error == "phase_1 already has 1 layer (the contract's minimum)"
    assert [(r.ratio, r.outcome) for r in rungs] == [("1", "refused")]
