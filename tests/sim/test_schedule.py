"""The emission schedule (gcv.sim.schedule): phase windows, wave ticks and the alive bound, from
the program alone; on the baseline they agree with what the simulator does."""

from __future__ import annotations

import copy

import pytest

from gcv.sim.engine import Simulation
from gcv.sim.schedule import boss_health_after, emission_schedule, phase_index_for
from tests.support.simutil import baseline_program


@pytest.fixture(scope="module")
def program():  # type: ignore[no-untyped-def]
    return baseline_program()


def test_phase_index_for_is_the_last_phase_whose_trigger_is_reached() -> None:
    phases = [{"trigger_micro": 1_000_000}, {"trigger_micro": 600_000}, {"trigger_micro": 300_000}]
    assert phase_index_for(100, 100, phases) == 0
    assert phase_index_for(61, 100, phases) == 0
    assert phase_index_for(60, 100, phases) == 1  # exactly at the trigger: the next phase
    assert phase_index_for(30, 100, phases) == 2
    assert phase_index_for(0, 100, phases) == 2


def test_boss_health_after_counts_the_shots_of_the_auto_fire(program) -> None:  # type: ignore[no-untyped-def]
    p, b = program["player"], program["boss"]
    assert boss_health_after(0, program) == b["max_health"] - p["auto_fire_damage"]  # a shot at tick 0
    interval = p["auto_fire_interval_ticks"]
    assert boss_health_after(interval - 1, program) == boss_health_after(0, program)
    assert boss_health_after(interval, program) == b["max_health"] - 2 * p["auto_fire_damage"]
    assert boss_health_after(10**6, program) == 0  # never negative


def test_the_baseline_schedule(program) -> None:  # type: ignore[no-untyped-def]
    s = emission_schedule(program)
    p, b = program["player"], program["boss"]
    shots = -(-b["max_health"] // p["auto_fire_damage"])
    assert s.boss_death_tick == (shots - 1) * p["auto_fire_interval_ticks"] and s.end_tick == s.boss_death_tick + 1
    assert [w.phase_id for w in s.windows] == ["phase_1", "phase_2", "phase_3"]
    assert s.windows[0].start_tick == 0 and all(a.end_tick == c.start_tick for a, c in zip(s.windows, s.windows[1:]))
    first = s.windows[0]
    assert first.wave_ticks == tuple(range(0, first.end_tick, program["phases"][0]["wave_interval_ticks"]))
    assert first.slots == len(program["phases"][0]["slots"]) == 16
    assert s.total_bullets == sum(len(w.wave_ticks) * w.slots for w in s.windows)
    assert len(s.alive_bound_series) == s.end_tick and max(s.alive_bound_series) == s.alive_upper_bound
    assert s.alive_bound_series[s.alive_upper_bound_tick] == s.alive_upper_bound
    assert s.alive_bound_series[0] == 16  # the first ring


def test_the_schedule_is_what_the_simulator_does(program) -> None:  # type: ignore[no-untyped-def]
    """The scripted baseline fight reaches the boss's death: the same phase windows and the same
    bullet count; its peak stays within the bound."""
    tel = Simulation(program, {"kind": "scripted"}).run(seed=1).telemetry
    s = emission_schedule(program)
    assert tel["end_reason"] == "boss_defeated" and tel["ticks"] == s.end_tick
    assert [(r["start_tick"], r["end_tick"]) for r in tel["phase_results"]] == [
        (w.start_tick, w.end_tick) for w in s.windows]
    assert tel["total_bullets_spawned"] == s.total_bullets
    assert tel["peak_alive_bullets"] <= s.alive_upper_bound


def test_a_fight_that_outlasts_the_duration_has_no_death_tick(program) -> None:  # type: ignore[no-untyped-def]
    tough = copy.deepcopy(program)
    tough["boss"]["max_health"] = 10**9
    s = emission_schedule(tough)
    assert s.boss_death_tick is None and s.end_tick == tough["duration_ticks"]
    assert [w.phase_id for w in s.windows] == ["phase_1"]  # the boss never drops to the next trigger
