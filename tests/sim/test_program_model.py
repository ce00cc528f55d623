"""The sim program model (gcv.sim.program_model): the compiled baseline validates, the bounds
table reads the models, and the two refusal sentences the cores share. The cores' side of the
same rules is tests/engine_runners/test_program_shape.py and test_program_bounds.py."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from gcv.sim.program_model import (COORD, PATTERN_NAMES, SPEED, Bound, SimProgram, duplicate_phase_id_message,
                                   pattern_code_message, program_bounds, program_keys)
from tests.support.simutil import baseline_program


def test_the_compiled_baseline_is_a_valid_program() -> None:
    program = SimProgram.model_validate(baseline_program())
    assert [p.phase_id for p in program.phases] == ["phase_1", "phase_2", "phase_3"]


def test_the_bounds_table() -> None:
    bounds = {b.path: b for b in program_bounds()}
    assert bounds["player.max_health"] == Bound("player.max_health", 1, 99)
    assert bounds["player.speed"] == Bound("player.speed", 0, SPEED)
    assert bounds["boss.x"] == Bound("boss.x", -COORD, COORD)
    assert bounds["phases[].phase_id"] == Bound("phases[].phase_id", 1, 32)
    assert bounds["tick_hz"] == Bound("tick_hz", 60, 60)
    assert "phases[].slots[][1]" in bounds
    keys = dict(program_keys())
    assert keys["player"] and "max_health" in keys["player"] and "phases" in keys[""]


def test_the_shared_refusal_sentences() -> None:
    assert PATTERN_NAMES.index("ring") == 0
    assert pattern_code_message(1, "ring") == ("pattern_code 1 contradicts pattern 'ring' (whose code is 0); "
                                               "the two must name the same pattern")
    assert duplicate_phase_id_message("p", 0, 2).startswith("phase id 'p' is used by phases 0 and 2")


@pytest.mark.parametrize("mutate", [
    lambda p: p["player"].update(max_health=100),
    lambda p: p["phases"][0].update(pattern_code=1),
    lambda p: p["phases"][1].update(phase_id=p["phases"][0]["phase_id"]),
    lambda p: p["phases"][0].update(phase_id="Phase 1"),
    lambda p: p.update(extra=1),
    lambda p: p.pop("bot"),
], ids=["health", "pattern-code", "repeated-id", "id-characters", "unknown-member", "missing-section"])
def test_a_malformed_program_is_refused(mutate) -> None:  # type: ignore[no-untyped-def]
    program = copy.deepcopy(baseline_program())
    mutate(program)
    with pytest.raises(ValidationError):
        SimProgram.model_validate(program)
