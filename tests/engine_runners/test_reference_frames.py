"""Reference frames for an engine run that could not render (engine_runners.reference_frames):
drawn only for a run whose final state they provably show."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_runners.protocol import FRAMES_DIR, frame_name
from engine_runners.reference_frames import ReferenceFramesError, render_reference_frames
from engine_runners.requests import build_request
from gcv.sim.engine import Simulation
from tests.support.evalutil import base


def _request(tmp_path: Path):  # type: ignore[no-untyped-def]
    return build_request(base(), seed=1, player={"kind": "scripted"}, output_dir=tmp_path, run_id="r",
                         capture_ticks=[0, 120])


def test_frames_are_drawn_for_the_matching_run(tmp_path: Path) -> None:
    request = _request(tmp_path)
    state = Simulation(request.program, {"kind": "scripted"}).run(seed=1).telemetry["state_hash"]
    paths = render_reference_frames(request, expected_state_hash=state)
    assert [p.name for p in paths] == [frame_name(0), frame_name(120)]
    assert all(p.parent == tmp_path / FRAMES_DIR and p.stat().st_size > 0 for p in paths)


def test_a_run_that_ended_elsewhere_gets_no_frames(tmp_path: Path) -> None:
    with pytest.raises(ReferenceFramesError, match="frames would not show the engine's run"):
        render_reference_frames(_request(tmp_path), expected_state_hash="0" * 64)
    assert not (tmp_path / FRAMES_DIR).exists()
