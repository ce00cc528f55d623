"""The batch API (gcv.simio.pool): many seeds and players of one program, in order, each equal to
its single run. The two-worker pool is tested in tests/sim/test_determinism.py (slow)."""

from __future__ import annotations

from gcv.sim.engine import Simulation
from gcv.simio.pool import run_batch
from tests.support.simutil import baseline_program

PLAYERS = [{"kind": "scripted"}, {"kind": "bot", "skill": "novice"}]


def test_a_batch_equals_its_single_runs_in_order() -> None:
    program = baseline_program()
    runs = [(seed, player) for seed in (5, 6) for player in PLAYERS]
    batch = run_batch(program, runs)
    assert len(batch) == 4
    assert batch == [Simulation(program, player).run(seed=seed).telemetry for seed, player in runs]
    assert [t["seed"] for t in batch] == [5, 5, 6, 6] and batch[1]["player"] == "bot:novice"


def test_one_run_and_none() -> None:
    program = baseline_program()
    assert run_batch(program, [], workers=4) == []
    (only,) = run_batch(program, [(3, PLAYERS[0])], workers=4)  # one run never starts a pool
    assert only == Simulation(program, PLAYERS[0]).run(seed=3).telemetry
