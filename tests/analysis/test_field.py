"""The hit-free bullet field equals the engine's bullets, tick by tick, until the first hit.

This is what makes the impossibility proof and the witness search talk about the real
fight: before any hit no bullet has been removed by a collision, so the engine's arrays must
be exactly the field's (same order, same integers), aimed and scatter waves included.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcv.analysis import analyze
from gcv.analysis.field import BulletField, aim_angle, wave_specs
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from gcv.sim.schedule import emission_schedule
from tests.support.fairutil import baseline_data, with_phase
from tests.support.strategies import valid_configs

RUN = st.tuples(st.integers(1, 90), st.integers(-1, 1), st.integers(-1, 1), st.integers(0, 1))


def _compare_until_hit(program: dict, runs: list[list[int]], seed: int, max_ticks: int = 100_000) -> int:
    """Run the engine with the trace; rebuild the field with the aims the engine used; compare.
    Returns the number of ticks compared."""
    trace = {"format": "gcv.inputs/1", "tick_hz": 60, "runs": runs}
    sim = Simulation(program, {"kind": "inputs", "trace": trace})
    sim.reset(seed=seed)
    specs = wave_specs(program, seed, emission_schedule(program))
    aimed = {s.tick: s for s in specs if s.aim}
    aims: dict[int, int] = {}
    states = []
    while True:
        t = sim.tick
        if t in aimed:  # the engine aims at the position before this tick's move
            aims[aimed[t].ordinal] = aim_angle(program, sim.px, sim.py)
        more = sim.step()
        if sim.hits or t >= max_ticks:
            break
        states.append((t, sim.X.copy(), sim.Y.copy(), sim.VX.copy(), sim.DEATH.copy(), sim.PH.copy()))
        if not more:
            break
    field = BulletField(program, specs, aims)
    for t, x, y, vx, death, ph in states:
        idx = field.alive(t)
        fx, fy = field.positions(t, idx)
        assert np.array_equal(fx, x) and np.array_equal(fy, y), f"positions differ at tick {t}"
        assert np.array_equal(field.VX[idx], vx) and np.array_equal(field.DEATH[idx], death), t
        assert np.array_equal(field.PH[idx], ph), t
    return len(states)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", [
    {},  # the baseline as committed
    {"type": "aimed_fan", "bullets_per_wave": 7, "spread_angle_deg": 60, "rotation_per_wave_deg": 0},
    {"type": "scatter", "bullets_per_wave": 9, "spread_angle_deg": 120, "rotation_per_wave_deg": 0},
], ids=["baseline", "aimed_fan", "scatter"])
def test_field_matches_engine_for_a_whole_hit_free_fight(pattern: dict) -> None:
    """Along a witness (a whole fight without a hit) every tick's bullets agree."""
    doc = with_phase(baseline_data(), 1, **pattern) if pattern else baseline_data()
    report = analyze(doc, seed=7, budget_seconds=60)
    assert report.witness is not None, report.reason
    program = compile_program(BulletHellConfig.model_validate(doc))
    compared = _compare_until_hit(program, report.witness.trace["runs"], seed=7)
    assert compared == report.fight_ticks


def test_field_matches_engine_until_the_first_hit() -> None:
    program = compile_program(BulletHellConfig.model_validate(with_phase(
        baseline_data(), 0, type="aimed_fan", bullets_per_wave=9, spread_angle_deg=40)))
    runs = [[40, 1, 0, 0], [25, 0, 1, 1], [60, -1, 0, 0], [30, -1, -1, 0], [90, 1, 1, 0]] * 8
    assert _compare_until_hit(program, runs, seed=3) > 60


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=valid_configs(max_phases=3), runs=st.lists(RUN, min_size=1, max_size=30),
       seed=st.integers(0, (1 << 63) - 1))
def test_field_matches_engine_on_random_configs(config: BulletHellConfig, runs: list, seed: int) -> None:
    program = compile_program(config)
    _compare_until_hit(program, [list(r) for r in runs], seed, max_ticks=1200)
