"""The witness search and its proof: a trace that replays hit-free in all three cores."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.analysis import analyze
from gcv.analysis.field import BulletField, wave_specs
from gcv.analysis.grid import choose_grid
from gcv.analysis.moves import move_table
from gcv.analysis.witness import WitnessSearch, path_to_runs
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.players import InputsTrace, expand_trace
from gcv.sim.program import compile_program
from gcv.sim.schedule import emission_schedule
from gcv.sim.telemetry import gameplay_view
from tests.support.fairutil import baseline_data, edge_gap, falling_wall
from tests.support.parity import CPP, CSHARP, differing_fields, make_request
from tests.support.toolchains import require_cpp_harness, require_csharp_harness


def test_path_to_runs_round_trips_through_the_trace_format() -> None:
    program = compile_program(BulletHellConfig.model_validate(baseline_data()))
    moves = move_table(program)
    path = [0, 0, 3, 3, 3, 16, 1, 1, 0] + [5] * 70
    runs = path_to_runs(moves, path)
    trace = InputsTrace.model_validate({"format": "gcv.inputs/1", "tick_hz": 60, "runs": runs})
    expected = [(int(moves.dx[k]), int(moves.dy[k]), int(moves.focus[k])) for k in path]
    assert expand_trace(trace.model_dump()) == expected
    assert sum(r[0] for r in runs) == len(path) and len(runs) == 6


def _search(doc: dict, seed: int = 1) -> tuple[dict, object]:
    program = compile_program(BulletHellConfig.model_validate(doc))
    schedule = emission_schedule(program)
    specs = wave_specs(program, seed, schedule)
    moves = move_table(program)
    search = WitnessSearch(program, BulletField(program, specs), specs, moves, schedule.end_tick,
                           grid=choose_grid(program, moves, schedule.end_tick))
    return program, search


def test_search_path_replays_hit_free_and_follows_the_engine() -> None:
    program, search = _search(baseline_data())
    result = search.run()
    assert result.moves is not None and len(result.moves) == emission_schedule(program).end_tick
    assert result.stats.stopped_by == "found"
    trace = {"format": "gcv.inputs/1", "tick_hz": 60, "runs": path_to_runs(search.moves, result.moves)}
    tel = Simulation(program, {"kind": "inputs", "trace": trace}).run(seed=1).telemetry
    assert tel["player_hits"] == 0 and tel["status"] == "completed"


@pytest.mark.parametrize("start_x", [-1, -0.5])
def test_the_search_alone_walks_into_a_lane_long_before_the_danger_is_near(start_x: float) -> None:
    """Issue 29: with nothing near, the beam stood still (all of it collapsed onto one node)
    and, after dying, backed up into the same stand-still; ranked by nearby clearance, ties
    broken by nothing, it never walked the long way to the only lane. No cheap witness here:
    the search by itself, from the start, must find it."""
    program, search = _search(edge_gap(start_x=start_x))
    result = search.run()
    assert result.stats.stopped_by == "found" and result.moves is not None
    trace = {"format": "gcv.inputs/1", "tick_hz": 60, "runs": path_to_runs(search.moves, result.moves)}
    tel = Simulation(program, {"kind": "inputs", "trace": trace}).run(seed=1).telemetry
    assert tel["player_hits"] == 0 and tel["status"] == "completed"


def test_a_seed_path_starts_the_beam_where_it_ends() -> None:
    program, search = _search(baseline_data())
    stay = search.stay
    result = search.run(seed_path=[stay] * 100)
    assert result.stats.stopped_by == "found" and result.moves is not None and result.moves[:100] == [stay] * 100


def test_search_gives_up_on_an_unfair_fight_and_keeps_its_deepest_path() -> None:
    program, search = _search(falling_wall())
    result = search.run()
    assert result.moves is None and result.stats.stopped_by == "exhausted"
    assert result.stats.deepest_tick == 20  # tick 21 has no safe position (test_analyze's calculation)
    assert len(result.deepest_path) == 21
    assert result.stats.widths[-1] == 256 and result.stats.failures and set(result.stats.failures) == {21}


@pytest.fixture(scope="module")
def baseline_witness() -> dict:
    report = analyze(baseline_data(), seed=1, budget_seconds=120)
    assert report.witness is not None, report.reason
    return {"kind": "inputs", "trace": report.witness.trace}


@pytest.mark.slow
@pytest.mark.toolchain
@pytest.mark.parametrize("core", ["cpp", "csharp"])
def test_baseline_witness_replays_hit_free_in_the_engine_cores(core: str, baseline_witness: dict,
                                                              tmp_path: Path) -> None:
    """The same trace is a witness in the UE5 (C++) and Unity (C#) cores: they agree with
    Python bit for bit, so the harness run must show zero hits and Python's exact figures."""
    kind, exe = (CPP, require_cpp_harness()) if core == "cpp" else (CSHARP, require_csharp_harness())
    program = compile_program(BulletHellConfig.model_validate(baseline_data()))
    request = make_request(program, 1, baseline_witness, tmp_path, run_id=f"fair-witness-{core}")
    run = kind.run(exe, request, tmp_path)
    kind.assert_protocol_ok(run, request["run_id"])
    tel = run.telemetry
    assert tel["player_hits"] == 0 and tel["status"] == "completed" and tel["hit_ticks"] == []
    python = Simulation(program, baseline_witness).run(seed=1).telemetry
    assert differing_fields(gameplay_view(python), gameplay_view(tel)) == []
