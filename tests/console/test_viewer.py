"""The fight viewer's positions are the simulator's own: every tick of a run, the bullet that hit,
the recorded frames redrawn from them, and the endpoint the browser reads (issue 31.6)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gcv.console.viewer import FightViewer, ViewerError, bullets_at, fight_positions
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation, Snapshot
from gcv.sim.program import compile_program
from gcv.simio.render import png_bytes
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import CAPTURE_TICKS, Settings
from tests.console.conftest import REQUEST, _browser

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "artifacts" / "baselines" / "shrine_trial.json"


def _program(**phase_changes: object) -> dict:
    raw = json.loads(BASELINE.read_text(encoding="utf-8"))
    for phase in raw["phases"]:
        phase["pattern"].update(phase_changes)
    return compile_program(BulletHellConfig.model_validate(raw))


def _snapshot_of(data: dict, tick: int) -> Snapshot:
    """What the renderer needs of ``tick``, rebuilt from the viewer's JSON alone."""
    xs, ys, ph = bullets_at(data, tick)
    phase_index = max((p["index"] for p in data["phases"] if p["start_tick"] <= tick), default=0)
    invulnerable = any(a <= tick < b for a, b in data["invulnerable"])
    return Snapshot(tick, phase_index, data["player"]["x"][tick], data["player"]["y"][tick], invulnerable,
                    data["boss_health"][tick], tick in data["hit_ticks"], np.array(xs, dtype=np.int64),
                    np.array(ys, dtype=np.int64), np.array(ph, dtype=np.int64))


def _assert_every_tick_exact(program: dict, player: dict, seed: int) -> dict:
    data = fight_positions(program, player, seed)
    sim = Simulation(program, player)
    sim.reset(seed=seed)
    more = True
    while more:
        more = sim.step()
        snap = sim.snapshot()
        got = _snapshot_of(data, snap.tick)
        assert got.x.tolist() == snap.x.tolist() and got.y.tolist() == snap.y.tolist(), snap.tick
        assert got.phase.tolist() == snap.phase.tolist(), snap.tick
        assert (got.player_x, got.player_y, got.boss_health) == (snap.player_x, snap.player_y, snap.boss_health)
        assert (got.invulnerable, got.hit_this_tick, got.phase_index) == (
            snap.invulnerable, snap.hit_this_tick, snap.phase_index), snap.tick
    assert data["ticks"] == sim.tick and data["hit_ticks"] == sim.hit_ticks and data["status"] == sim.status
    return data


def test_every_tick_is_the_simulators_own_and_the_hit_names_its_bullet() -> None:
    program = _program()
    data = _assert_every_tick_exact(program, {"kind": "scripted"}, 1)
    assert data["hit_ticks"] == [2071, 2113]  # the committed baseline's fight (scripted player, seed 1)
    assert [h["tick"] for h in data["hits"]] == data["hit_ticks"]
    b, r2 = data["bullets"], data["radii"]["hit"] ** 2
    for hit in data["hits"]:
        t = hit["tick"]
        px, py = data["player"]["x"][t], data["player"]["y"][t]
        assert hit["bullets"], "a hit names the bullet that touched"
        for i, x, y in zip(hit["bullets"], hit["x"], hit["y"]):
            assert b["end"][i] == t  # the bullet is gone from the hit tick on (the simulator removes it) ...
            s = b["spawn"][i]
            assert (x, y) == (data["boss"]["x"] + b["vx"][i] * (t - s), data["boss"]["y"] + b["vy"][i] * (t - s))
            assert (x - px) ** 2 + (y - py) ** 2 <= r2  # ... where it touched the player
            # and the tick before, it is one of the simulator's bullets, one move away
            sim = Simulation(program, {"kind": "scripted"})
            before = sim.snapshots_at(seed=1, ticks=[t - 1])[t - 1]
            assert any((bx, by) == (x - b["vx"][i], y - b["vy"][i]) for bx, by in zip(before.x.tolist(),
                                                                                       before.y.tolist()))


def test_a_dense_fight_with_absorbed_bullets_stays_exact() -> None:
    # more and faster bullets: hits, invulnerable stretches and bullets absorbed while invulnerable
    # (48 per wave, seed 5: the novice bot of the four-horizon dodge, docs/simulation.md)
    program = _program(bullets_per_wave=48)
    data = _assert_every_tick_exact(program, {"kind": "bot", "skill": "novice"}, 5)
    assert len(data["hit_ticks"]) >= 2 and data["invulnerable"]
    b, r2, boss = data["bullets"], data["radii"]["hit"] ** 2, data["boss"]
    touched_at = [e for s, e, vx, vy in zip(b["spawn"], b["end"], b["vx"], b["vy"]) if e < data["ticks"]
                  and (boss["x"] + vx * (e - s) - data["player"]["x"][e]) ** 2
                  + (boss["y"] + vy * (e - s) - data["player"]["y"][e]) ** 2 <= r2]
    assert set(data["hit_ticks"]) <= set(touched_at)
    assert [t for t in touched_at if t not in data["hit_ticks"]], "some bullets were absorbed while invulnerable"
    assert sum(len(h["bullets"]) for h in data["hits"]) == sum(1 for t in touched_at if t in data["hit_ticks"])


