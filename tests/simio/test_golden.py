"""One golden vector (gcv.simio.golden): a run request any engine can run and the gameplay it must
reproduce. The whole committed set, the directed vectors and the planted errors they catch are
tested in tests/sim/test_golden.py."""

from __future__ import annotations

import json

from engine_runners.protocol import RunRequest
from gcv.sim.engine import Simulation
from gcv.sim.program import PROGRAM_ID, compile_program, program_hash
from gcv.sim.telemetry import gameplay_view
from gcv.simio.golden import BASELINE, VECTOR_ID, build_vector, vector_filename
from tests.support.evalutil import base


def test_a_vector_from_a_config() -> None:
    cfg = json.loads(BASELINE.read_text())
    vector = build_vector("baseline_bot", "the baseline, a novice bot", cfg, 11, {"kind": "bot", "skill": "novice"})
    assert (vector["vector"], vector["name"], vector["description"]) == (VECTOR_ID, "baseline_bot",
                                                                         "the baseline, a novice bot")
    request = RunRequest.model_validate(vector["request"])  # a request every engine accepts
    assert request.program == compile_program(base()) and request.program_hash == program_hash(request.program)
    assert (request.seed, request.player_label, request.run_id, request.output_dir) == (11, "bot:novice",
                                                                                        "baseline_bot", ".")
    expected = gameplay_view(Simulation(request.program, {"kind": "bot", "skill": "novice"}).run(seed=11).telemetry)
    assert vector["expected"] == expected and "engine" not in vector["expected"]


def test_a_vector_from_a_program_keeps_the_program_as_given() -> None:
    program = compile_program(base())
    assert program["program"] == PROGRAM_ID
    vector = build_vector("p", "d", program, 0, {"kind": "scripted"})
    assert vector["request"]["program"] == program and vector["request"]["program"] is not program


def test_vector_filenames() -> None:
    assert vector_filename(3, {"name": "ring_bot"}) == "03_ring_bot.json"
    assert vector_filename(12, {"name": "x"}) == "12_x.json"
