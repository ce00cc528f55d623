"""Building run requests (engine_runners.requests): from a config or a compiled program, hashed,
with the player's stable label and the capture ticks sorted once."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine_runners.requests import build_request
from gcv.sim.program import compile_program, program_hash
from tests.support.evalutil import base


def test_a_request_from_a_config_and_from_its_program_are_the_same() -> None:
    config = base()
    a = build_request(config, seed=7, player={"kind": "bot", "skill": "expert"}, output_dir="runs/x", run_id="x",
                      capture_ticks=[60, 0, 60])
    b = build_request(compile_program(config), seed=7, player={"kind": "bot", "skill": "expert"},
                      output_dir="runs/x", run_id="x", capture_ticks=[0, 60])
    assert a == b
    assert a.program_hash == program_hash(a.program) and a.config_hash == a.program["config_hash"]
    assert a.player_label == "bot:expert" and a.capture_ticks == [0, 60] and a.output_dir == "runs/x"


def test_a_bad_request_is_refused_when_built() -> None:
    with pytest.raises(ValidationError):
        build_request(base(), seed=-1, player={"kind": "scripted"}, output_dir="o", run_id="x")
    with pytest.raises(ValidationError):
        build_request(base(), seed=1, player={"kind": "scripted"}, output_dir="o", run_id="bad id/")
    with pytest.raises(ValidationError):
        build_request(base(), seed=1, player={"kind": "bot", "skill": "pro"}, output_dir="o", run_id="x")
