"""``analyze``: is this fight fair? A replayed witness, a sound impossibility proof, or neither.

The order of work, and why:

1. The reachable-set bound over the player-independent bullets (``gcv.analysis.reach``). When
   no bullet depends on the player, an empty set is a proof of unfairness and nothing else
   needs to run. With aimed phases the same bound is still a sound filter for the search
   (a hit-free run must avoid these bullets too) but is never used to claim unfairness.
2. The witness search (``gcv.analysis.witness``) with what is left of the budget.
3. The replay: the found path, as an ``inputs`` trace, through the reference simulator. Only
   ``player_hits == 0`` over the whole fight makes the verdict ``fair``.
4. The safe-area curve: from the bound of step 1 when the bullets are player-independent;
   with aimed phases, from a second bound over the bullets as they were fired at the
   witness (or at the search's deepest path), which the report labels.

``analyze`` is pure (no files, no network); ``run_analysis`` also returns what the frames need.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from PIL import Image

from gcv.analysis.field import BulletField, WaveSpec, wave_specs
from gcv.analysis.frames import cover_frame
from gcv.analysis.grid import Grid, choose_grid
from gcv.analysis.moves import MoveTable, move_table
from gcv.analysis.reach import ReachResult, covered_chunk, exact_step, forward, viable
from gcv.analysis.report import (Effort, FairnessReport, GridInfo, PhaseSafeArea, ReplayCheck, SafeArea,
                                 SearchEffort, UnfairInfo, WaveBlame, WitnessInfo)
from gcv.analysis.witness import SearchResult, SearchStats, WitnessSearch, aims_along, path_to_runs
from gcv.contract.canonical import config_hash, content_hash
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.players import INPUTS_FORMAT
from gcv.sim.program import compile_program, program_hash
from gcv.sim.schedule import Schedule, emission_schedule

ProgressFn = Callable[[str, int, int], None]
DEFAULT_BUDGET_SECONDS = 60.0


@dataclass
class Analysis:
    """A report plus what drawing its frames needs (kept out of the report: it is large)."""

    report: FairnessReport
    program: dict[str, Any]
    grid: Grid
    curve_field: BulletField
    curve_reach: ReachResult
    hit_r2: int

    def frame(self, tick: int, caption: str) -> Image.Image:
        """The arena at ``tick`` with the bound's cells: reachable-before-hits, covered, safe."""
        g, reach = self.grid, self.curve_reach
        covered = covered_chunk(self.curve_field, g, self.hit_r2, tick, tick + 1)[0]
        if tick < reach.exact_ticks:  # the exact opening: the positions themselves, by cell
            cx, cy, hit = _exact_candidates(self, tick)
            before = g.to_mask(g.from_cells(g.cell_x(cx), g.cell_y(cy)))
            covered |= g.to_mask(g.from_cells(g.cell_x(cx[hit]), g.cell_y(cy[hit])))
        else:
            before = g.to_mask(g.post(_set_at(self, tick - 1)))
        safe = g.to_mask(_set_at(self, tick)) if tick < reach.end_tick else np.zeros_like(covered)
        idx = self.curve_field.alive(tick)
        x, y = self.curve_field.positions(tick, idx)
        return cover_frame(self.program, g, tick, (x, y, self.curve_field.PH[idx]), before, covered, safe, caption)

    def unfair_frame(self) -> Image.Image | None:
        u = self.report.unfair
        if u is None:
            return None
        return self.frame(u.tick, f"tick {u.tick} ({u.seconds:.2f} s)  {u.active_phase_id}  "
                                  f"every reachable position is hit")

    def tightest_frame(self) -> Image.Image | None:
        sa = self.report.safe_area
        if sa.tightest_tick is None:
            return None
        return self.frame(sa.tightest_tick, f"tick {sa.tightest_tick} ({sa.tightest_tick / 60:.2f} s)  "
                                            f"{sa.tightest_phase_id}  safe {sa.tightest_milli / 10:.1f}%")


