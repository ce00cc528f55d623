"""The fight viewer: any tick of a recorded run, drawn by the deterministic simulator.

A run is named by its recorded run request (``RunRecord.request_hash``: the program, the
seed and the player), so the frame of tick *t* is the same picture for every engine that
ran it (the three implementations agree bit for bit). Frames are made on demand: the
simulator steps to the tick (from a checkpoint: a copy of the simulation every
``CHECKPOINT_TICKS``, kept in memory for the runs looked at recently) and
``gcv.simio.render`` draws it; each PNG is cached in the workspace
(``cache/frames/<request hash>/<tick>.png``), so a frame is drawn once.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from gcv.sim.engine import Simulation
from gcv.simio.render import png_bytes
from gcv.store.atomic import atomic_write_bytes
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.state import RunRecord, WorkflowState

CHECKPOINT_TICKS = 240
KEEP_RUNS = 6


class ViewerError(LookupError):
    """No such run or tick (the page shows what there is)."""


class _Cursor:
    """One run being scrubbed: a simulation, and copies of it at regular ticks."""

    def __init__(self, program: dict[str, Any], player: dict[str, Any], seed: int) -> None:
        self.program = program
        self.sim = Simulation(program, player)
        self.sim.reset(seed=seed)
        self.checkpoints: dict[int, Simulation] = {0: self._copy(self.sim)}
        self.lock = threading.Lock()

    def _copy(self, sim: Simulation) -> Simulation:
        return copy.deepcopy(sim, memo={id(self.program): self.program})

    def png(self, tick: int) -> bytes:
        """The frame after tick ``tick`` ran (the simulator's ``snapshot`` of that tick)."""
        with self.lock:
            target = tick + 1
            if self.sim.tick > target or self.sim.status is not None and self.sim.tick != target:
                start = max(k for k in self.checkpoints if k <= target)
                self.sim = self._copy(self.checkpoints[start])
            while self.sim.tick < target and self.sim.status is None:
                self.sim.step()
                if self.sim.tick % CHECKPOINT_TICKS == 0 and self.sim.tick not in self.checkpoints:
                    self.checkpoints[self.sim.tick] = self._copy(self.sim)
            return png_bytes(self.program, self.sim.snapshot())


class FightViewer:
    def __init__(self, cache_root: Path) -> None:
        self.cache_root = cache_root
        self._cursors: OrderedDict[str, _Cursor] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def runs(state: WorkflowState) -> dict[str, RunRecord]:
        """The runs a reviewer compares: the baseline and the final candidate (when they ran)."""
        out: dict[str, RunRecord] = {}
        if state.baseline_run is not None and state.baseline_run.ok and state.baseline_run.telemetry_hash:
            out["baseline"] = state.baseline_run
        final = state.final_round()
        if final is not None and final.run is not None and final.run.ok and final.run.telemetry_hash:
            out["candidate"] = final.run
        return out

    def meta(self, d: WorkflowDir, state: WorkflowState) -> dict[str, Any]:
        """What the viewer's controls need: ticks, hits and phase starts of each side."""
        sides: dict[str, dict[str, Any]] = {}
        final = state.final_round()
        for side, run in self.runs(state).items():
            tel = d.get(run.telemetry_hash) if run.telemetry_hash else {}
            sides[side] = {
                "label": "baseline" if side == "baseline" else f"final candidate (round {final.round if final else '?'})",
                "engine": run.engine, "ticks": int(tel.get("ticks", 0)), "hit_ticks": list(tel.get("hit_ticks", [])),
                "status": tel.get("status"), "player": tel.get("player"), "seed": tel.get("seed"),
                "phases": [{"phase_id": p["phase_id"], "start_tick": p["start_tick"]}
                           for p in tel.get("phase_results", []) if p.get("start_tick") is not None],
            }
        return {"tick_hz": 60, "sides": sides,
                "max_tick": max((s["ticks"] for s in sides.values()), default=1) - 1}

    def frame(self, d: WorkflowDir, state: WorkflowState, side: str, tick: int) -> bytes:
        run = self.runs(state).get(side)
        if run is None:
            raise ViewerError(f"no {side} run to show in {state.id}")
        tel = d.get(run.telemetry_hash) if run.telemetry_hash else {}
        last = int(tel.get("ticks", 0)) - 1
        if not 0 <= tick <= max(last, 0):
            raise ViewerError(f"tick {tick} is outside the {side} run (0..{last})")
        key = run.request_hash
        path = self.cache_root / "frames" / key / f"{tick}.png"
        try:
            return path.read_bytes()
        except OSError:
            pass
        data = self._cursor(d, key).png(tick)
        atomic_write_bytes(path, data)
        return data

    def _cursor(self, d: WorkflowDir, key: str) -> _Cursor:
        with self._lock:
            cursor = self._cursors.get(key)
            if cursor is not None:
                self._cursors.move_to_end(key)
                return cursor
        request = d.get(key)  # the recorded run request: program, seed and player
        cursor = _Cursor(request["program"], request["player"], int(request["seed"]))
        with self._lock:
            self._cursors[key] = cursor
            while len(self._cursors) > KEEP_RUNS:
                self._cursors.popitem(last=False)
        return cursor


__all__ = ["FightViewer", "ViewerError", "CHECKPOINT_TICKS"]
