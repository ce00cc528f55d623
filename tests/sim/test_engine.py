"""Invariants of the simulator on random valid configs, seeds and players (hypothesis)."""

from __future__ import annotations

import pytest

from hypothesis import HealthCheck, given, settings, strategies as st

from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from gcv.sim.schedule import emission_schedule
from gcv.sim.telemetry_model import Telemetry
from tests.support.strategies import valid_configs

PLAYERS = st.sampled_from([{"kind": "scripted"}, {"kind": "bot", "skill": "novice"},
                           {"kind": "bot", "skill": "average"}, {"kind": "bot", "skill": "expert"}])


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=valid_configs(), seed=st.integers(0, (1 << 63) - 1), player=PLAYERS)
def test_invariants(config, seed, player) -> None:
    program = compile_program(config)
    tel = Simulation(program, player).run(seed=seed).telemetry
    Telemetry.model_validate(tel)
    assert tel["peak_alive_bullets"] <= tel["total_bullets_spawned"]
    reached = [p for p in tel["phase_results"] if p["reached"]]
    assert sum(p["bullets_spawned"] for p in tel["phase_results"]) == tel["total_bullets_spawned"]
    assert sum(p["player_hits"] for p in tel["phase_results"]) == tel["player_hits"]
    assert sum(p["grazes"] for p in tel["phase_results"]) == tel["grazes"]
    assert sum(p["ticks"] for p in reached) == tel["ticks"]
    assert max(p["peak_alive_bullets"] for p in reached) == tel["peak_alive_bullets"]
    assert tel["player_hits"] <= program["player"]["max_health"]
    assert tel["player_hits"] == len(tel["hit_ticks"]) and tel["hit_ticks"] == sorted(tel["hit_ticks"])
    assert (tel["status"] == "died") == (tel["player_hits"] == program["player"]["max_health"])
    assert len(tel["state_hashes"]) == tel["ticks"] // 60
    assert max(tel["alive_per_second"]) == tel["peak_alive_bullets"]
    # the validation layer's schedule bound really bounds the simulation
    assert tel["peak_alive_bullets"] <= emission_schedule(program).alive_upper_bound
    # phases are entered in order and tile the run without gaps
    for a, b in zip(reached, reached[1:]):
        assert a["end_tick"] == b["start_tick"]
