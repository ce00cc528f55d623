"""Golden vectors: the Python reference reproduces every committed vector exactly."""

from __future__ import annotations

import pytest

from gcv.sim.engine import Simulation
from gcv.sim.golden import build_vectors, vector_filename
from gcv.sim.program import program_hash
from gcv.sim.telemetry import gameplay_view
from tests.support.simutil import VECTORS, load_vector


def test_there_are_enough_vectors_covering_the_spec() -> None:
    vectors = [load_vector(p) for p in VECTORS]
    assert len(vectors) >= 16
    patterns = {ph["pattern"] for v in vectors for ph in v["request"]["program"]["phases"]}
    assert patterns == {"ring", "spiral", "aimed_fan", "petal", "scatter"}
    players = {v["request"]["player_label"].split(":")[0] if v["request"]["player"]["kind"] == "inputs"
               else v["request"]["player_label"] for v in vectors}
    assert {"scripted", "bot:novice", "bot:average", "bot:expert", "inputs"} <= players
    statuses = {v["expected"]["status"] for v in vectors}
    assert statuses == {"completed", "died"}
    assert any(len({s[2] for s in ph["slots"]}) == 2 for v in vectors for ph in v["request"]["program"]["phases"])
    assert any(ph["wave_interval_ticks"] == 6 for v in vectors for ph in v["request"]["program"]["phases"])
    assert any(len(ph["slots"]) == 512 for v in vectors for ph in v["request"]["program"]["phases"])


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_python_reproduces_vector(path) -> None:
    vector = load_vector(path)
    request = vector["request"]
    assert program_hash(request["program"]) == request["program_hash"]
    sim = Simulation(request["program"], request["player"])
    telemetry = sim.run(seed=request["seed"]).telemetry
    telemetry["player"] = request["player_label"]
    assert gameplay_view(telemetry) == vector["expected"]


@pytest.mark.slow
def test_committed_vectors_are_what_the_generator_produces() -> None:
    """A semantics change that forgot to regenerate the vectors fails here."""
    built = build_vectors()
    assert [vector_filename(i, v) for i, v in enumerate(built, start=1)] == [p.name for p in VECTORS]
    for vector, path in zip(built, VECTORS):
        assert vector == load_vector(path), f"{path.name} is stale: run python -m gcv.sim.golden --write artifacts/vectors"
