"""Fights whose answer is known by construction (issue 29): the analysis must reach it within
the default work budget.

* ``edge_gap``: the only safe lane is as wide as the hit radius and must be walked into long
  before any bullet is near; "walk right, stand" survives, standing still does not. The beam
  search alone ranked by nearby clearance stood still until too late and gave up
  (undetermined); the cheap witnesses find the walk.
* ``ring_wall``: a solid ring sweeps the whole arena; unfair, within the default budget.
"""

from __future__ import annotations

import pytest

from gcv.analysis import DEFAULT_BUDGET_WORK, analyze
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from gcv.validation.validate import validate
from tests.support.fairutil import edge_gap, ring_wall


def _hits(doc: dict, runs: list[list[int]]) -> int:
    program = compile_program(BulletHellConfig.model_validate(doc))
    trace = {"format": "gcv.inputs/1", "tick_hz": 60, "runs": runs}
    return Simulation(program, {"kind": "inputs", "trace": trace}).run(seed=1).telemetry["player_hits"]


@pytest.mark.slow  # a full search each: ~7 s (make test runs them; make test-fast stays under a minute)
@pytest.mark.parametrize("radius", [2, 1.5])
def test_a_gap_as_wide_as_the_hit_radius_is_fair(radius: float) -> None:
    doc = edge_gap(hit_radius=radius, start_x=-1 if radius == 2 else 0.2)
    assert validate(doc, doc).ok
    # the known truth, in the engine itself
    assert _hits(doc, [[600, 1, 0, 0]]) == 0  # walk right (to the edge) and stay
    assert _hits(doc, [[600, 0, 0, 0]]) > 0  # standing still is hit
    report = analyze(doc, seed=1)
    assert report.verdict == "fair", report.reason
    assert report.witness is not None and report.witness.replay.player_hits == 0
    assert report.effort.work_units <= DEFAULT_BUDGET_WORK and report.effort.stopped_by == "complete"


@pytest.mark.slow
def test_a_sparse_fight_standing_still_survives_is_fair_by_standing_still() -> None:
    doc = edge_gap(start_x=1)  # already in the lane
    report = analyze(doc, seed=1)
    assert report.verdict == "fair" and report.effort.cheap is not None
    assert report.effort.cheap.found == "stand still"
    assert report.witness is not None and report.witness.runs == 1


@pytest.mark.parametrize("wall", [
    ring_wall(),
    ring_wall(width=8, bullets=64, hit_radius=0.6, speed=1.5, player_speed=2.0, start_y=-1.0),
    ring_wall(width=7, bullets=56, hit_radius=0.5, speed=2.0, player_speed=3.0, start_y=-2.0),
    ring_wall(width=5, bullets=48, hit_radius=0.5, speed=3.0, player_speed=5.0, start_y=-2.0),
])
def test_solid_ring_walls_are_unfair_within_the_default_budget(wall: dict) -> None:
    assert validate(wall, wall).ok
    report = analyze(wall, seed=1)
    assert report.verdict == "unfair", report.reason
    assert report.effort.work_units <= DEFAULT_BUDGET_WORK
    for runs in ([[300, 0, 0, 0]], [[300, 1, -1, 0]], [[300, 0, -1, 0]]):  # nothing simple survives either
        assert _hits(wall, runs) > 0


@pytest.mark.slow
def test_a_phase_inside_the_opening_spread_does_not_report_tick_0_at_0() -> None:
    """edge_gap's one phase (600 ticks) ends before the bound could spread over the arena: its
    minimum used to be tick 0 at 0.0% (only the start cell is reachable at tick 0)."""
    report = analyze(edge_gap(), seed=1)
    sa = report.safe_area
    assert sa.warmup_ticks >= report.fight_ticks  # the whole fight is inside the opening spread
    (phase,) = sa.phases
    assert phase.measured_against == "opening" and phase.ticks_considered == report.fight_ticks
    assert (phase.min_tick, phase.min_milli) != (0, 0) and phase.min_milli > 0
    assert sa.tightest_tick == phase.min_tick > 0
    # measured against the bullet-free spread by the same procedure: nothing is lost before
    # the first bullet comes near the bottom (it reaches it at tick ~200), so the tightest
    # moment is when the column arrives, not an artefact of the opening
    assert 150 <= phase.min_tick <= 300 and phase.min_milli < 1000