def test_the_payload_of_the_committed_baseline_is_small() -> None:
    data = fight_positions(_program(), {"kind": "scripted"}, 1)
    body = json.dumps(data, separators=(",", ":")).encode()
    # 2155 ticks, 604 bullets: ~57 KB (every tick's bullet positions spelt out would be ~1.5 MB)
    assert len(body) < 120_000, len(body)


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
def test_the_recorded_frames_are_drawn_again_from_the_positions(finished: tuple[Path, str], tmp_path: Path) -> None:
    root, wf = finished
    d, state = WorkflowLoop(Workspace(root)).load(wf)
    viewer = FightViewer(tmp_path / "cache")
    runs = {"baseline": state.baseline_run, "candidate": state.final_round().run}
    for side, run in runs.items():
        data = json.loads(viewer.positions(d, state, side))
        tel = d.get(run.telemetry_hash)
        assert data["ticks"] == tel["ticks"] and data["hit_ticks"] == tel["hit_ticks"]
        program = d.get(run.request_hash)["program"]
        recorded = {int(Path(f).stem.split("_")[1]): (d.root / f).read_bytes() for f in run.frames}
        assert sorted(recorded) == list(CAPTURE_TICKS)
        for tick, png in recorded.items():
            assert png_bytes(program, _snapshot_of(data, tick)) == png, (side, tick)
    # cached in the workspace by the run request: a new viewer (a restarted server) reads it back
    cached = tmp_path / "cache" / "positions" / f"{runs['candidate'].request_hash}.v1.json"
    assert cached.is_file()
    assert FightViewer(tmp_path / "cache").positions(d, state, "candidate") == cached.read_bytes()
    with pytest.raises(ViewerError):
        viewer.positions(d, state, "sideways")


@pytest.mark.slow
def test_meta_names_hits_phases_the_last_tick_and_the_tick_rate(finished: tuple[Path, str], tmp_path: Path) -> None:
    root, wf = finished
    d, state = WorkflowLoop(Workspace(root)).load(wf)
    meta = FightViewer(tmp_path / "cache").meta(d, state)
    assert set(meta["sides"]) == {"baseline", "candidate"} and meta["tick_hz"] == 60
    for side, run in (("baseline", state.baseline_run), ("candidate", state.final_round().run)):
        tel = d.get(run.telemetry_hash)
        info = meta["sides"][side]
        assert info["ticks"] == tel["ticks"] and info["hit_ticks"] == tel["hit_ticks"]
        assert [p["phase_id"] for p in info["phases"]] == [p["phase_id"] for p in tel["phase_results"] if p["reached"]]


@pytest.mark.slow
def test_the_endpoint_serves_the_positions_and_refuses_a_run_it_does_not_reproduce(
        finished: tuple[Path, str], tmp_path: Path) -> None:
    from gcv.console.app import create_app
    from gcv.console.context import ConsoleConfig

    root, wf = finished
    app = create_app(ConsoleConfig(workspace=root, host="127.0.0.1", port=8765, secret=b"s" * 32))
    with _browser(app, {"name": "ana"}) as client:
        r = client.get(f"/workflows/{wf}/positions/baseline.json")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        data = r.json()
        d, state = WorkflowLoop(Workspace(root)).load(wf)
        assert data["hit_ticks"] == d.get(state.baseline_run.telemetry_hash)["hit_ticks"]
        assert data["tick_hz"] == 60 and len(data["player"]["x"]) == data["ticks"]
        assert client.get(f"/workflows/{wf}/positions/sideways.json").status_code == 404
        assert client.get(f"/workflows/{wf}/frames/baseline/0.png").status_code == 404  # the PNG path is gone
        # a run whose recorded telemetry the simulator does not reproduce is refused, not drawn
        tampered = FightViewer(tmp_path / "other")
        run = state.final_round().run
        tel = dict(d.get(run.telemetry_hash))
        tel["hit_ticks"] = [*tel["hit_ticks"], 5]
        original = d.get

        def get(key: str):  # the telemetry as if another engine had recorded another fight
            return tel if key == run.telemetry_hash else original(key)

        d.get = get  # type: ignore[method-assign]
        with pytest.raises(ViewerError, match="does not reproduce"):
            tampered.positions(d, state, "candidate")


def test_the_new_change_pages_still_is_the_simulators_frame_at_the_middle_tick(tmp_path: Path) -> None:
    config = BulletHellConfig.model_validate_json(BASELINE.read_text(encoding="utf-8"))
    png, meta = FightViewer(tmp_path / "cache").still(config)
    data = fight_positions(_program(), {"kind": "scripted"}, 1)  # a new workflow's baseline run: seed 1, scripted
    assert meta["ticks"] == data["ticks"] and meta["tick"] == data["ticks"] // 2
    assert png == png_bytes(_program(), _snapshot_of(data, meta["tick"]))
    assert FightViewer(tmp_path / "cache").still(config) == (png, meta)  # cached
