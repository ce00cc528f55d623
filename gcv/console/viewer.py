"""The fight viewer: a recorded run's positions, tick by tick, for the browser to draw.

A run is named by its recorded run request (``RunRecord.request_hash``: the program, the
seed and the player), so the fight of that request is the same for every engine that ran it
(the three implementations agree bit for bit). The viewer re-runs the request in the
deterministic simulator once and writes what every tick shows: the player's position, the
bullets, the boss's health, the invulnerable stretches and, at each hit tick, the bullet(s)
that touched the player. The browser draws it on a canvas at the fight's tick rate
(``console.js``). The JSON is cached in the workspace (``cache/positions/<request hash>.json``),
so a run is simulated once.

**Encoding (exact, not quantized).** The simulator moves a bullet implicitly: after its k-th
move a bullet spawned at tick ``s`` with velocity ``(vx, vy)`` is at ``boss + k * v``
(``Simulation.positions``), and a bullet drawn at tick ``t`` has made ``t - s`` moves. So each
bullet is one column entry: ``spawn`` (its first tick), ``end`` (the first tick it is gone:
expired, or removed by touching the player), ``vx``, ``vy`` (Q16.16 per tick) and ``phase``
(the phase index that fired it); the bullets at tick ``t`` are those with ``spawn <= t < end``,
in creation order, each at ``boss + v * (t - spawn)``: the simulator's own integers (every
one below 2**53, so a JavaScript number holds it exactly). The player is one ``x`` and ``y``
per tick. The bullets are followed through the run by their identity in the simulator's
arrays, and the identity is checked against those arrays after every tick; a run whose ticks
or hits differ from its recorded telemetry is refused, never drawn.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

from gcv.contract.canonical import content_hash
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.fixed import TICK_HZ
from gcv.sim.program import program_hash
from gcv.simio.render import PHASE_COLORS, PX_PER_UNIT, png_bytes
from gcv.store.atomic import atomic_write_bytes
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.activities import run_request
from gcv.workflow.state import RunRecord, Settings, WorkflowState

POSITIONS_FORMAT = 1  # the cache file's form; a new form is written beside the old


class ViewerError(LookupError):
    """No such run, or a run the simulator does not reproduce (the page shows what there is)."""


def fight_positions(program: dict[str, Any], player: dict[str, Any], seed: int) -> dict[str, Any]:
    """Every tick of the fight of ``(program, player, seed)``, in the encoding above."""
    sim = Simulation(program, player)
    sim.reset(seed=seed)
    bx, by = sim.boss_x, sim.boss_y
    spawn: list[int] = []
    end: list[int] = []
    vx: list[int] = []
    vy: list[int] = []
    phase: list[int] = []
    px: list[int] = []
    py: list[int] = []
    boss_health: list[int] = []
    invulnerable: list[list[int]] = []  # [first, last + 1) stretches
    hits: list[dict[str, Any]] = []
    ids = np.empty(0, dtype=np.int64)  # the bullet number of each entry of the simulator's arrays
    more = True
    while more:
        t = sim.tick
        pre_s, pre_vx, pre_vy, pre_death = sim.S, sim.VX, sim.VY, sim.DEATH  # replaced, never changed, by a step
        spawned_before = sim.spawned
        more = sim.step()
        emitted = sim.spawned - spawned_before
        # what tick t did to the bullets: expiry (death <= t), emission at the boss, then the
        # bullets touching the player removed (hit or not: invulnerable, they are absorbed)
        kept = pre_death > t
        kept_ids = ids[kept]
        kx = bx + pre_vx[kept] * (t - pre_s[kept])
        ky = by + pre_vy[kept] * (t - pre_s[kept])
        touching = (kx - sim.px) ** 2 + (ky - sim.py) ** 2 <= sim.hit_r2
        at_boss = (bx - sim.px) ** 2 + (by - sim.py) ** 2 <= sim.hit_r2  # new bullets are at the boss
        for i in ids[~kept].tolist() + kept_ids[touching].tolist():
            end[i] = t
        new_ids = np.arange(len(spawn), len(spawn) + emitted, dtype=np.int64)
        if emitted:
            tail = slice(sim.VX.size - emitted, None)
            if at_boss:  # removed in the tick they were fired: never drawn (only as a hit below)
                spawn += [t] * emitted
                end += [t] * emitted
                vx += [0] * emitted
                vy += [0] * emitted
                phase += [sim.phase_index] * emitted
            else:
                spawn += [t] * emitted
                end += [-1] * emitted
                vx += sim.VX[tail].tolist()
                vy += sim.VY[tail].tolist()
                phase += sim.PH[tail].tolist()
        survivors = ~touching
        ids = np.concatenate((kept_ids[survivors], new_ids if not at_boss else new_ids[:0]))
        # the identity holds: the entries are the simulator's own bullets, in its order
        n_new = 0 if at_boss else emitted
        if not (ids.size == sim.VX.size
                and np.array_equal(pre_s[kept][survivors], sim.S[:sim.S.size - n_new])
                and np.array_equal(pre_vx[kept][survivors], sim.VX[:sim.VX.size - n_new])
                and np.array_equal(pre_vy[kept][survivors], sim.VY[:sim.VY.size - n_new])
                and bool(np.all(sim.S[sim.S.size - n_new:] == t))):
            raise ViewerError(f"the viewer lost track of the bullets at tick {t}")
        px.append(sim.px)
        py.append(sim.py)
        boss_health.append(sim.boss_health)
        if t < sim.invuln_until:
            if invulnerable and invulnerable[-1][1] == t:
                invulnerable[-1][1] = t + 1
            else:
                invulnerable.append([t, t + 1])
        if sim.hit_this_tick:
            hx = kx[touching].tolist() + ([bx] * emitted if at_boss else [])
            hy = ky[touching].tolist() + ([by] * emitted if at_boss else [])
            hit_ids = kept_ids[touching].tolist() + (new_ids.tolist() if at_boss else [])
            hits.append({"tick": t, "bullets": hit_ids, "x": hx, "y": hy})
    ticks = sim.tick
    end = [ticks if e < 0 else e for e in end]
    phases = [{"phase_id": st.phase_id, "index": i, "start_tick": st.start_tick, "end_tick": st.end_tick}
              for i, st in enumerate(sim.stats) if st.start_tick is not None]
    return {
        "format": POSITIONS_FORMAT, "tick_hz": TICK_HZ, "ticks": ticks, "status": sim.status,
        "end_reason": sim.end_reason, "hit_ticks": list(sim.hit_ticks),
        "arena": {"half_width": program["arena"]["half_width"], "half_height": program["arena"]["half_height"]},
        "boss": {"x": bx, "y": by, "max_health": sim.boss_max_health},
        "radii": {"hit": program["player"]["hit_radius"], "graze": program["player"]["graze_radius"]},
        "draw": {"px_per_unit": PX_PER_UNIT, "phase_colors": ["#%02x%02x%02x" % c for c in PHASE_COLORS]},
        "phases": phases,
        "player": {"x": px, "y": py},
        "boss_health": boss_health,
        "invulnerable": invulnerable,
        "bullets": {"spawn": spawn, "end": end, "vx": vx, "vy": vy, "phase": phase},
        "hits": hits,
    }


def bullets_at(data: dict[str, Any], tick: int) -> tuple[list[int], list[int], list[int]]:
    """x, y and phase of the bullets drawn at ``tick``, in creation order (as ``console.js`` does)."""
    b, bx, by = data["bullets"], data["boss"]["x"], data["boss"]["y"]
    xs: list[int] = []
    ys: list[int] = []
    ph: list[int] = []
    for s, e, vx, vy, p in zip(b["spawn"], b["end"], b["vx"], b["vy"], b["phase"]):
        if s <= tick < e:
            xs.append(bx + vx * (tick - s))
            ys.append(by + vy * (tick - s))
            ph.append(p)
    return xs, ys, ph


class FightViewer:
    def __init__(self, cache_root: Path) -> None:
        self.cache_root = cache_root
        self._lock = threading.Lock()  # one simulation of a run at a time

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
        return {"tick_hz": TICK_HZ, "sides": sides,
                "max_tick": max((s["ticks"] for s in sides.values()), default=1) - 1}

    def still(self, config: BulletHellConfig) -> tuple[bytes, dict[str, Any]]:
        """The fight of ``config`` as a new workflow would run its baseline (the default seed
        and player), drawn at its middle tick by the simulator's renderer: the New change page's
        picture. Cached by the run request's program hash."""
        settings = Settings()
        request = run_request(config, settings=settings, run_id="baseline", capture_ticks=())
        recorded = request.model_dump(mode="json")  # as the loop records it
        program, player, seed = recorded["program"], recorded["player"], int(recorded["seed"])
        folder = self.cache_root / "stills"
        key = f"{request.program_hash}.{seed}"
        png_path, meta_path = folder / f"{key}.png", folder / f"{key}.json"
        try:
            return png_path.read_bytes(), json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        with self._lock:
            sim = Simulation(program, player)
            sim.reset(seed=seed)
            while sim.step():
                pass
            ticks = sim.tick
            tick = ticks // 2
            snap = Simulation(program, player).snapshots_at(seed=seed, ticks=[tick])[tick]
            data = png_bytes(program, snap)
        meta = {"tick": tick, "ticks": ticks, "tick_hz": TICK_HZ, "seconds": round(tick / TICK_HZ, 2),
                "fight_seconds": round(ticks / TICK_HZ, 2), "player": request.player_label, "seed": seed,
                "alive": int(snap.x.size), "phase": program["phases"][snap.phase_index]["phase_id"]}
        atomic_write_bytes(png_path, data)
        atomic_write_bytes(meta_path, json.dumps(meta, sort_keys=True).encode("utf-8"))
        return data, meta

    def positions(self, d: WorkflowDir, state: WorkflowState, side: str) -> bytes:
        """The JSON of the run on ``side`` (compact; cached by its run request)."""
        run = self.runs(state).get(side)
        if run is None:
            raise ViewerError(f"no {side} run to show in {state.id}")
        path = self.cache_root / "positions" / f"{run.request_hash}.v{POSITIONS_FORMAT}.json"
        try:
            return path.read_bytes()
        except OSError:
            pass
        tel = d.get(run.telemetry_hash) if run.telemetry_hash else {}
        with self._lock:
            request = d.get(run.request_hash)  # the recorded run request: program, seed and player
            data = fight_positions(request["program"], request["player"], int(request["seed"]))
        if data["ticks"] != tel.get("ticks") or data["hit_ticks"] != list(tel.get("hit_ticks", [])):
            raise ViewerError(f"the simulator does not reproduce the {side} run of {state.id} "
                              f"({data['ticks']} ticks, hits {data['hit_ticks']}; recorded {tel.get('ticks')}, "
                              f"{tel.get('hit_ticks')})")
        body = json.dumps(data, separators=(",", ":")).encode("utf-8")
        atomic_write_bytes(path, body)
        return body

    def run_positions(self, program: dict[str, Any], player: dict[str, Any], seed: int, *,
                      recorded: dict[str, Any], what: str) -> bytes:
        """The JSON of one run given by its program, player and seed (a batch row's run), checked
        against the figures recorded for it (``ticks``, ``player_hits``, ``status``); cached by
        the three."""
        key = content_hash({"program_hash": program_hash(program), "player": player, "seed": seed})
        path = self.cache_root / "positions" / f"run-{key}.v{POSITIONS_FORMAT}.json"
        try:
            return path.read_bytes()
        except OSError:
            pass
        with self._lock:
            data = fight_positions(program, player, seed)
        if (data["ticks"] != recorded.get("ticks") or len(data["hit_ticks"]) != recorded.get("player_hits")
                or data["status"] != recorded.get("status")):
            raise ViewerError(f"the simulator does not reproduce {what} ({data['ticks']} ticks, "
                              f"{len(data['hit_ticks'])} hit(s), {data['status']}; recorded {recorded.get('ticks')} "
                              f"ticks, {recorded.get('player_hits')} hit(s), {recorded.get('status')})")
        body = json.dumps(data, separators=(",", ":")).encode("utf-8")
        atomic_write_bytes(path, body)
        return body


__all__ = ["FightViewer", "ViewerError", "fight_positions", "bullets_at", "POSITIONS_FORMAT"]