def _exact_candidates(analysis: Analysis, tick: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact opening replayed up to ``tick``: its candidate positions and which are hit."""
    pl = analysis.program["player"]
    xs = np.array([pl["start_x"]], dtype=np.int64)
    ys = np.array([pl["start_y"]], dtype=np.int64)
    for t in range(tick + 1):
        cx, cy, hit = exact_step(analysis.curve_field, analysis.grid, analysis.hit_r2, t, xs, ys)
        xs, ys = cx[~hit], cy[~hit]
    return cx, cy, hit


def _set_at(analysis: Analysis, t: int) -> int:
    reach = analysis.curve_reach
    if t < 0 or reach.stored is not None:
        return reach.reachable(t)
    # not stored (too large): run the bound again up to t
    again = forward(analysis.curve_field, analysis.grid, analysis.hit_r2,
                    (analysis.program["player"]["start_x"], analysis.program["player"]["start_y"]), t + 1,
                    store=False)
    return again.last


def _config(config: BulletHellConfig | dict[str, Any]) -> BulletHellConfig:
    return config if isinstance(config, BulletHellConfig) else BulletHellConfig.model_validate(config)


def analyze(config: BulletHellConfig | dict[str, Any], *, seed: int, budget_seconds: float = DEFAULT_BUDGET_SECONDS,
            progress: ProgressFn | None = None) -> FairnessReport:
    """The fairness verdict of one validated config and seed within ``budget_seconds``."""
    return run_analysis(config, seed=seed, budget_seconds=budget_seconds, progress=progress).report


def run_analysis(config: BulletHellConfig | dict[str, Any], *, seed: int,
                 budget_seconds: float = DEFAULT_BUDGET_SECONDS, progress: ProgressFn | None = None,
                 clock: Callable[[], float] = time.monotonic) -> Analysis:
    if not 0 <= seed < (1 << 63):
        raise ValueError(f"seed {seed} out of range; allowed 0..{(1 << 63) - 1}")
    if not budget_seconds > 0:
        raise ValueError(f"budget_seconds must be positive, got {budget_seconds}")
    cfg = _config(config)
    started = clock()
    deadline_at = started + budget_seconds

    def over() -> bool:
        return clock() >= deadline_at

    program = compile_program(cfg)
    schedule = emission_schedule(program)
    end = schedule.end_tick
    specs = wave_specs(program, seed, schedule)
    aimed_ids = _aimed_phase_ids(program, specs)
    dependent = bool(aimed_ids)
    moves = move_table(program)
    grid = choose_grid(program, moves, end)
    pl = program["player"]
    hit_r2 = pl["hit_radius"] ** 2
    start = (pl["start_x"], pl["start_y"])
    notes: list[str] = []

    base_field = BulletField(program, specs)
    base_reach = forward(base_field, grid, hit_r2, start, end, progress=progress, deadline=over)
    reach_seconds = clock() - started
    search_seconds = 0.0
    if not base_reach.complete:
        notes.append(f"the budget ran out in the reachable-set bound after {base_reach.end_tick} of {end} ticks")

    search: SearchResult | None = None
    witness: WitnessInfo | None = None
    unfair: UnfairInfo | None = None
    replay_seconds = 0.0
    if not dependent and base_reach.first_empty is not None:
        unfair = _blame(program, schedule, grid, base_field, base_reach, hit_r2)
    elif not over():
        t0 = clock()
        search = WitnessSearch(program, base_field, specs, moves, end, grid=grid).run(
            deadline=over, progress=progress,
            viable_provider=lambda: viable(base_reach, progress=progress, deadline=over))
        search_seconds = clock() - t0
        if search.moves is not None:
            t0 = clock()
            witness = _replay(program, moves, search.moves, seed)
            replay_seconds = clock() - t0
            if witness.replay.player_hits != 0 or witness.replay.status != "completed":
                notes.append(f"the search's path replayed with {witness.replay.player_hits} hits "
                             f"(status {witness.replay.status}); it is not a witness and is not reported as one")
                witness = None
    else:
        notes.append("no budget left for the witness search")

    # the safe-area curve
    if not dependent:
        basis, basis_note = "player_independent", "bullets do not depend on the player: the bound of the proof"
        curve_field, curve_reach = base_field, base_reach
    else:
        path = search.deepest_path if search is not None else []
        aims = search.aims if search is not None else {}
        if witness is not None:
            basis, basis_note = "witness_path", "aimed waves as fired at the witness's positions"
        else:
            basis, basis_note = "search_path", (f"aimed waves as fired at the search's deepest path "
                                                f"({len(path)} ticks, then standing still); not a proof of anything")
            if search is None:
                aims = aims_along(program, moves, {s.tick: s for s in specs if s.aim}, [], end)
        curve_field = BulletField(program, specs, aims)
        curve_reach = forward(curve_field, grid, hit_r2, start, end, deadline=over)
        if not curve_reach.complete:
            notes.append(f"the budget ran out while drawing the safe-area curve ({curve_reach.end_tick} of {end} ticks)")
    safe_area = _safe_area(program, schedule, grid, curve_reach, basis, basis_note, end)

    if witness is not None:
        verdict = "fair"
        reason = (f"a hit-free path exists: the witness trace ({witness.runs} input runs) replays through "
                  f"the reference simulator with 0 hits over all {end} ticks")
    elif unfair is not None:
        verdict = "unfair"
        reason = (f"no movement avoids a hit: at tick {unfair.tick} ({unfair.seconds:.2f} s) every position "
                  f"reachable without a hit is hit; phase {unfair.responsible_phase_id} wave "
                  f"{unfair.responsible_wave.wave_index} covers most of it")
    else:
        verdict = "undetermined"
        reason = _undetermined_reason(dependent, aimed_ids, base_reach, search, end, over())
    stats = search.stats if search is not None else SearchStats()
    effort = Effort(
        budget_seconds=budget_seconds, elapsed_seconds=round(clock() - started, 3),
        reach_ticks=base_reach.end_tick, reach_complete=base_reach.complete,
        search=SearchEffort(nodes_expanded=stats.nodes_expanded, restarts=stats.restarts, widths=stats.widths,
                            deepest_tick=stats.deepest_tick, failure_ticks=stats.failures[:20],
                            stopped_by=stats.stopped_by,  # type: ignore[arg-type]
                            used_viability=search is not None and search.used_viability,
                            calm_ticks=stats.calm_ticks),
        reach_seconds=round(reach_seconds, 3), search_seconds=round(search_seconds, 3),
        replay_seconds=round(replay_seconds, 3))
    report = FairnessReport(
        verdict=verdict, reason=reason, config_name=cfg.name, config_hash=config_hash(cfg),
        program_hash=program_hash(program), seed=seed, fight_ticks=end, player_dependent=dependent,
        aimed_phase_ids=aimed_ids, witness=witness, unfair=unfair, safe_area=safe_area, effort=effort,
        notes=notes)
    return Analysis(report, program, grid, curve_field, curve_reach, hit_r2)


# ---------------------------------------------------------------------------- parts
def _aimed_phase_ids(program: dict[str, Any], specs: list[WaveSpec]) -> list[str]:
    """Phases that fire at least one aimed wave in this fight (a phase never reached reads nothing)."""
    seen: list[str] = []
    for s in specs:
        pid = program["phases"][s.phase_index]["phase_id"]
        if s.aim and pid not in seen:
            seen.append(pid)
    return seen


def _replay(program: dict[str, Any], moves: MoveTable, path: list[int], seed: int) -> WitnessInfo:
    trace = {"format": INPUTS_FORMAT, "tick_hz": 60, "runs": path_to_runs(moves, path),
             "source": "gcv fair: witness search"}
    tel = Simulation(program, {"kind": "inputs", "trace": trace}).run(seed=seed).telemetry
    replay = ReplayCheck(player=tel["player"], player_hits=tel["player_hits"], status=tel["status"],
                         end_reason=tel["end_reason"], ticks=tel["ticks"], grazes=tel["grazes"],
                         state_hash=tel["state_hash"])
    return WitnessInfo(trace=trace, trace_hash=content_hash(trace), ticks=len(path), runs=len(trace["runs"]),
                       replay=replay)


def _phase_at(schedule: Schedule, tick: int) -> int:
    for w in schedule.windows:
        if w.start_tick <= tick < w.end_tick:
            return w.index
    return schedule.windows[-1].index


def _blame(program: dict[str, Any], schedule: Schedule, grid: Grid, field_: BulletField, reach: ReachResult,
           hit_r2: int) -> UnfairInfo:
    """Which waves hit what was still reachable at the tick the set emptied.

    In the exact opening those are positions (each hit by some bullet); later they are the
    cells of post(F[t - 1]) (each wholly inside some bullet's hit circle). A wave's share is
    the part of them its bullets account for; the shares of several waves may overlap.
    """
    t = reach.first_empty
    assert t is not None
    idx = field_.alive(t)
    x, y = field_.positions(t, idx)
    waves = field_.WAVE[idx]
    per_wave: dict[int, int] = {}
    if reach.empty_candidates is not None:
        kind = "positions"
        cx, cy = reach.empty_candidates
        total = int(cx.size)
        for ordinal in np.unique(waves).tolist():
            sel = waves == ordinal
            dx = cx[:, None] - x[sel][None, :]
            dy = cy[:, None] - y[sel][None, :]
            per_wave[ordinal] = int(((dx * dx + dy * dy) <= hit_r2).any(axis=1).sum())
    else:
        kind = "cells"
        before = grid.to_mask(grid.post(reach.before_last))
        total = int(before.sum())
        spans = grid.covered_spans(x, y, hit_r2)
        if spans is not None:
            bullet, rows, lo, hi = spans
            masks: dict[int, np.ndarray] = {}
            for b, j, a, c in zip(bullet.tolist(), rows.tolist(), lo.tolist(), hi.tolist()):
                mask = masks.setdefault(int(waves[b]), np.zeros_like(before))
                mask[j, a:c + 1] = True
            per_wave = {w: int((m & before).sum()) for w, m in masks.items()}
    phases = program["phases"]
    blames = []
    for ordinal, count in sorted(per_wave.items(), key=lambda kv: (-kv[1], kv[0])):
        if count == 0:
            continue
        spec = field_.specs[ordinal]
        blames.append(WaveBlame(phase_id=phases[spec.phase_index]["phase_id"], phase_index=spec.phase_index,
                                wave_index=spec.wave_index, spawn_tick=spec.tick, covered=count,
                                share_milli=(2000 * count + total) // (2 * max(total, 1))))
    by_phase: dict[str, int] = {}
    for b_ in blames:
        by_phase[b_.phase_id] = by_phase.get(b_.phase_id, 0) + b_.covered
    responsible = max(by_phase, key=lambda k: by_phase[k])  # first phase on ties (blames are ordered)
    return UnfairInfo(tick=t, seconds=round(t / 60, 4), active_phase_id=phases[_phase_at(schedule, t)]["phase_id"],
                      responsible_phase_id=responsible, responsible_wave=blames[0], contributors=blames[:8],
                      reachable=total, reachable_kind=kind, bullets_alive=int(idx.size))


def _safe_area(program: dict[str, Any], schedule: Schedule, grid: Grid, reach: ReachResult, basis: str,
               basis_note: str, end: int) -> SafeArea:
    """Per tick thousandths of the arena; per phase the minimum after the opening spread.

    After the set empties every later tick is 0 (nothing reachable is safe); a pass cut short
    by the budget leaves the rest of the curve out rather than guessing it.
    """
    fraction = reach.safe_fraction
    if reach.first_empty is not None:
        fraction = np.concatenate((fraction, np.zeros(end - fraction.size)))
    curve = np.rint(fraction * 1000).astype(np.int64)
    measured = int(curve.size)
    warm = min(reach.warmup_ticks, end)
    phases = []
    best: tuple[int, int, str] | None = None
    for w in sorted(schedule.windows, key=lambda w: w.start_tick):
        hi = min(w.end_tick, measured)
        # after the opening spread if the phase lasts beyond it, else the whole phase
        lo = max(w.start_tick, warm) if max(w.start_tick, warm) < hi else w.start_tick
        seg = curve[lo:hi] if lo < hi else np.zeros(0, dtype=np.int64)
        if seg.size:
            k = int(np.argmin(fraction[lo:hi]))  # exact shares: a tiny set is not an empty one
            phases.append(PhaseSafeArea(phase_id=w.phase_id, start_tick=w.start_tick, end_tick=w.end_tick,
                                        min_milli=int(seg[k]), min_tick=lo + k,
                                        mean_milli=int(np.rint(seg.mean())), ticks_considered=int(seg.size)))
            if best is None or int(seg[k]) < best[0]:
                best = (int(seg[k]), lo + k, w.phase_id)
        else:
            phases.append(PhaseSafeArea(phase_id=w.phase_id, start_tick=w.start_tick, end_tick=w.end_tick,
                                        min_milli=0, min_tick=w.start_tick, mean_milli=0, ticks_considered=0))
    info = GridInfo(columns=grid.nx, rows=grid.ny, cell_width_units=round(grid.cell_width / 65536, 6),
                    cells_per_step=f"{grid.den}/{grid.num}", move_offsets=len(grid.offsets))
    return SafeArea(basis=basis, basis_note=basis_note, warmup_ticks=warm,  # type: ignore[arg-type]
                    curve_milli=curve.tolist(), measured_ticks=measured, phases=phases,
                    tightest_tick=best[1] if best else None, tightest_phase_id=best[2] if best else None,
                    tightest_milli=best[0] if best else None, grid=info)


def _undetermined_reason(dependent: bool, aimed_ids: list[str], reach: ReachResult, search: SearchResult | None,
                         end: int, out_of_time: bool) -> str:
    parts = []
    if search is None:
        parts.append("no witness search ran (the budget was spent on the bound)")
    elif search.stats.stopped_by == "budget":
        parts.append(f"the budget ran out with the witness search at tick {search.stats.deepest_tick + 1} of {end}")
    elif search.stats.stopped_by == "exhausted":
        parts.append(f"the witness search found no hit-free path (deepest: tick {search.stats.deepest_tick + 1} "
                     f"of {end}, {search.stats.restarts} restarts)")
    if dependent:
        parts.append(f"unfairness is not provable here: {', '.join(aimed_ids)} aim at the player, so the "
                     "bullets depend on the path")
    elif not reach.complete:
        parts.append(f"the reachable-set bound covered only {reach.end_tick} of {end} ticks")
    else:
        parts.append("the reachable-set bound never emptied (at this resolution some positions may look safe "
                     "that are not)")
    return "; ".join(parts)
