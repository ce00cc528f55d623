"""The fight viewer draws exactly what the engine run drew, at any tick, in any order."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.console.viewer import FightViewer, ViewerError
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import CAPTURE_TICKS, Settings
from tests.console.conftest import REQUEST


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("viewer") / "ws"
    loop = WorkflowLoop(Workspace(root))
    base, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(REQUEST, base, Settings(), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="omar")
    assert loop.advance(wf).status == "evidence_ready"
    return root, wf


@pytest.mark.slow
def test_frames_are_the_runs_own_frames_in_any_order(finished: tuple[Path, str], tmp_path: Path) -> None:
    root, wf = finished
    loop = WorkflowLoop(Workspace(root))
    d, state = loop.load(wf)
    viewer = FightViewer(tmp_path / "cache")
    final = state.final_round()
    runs = {"baseline": state.baseline_run, "candidate": final.run}
    # backwards first (restores from checkpoints), then forwards
    for side, run in runs.items():
        recorded = {int(Path(f).stem.split("_")[1]): (d.root / f).read_bytes() for f in run.frames}
        assert sorted(recorded) == list(CAPTURE_TICKS)
        for tick in sorted(recorded, reverse=True) + sorted(recorded):
            assert viewer.frame(d, state, side, tick) == recorded[tick], (side, tick)
    # each frame is cached in the workspace: a new viewer (a restarted server) reads it back
    cached = tmp_path / "cache" / "frames" / final.run.request_hash / "600.png"
    assert cached.is_file()
    assert FightViewer(tmp_path / "cache").frame(d, state, "candidate", 600) == cached.read_bytes()


@pytest.mark.slow
def test_meta_names_hits_phases_and_the_last_tick(finished: tuple[Path, str], tmp_path: Path) -> None:
    root, wf = finished
    d, state = WorkflowLoop(Workspace(root)).load(wf)
    viewer = FightViewer(tmp_path / "cache")
    meta = viewer.meta(d, state)
    assert set(meta["sides"]) == {"baseline", "candidate"}
    for side, run in (("baseline", state.baseline_run), ("candidate", state.final_round().run)):
        tel = d.get(run.telemetry_hash)
        info = meta["sides"][side]
        assert info["ticks"] == tel["ticks"] and info["hit_ticks"] == tel["hit_ticks"]
        assert [p["phase_id"] for p in info["phases"]] == [p["phase_id"] for p in tel["phase_results"] if p["reached"]]
        last = tel["ticks"] - 1
        assert viewer.frame(d, state, side, last)[:8] == b"\x89PNG\r\n\x1a\n"
        for hit in tel["hit_ticks"][:2]:
            assert viewer.frame(d, state, side, hit) != viewer.frame(d, state, side, hit - 1)  # the hit is drawn
        with pytest.raises(ViewerError):
            viewer.frame(d, state, side, last + 1)
        with pytest.raises(ViewerError):
            viewer.frame(d, state, side, -1)
    with pytest.raises(ViewerError):
        viewer.frame(d, state, "sideways", 0)
