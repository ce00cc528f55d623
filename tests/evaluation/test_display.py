"""What a person reads of a check (gcv.evaluation.display): units, seconds beside ticks, survival
never longer than the fight."""

from __future__ import annotations

from gcv.evaluation import display
from gcv.evaluation.display import actual_text, detail_text, expected_text, survival_text, survived_ticks, ticks_text
from gcv.sim.fixed import TICK_HZ

COMPLETED = {"status": "completed", "end_reason": "boss_defeated", "ticks": 2155, "duration_ticks": 2160,
             "survival_ticks": 2160}
DIED = {"status": "died", "end_reason": "player_died", "ticks": 1235, "duration_ticks": 2160, "survival_ticks": 1234}
SURVIVAL = {"name": "survival", "field": "survival_ticks", "op": ">=", "expected": 2160, "actual": 2160,
            "passed": True, "detail": "survived 2160 ticks; needs 2160 (36 s)"}


def test_the_tick_rate_is_the_simulators() -> None:
    assert display.TICK_HZ == TICK_HZ


def test_ticks_read_with_seconds() -> None:
    assert ticks_text(2160) == "2160 ticks (36.0 s)" and ticks_text(None) == "-"


def test_survival_is_never_longer_than_the_fight() -> None:
    assert survived_ticks(COMPLETED) == 2155 and survived_ticks(DIED) == 1234
    assert survival_text(COMPLETED) == "the whole fight (boss defeated at 35.9 s)"
    assert survival_text({**COMPLETED, "end_reason": "time_up", "ticks": 2160}) == "the whole fight (time up at 36.0 s)"
    assert survival_text(DIED) == "1234 ticks (20.6 s)"
    assert actual_text(SURVIVAL, COMPLETED) == "the whole fight (boss defeated at 35.9 s)"
    assert actual_text(SURVIVAL) == "2160 ticks (36.0 s)"  # without the run, the recorded figure
    assert detail_text(SURVIVAL, COMPLETED) == ("survived the whole fight (boss defeated at 35.9 s); "
                                                "needs 2160 ticks (36.0 s)")
    assert detail_text(SURVIVAL) == SURVIVAL["detail"]


def test_thresholds_carry_their_units() -> None:
    assert expected_text(SURVIVAL) == ">= 2160 ticks (36.0 s)"
    rate = {"name": "intent.spawn_rate", "op": ">", "expected": 17.143, "actual": 20.0}
    assert expected_text(rate) == "> 17.143 bullets/s" and actual_text(rate) == "20 bullets/s"
    alive = {"name": "intent.mean_alive", "op": ">", "expected": 52.234, "actual": None}
    assert expected_text(alive) == "> 52.234 bullets alive" and actual_text(alive) == "-"
    assert expected_text({"name": "low_fps", "op": ">=", "expected": 55}) == ">= 55 FPS"
    assert expected_text({"name": "run_status", "op": "==", "expected": "completed"}) == "== completed"
    assert expected_text({"name": "intent.bidirectional", "op": "==", "expected": True}) == "== true"
