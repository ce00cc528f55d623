"""Same inputs, same figures: in process, in a subprocess and in a batch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine_runners.python_sim import PythonSimRunner
from engine_runners.requests import build_request
from gcv.simio.pool import run_batch
from gcv.sim.determinism import DeterminismError, _first_difference, check_determinism
from gcv.sim.engine import Simulation
from gcv.sim.telemetry import gameplay_view
from tests.support.simutil import baseline_program

PLAYERS = [{"kind": "scripted"}, {"kind": "bot", "skill": "novice"},
           {"kind": "bot", "skill": "average"}, {"kind": "bot", "skill": "expert"}]


@pytest.mark.parametrize("player", PLAYERS, ids=lambda p: p.get("skill", p["kind"]))
def test_check_determinism_passes_for_every_player(player) -> None:
    telemetry = check_determinism(baseline_program(), player, seed=1234)
    assert telemetry["ticks"] > 0


def test_check_determinism_names_the_first_difference() -> None:
    assert _first_difference({"a": [1, 2]}, {"a": [1, 3]}) == "$.a[1]: 2 vs 3"
    with pytest.raises(DeterminismError):
        raise DeterminismError("x")


def test_seeds_matter_for_bots_and_not_for_the_scripted_path() -> None:
    program = baseline_program()
    bots = {Simulation(program, PLAYERS[1]).run(seed=s).telemetry["state_hashes"][10] for s in range(4)}
    assert len(bots) == 4
    scripted = [gameplay_view(Simulation(program, PLAYERS[0]).run(seed=s).telemetry) for s in range(2)]
    for t in scripted:  # the scripted path draws nothing; only the hashed RNG state differs
        t.pop("state_hash"), t.pop("state_hashes"), t.pop("seed")
    assert scripted[0] == scripted[1]


@pytest.mark.slow
def test_batch_equals_one_by_one_in_order() -> None:
    program = baseline_program()
    runs = [(seed, player) for seed in (3, 4) for player in PLAYERS]
    singles = [Simulation(program, player).run(seed=seed).telemetry for seed, player in runs]
    assert run_batch(program, runs, workers=1) == singles
    assert run_batch(program, runs, workers=2) == singles


@pytest.mark.slow
def test_subprocess_and_inprocess_agree(tmp_path: Path) -> None:
    program = baseline_program()
    results = []
    for mode in ("inprocess", "subprocess"):
        request = build_request(program, seed=99, player=PLAYERS[2], output_dir=tmp_path / mode,
                                run_id=f"det-{mode}")
        result = PythonSimRunner(mode).run(request)
        assert result.ok, result.error
        on_disk = json.loads(Path(result.telemetry_path).read_text())
        results.append(gameplay_view(on_disk))
    assert results[0] == results[1]


def test_a_batch_hashes_its_program_once_per_player_and_every_run_reports_that_hash(monkeypatch) -> None:
    from gcv.sim import engine as sim_engine
    from gcv.sim.program import program_hash

    program = baseline_program()
    calls: list[int] = []
    monkeypatch.setattr(sim_engine, "program_hash", lambda p: calls.append(1) or program_hash(p))
    novice, expert = {"kind": "bot", "skill": "novice"}, {"kind": "bot", "skill": "expert"}
    telemetries = run_batch(program, [(seed, novice) for seed in range(3)] + [(seed, expert) for seed in range(2)])
    assert len(calls) == 2  # one Simulation per player, reused across its seeds
    assert {t["program_hash"] for t in telemetries} == {program_hash(program)}


@pytest.mark.parametrize("player", PLAYERS[:2], ids=lambda p: p.get("skill", p["kind"]))
def test_snapshots_at_equal_the_captures_of_a_whole_run(player) -> None:
    program = baseline_program()
    whole = Simulation(program, player).run(seed=7, capture_ticks=(0, 59, 600, 1201, 99_999))
    last = whole.telemetry["ticks"] - 1
    ticks = [0, 59, 600, 1201, last, last + 1, 99_999]
    some = Simulation(program, player).snapshots_at(seed=7, ticks=ticks)
    expected = Simulation(program, player).run(seed=7, capture_ticks=tuple(ticks)).snapshots
    assert sorted(some) == [s.tick for s in expected] == [0, 59, 600, 1201, last]  # none past the end
    for snap in expected:
        got = some[snap.tick]
        assert (got.phase_index, got.player_x, got.player_y, got.invulnerable, got.boss_health,
                got.hit_this_tick) == (snap.phase_index, snap.player_x, snap.player_y, snap.invulnerable,
                                       snap.boss_health, snap.hit_this_tick)
        assert got.x.tolist() == snap.x.tolist() and got.y.tolist() == snap.y.tolist()
        assert got.phase.tolist() == snap.phase.tolist()
    assert Simulation(program, player).snapshots_at(seed=7, ticks=[]) == {}
