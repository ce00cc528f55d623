"""``analyze``: is this fight fair? A replayed witness, a sound impossibility proof, or neither.

The order of work, and why:

1. Cheap witnesses (``gcv.analysis.cheap``): standing still, each move held then standing,
   each bot skill's trajectory, screened at once and replayed; many fights are survived by
   something simple, and the longest survivor seeds the search if none is hit-free.
2. The reachable-set bound over the player-independent bullets (``gcv.analysis.reach``). When
   no bullet depends on the player, an empty set is a proof of unfairness. With aimed phases
   the same bound is still a sound filter for the search (a hit-free run must avoid these
   bullets too) but is never used to claim unfairness.
3. The witness search (``gcv.analysis.witness``) with what is left of the budget.
4. The replay: the found path, as an ``inputs`` trace, through the reference simulator. Only
   ``player_hits == 0`` over the whole fight makes the verdict ``fair``.
5. The safe-area curve: from the bound of step 2 when the bullets are player-independent;
   with aimed phases, from a second bound over the bullets as they were fired at the
   witness (or at the search's deepest path), which the report labels.

The budget is counted work (``gcv.analysis.budget``), so every stage stops at the same place
on any machine; seconds are only a safety stop, and a verdict reached after it fired is
``undetermined`` ("stopped by time").

``analyze`` is pure (no files, no network); ``run_analysis`` also returns what the frames need.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Literal

import numpy as np
from PIL import Image

from gcv.analysis.budget import DEFAULT_BUDGET_WORK, DEFAULT_SAFETY_SECONDS, Budget
from gcv.analysis.cheap import cheap_witnesses
from gcv.analysis.field import BulletField, WaveSpec, wave_specs
from gcv.analysis.frames import cover_frame
from gcv.analysis.grid import Grid, choose_grid
from gcv.analysis.moves import MoveTable, move_table
from gcv.analysis.reach import ReachResult, covered_chunk, exact_step, forward, viable
from gcv.analysis.report import (CheapEffort, Effort, FairnessReport, GridInfo, PhaseSafeArea, ReplayCheck, SafeArea,
                                 SearchEffort, UnfairInfo, Verdict, WaveBlame, WitnessInfo)
from gcv.analysis.witness import SearchResult, SearchStats, WitnessSearch, aims_along, path_to_runs
from gcv.contract.canonical import config_hash, content_hash
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.players import INPUTS_FORMAT
from gcv.sim.program import compile_program, program_hash
from gcv.sim.schedule import Schedule, emission_schedule

ProgressFn = Callable[[str, int, int], None]
# (program, player, seed) -> the run's telemetry, as Simulation(program, player).run(seed=seed).telemetry
Simulate = Callable[[dict[str, Any], dict[str, Any], int], dict[str, Any]]
DEFAULT_BUDGET_SECONDS = DEFAULT_SAFETY_SECONDS  # the safety stop (kept under its old name)


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
        elif tick - 1 < reach.end_tick:
            before = g.to_mask(g.post(_set_at(self, tick - 1)))
        else:  # after an empty set or a pass cut short: nothing is known to be reachable
            before = np.zeros_like(covered)
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
        if sa.tightest_tick is None or sa.tightest_milli is None:  # set together
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
                    store=False, warmup=False)
    return again.last


def _config(config: BulletHellConfig | dict[str, Any]) -> BulletHellConfig:
    return config if isinstance(config, BulletHellConfig) else BulletHellConfig.model_validate(config)


def analyze(config: BulletHellConfig | dict[str, Any], *, seed: int, budget_work: int = DEFAULT_BUDGET_WORK,
            budget_seconds: float = DEFAULT_SAFETY_SECONDS, progress: ProgressFn | None = None,
            simulate: Simulate | None = None) -> FairnessReport:
    """The fairness verdict of one validated config and seed within ``budget_work`` work units
    (``budget_seconds`` is only a safety stop: if it fires the verdict is undetermined).
    ``simulate`` replays the witnesses (default: the Python simulator; the loop hands the native
    core's, ``engine_runners.reference.telemetry``, which gives the same telemetry)."""
    return run_analysis(config, seed=seed, budget_work=budget_work, budget_seconds=budget_seconds,
                        progress=progress, simulate=simulate).report


def _python_telemetry(program: dict[str, Any], player: dict[str, Any], seed: int) -> dict[str, Any]:
    return Simulation(program, player).run(seed=seed).telemetry


def run_analysis(config: BulletHellConfig | dict[str, Any], *, seed: int, budget_work: int = DEFAULT_BUDGET_WORK,
                 budget_seconds: float = DEFAULT_SAFETY_SECONDS, progress: ProgressFn | None = None,
                 clock: Callable[[], float] = time.monotonic, simulate: Simulate | None = None) -> Analysis:
    """``simulate``: as for :func:`analyze`. Only the replays take it: the bot candidates need the
    bot's move at every tick, which only the Python simulator gives (``gcv.analysis.cheap``)."""
    sim_run = simulate or _python_telemetry
    if not 0 <= seed < (1 << 63):
        raise ValueError(f"seed {seed} out of range; allowed 0..{(1 << 63) - 1}")
    cfg = _config(config)
    budget = Budget(work_limit=budget_work, seconds_limit=budget_seconds, clock=clock)

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

    # 1. cheap witnesses: standing still, walking one way then standing, each bot skill
    replayed: dict[tuple[int, ...], WitnessInfo] = {}

    def replay(path: list[int]) -> dict[str, Any]:
        info, hit_ticks = _replay(program, moves, path, seed, sim_run)
        replayed[tuple(path)] = info
        return {"player_hits": info.replay.player_hits, "status": info.replay.status, "hit_ticks": hit_ticks}

    t0 = clock()
    cheap = cheap_witnesses(program, base_field, moves, end, seed, hit_r2, budget, replay)
    witness: WitnessInfo | None = None
    if cheap.found is not None:
        witness = replayed[tuple(cheap.found.path)]
    cheap_seconds = clock() - t0

    # 2. the reachable-set bound (the proof of unfairness; the safe-area curve)
    t0 = clock()
    base_reach = forward(base_field, grid, hit_r2, start, end, progress=progress, budget=budget)
    reach_seconds = clock() - t0
    if not base_reach.complete:
        notes.append(f"the {'time' if budget.stopped_by_time else 'work'} budget ran out in the reachable-set "
                     f"bound after {base_reach.end_tick} of {end} ticks")

    # 3. the witness search, seeded by the cheap candidate that got farthest
    search: SearchResult | None = None
    unfair: UnfairInfo | None = None
    search_seconds = replay_seconds = 0.0
    if witness is not None:
        pass
    elif not dependent and base_reach.first_empty is not None:
        unfair = _blame(program, schedule, grid, base_field, base_reach, hit_r2)
    elif not budget.exhausted():
        t0 = clock()
        search = WitnessSearch(program, base_field, specs, moves, end, grid=grid).run(
            budget=budget, progress=progress, seed_path=cheap.seed_path,
            viable_provider=lambda: viable(base_reach, progress=progress, budget=budget))
        search_seconds = clock() - t0
        if search.moves is not None:
            t0 = clock()
            witness, _ = _replay(program, moves, search.moves, seed, sim_run)
            replay_seconds = clock() - t0
            if witness.replay.player_hits != 0 or witness.replay.status != "completed":
                notes.append(f"the search's path replayed with {witness.replay.player_hits} hits "
                             f"(status {witness.replay.status}); it is not a witness and is not reported as one")
                witness = None
    else:
        notes.append("no budget left for the witness search")

    # 4. the safe-area curve
    if not dependent:
        basis, basis_note = "player_independent", "bullets do not depend on the player: the bound of the proof"
        curve_field, curve_reach = base_field, base_reach
    else:
        path = search.deepest_path if search is not None else []
        aims = search.aims if search is not None else {}
        if witness is not None:
            basis, basis_note = "witness_path", "aimed waves as fired at the witness's positions"
            aims = aims_along(program, moves, {s.tick: s for s in specs if s.aim}, _moves_of(moves, witness), end)
        else:
            basis, basis_note = "search_path", (f"aimed waves as fired at the search's deepest path "
                                                f"({len(path)} ticks, then standing still); not a proof of anything")
            if search is None:
                aims = aims_along(program, moves, {s.tick: s for s in specs if s.aim}, [], end)
        curve_field = BulletField(program, specs, aims)
        curve_reach = forward(curve_field, grid, hit_r2, start, end, budget=budget, stage="curve")
        if not curve_reach.complete:
            notes.append(f"the budget ran out while drawing the safe-area curve ({curve_reach.end_tick} of {end} ticks)")
    safe_area = _safe_area(program, schedule, grid, curve_reach, basis, basis_note, end)

    by_time = budget.stopped_by_time
    verdict: Verdict
    if witness is not None:
        verdict = "fair"
        how = f"{cheap.found.label}: " if cheap.found is not None else ""
        reason = (f"a hit-free path exists: the witness trace ({how}{witness.runs} input runs) replays through "
                  f"the reference simulator with 0 hits over all {end} ticks")
    elif unfair is not None:
        verdict = "unfair"
        reason = (f"no movement avoids a hit: at tick {unfair.tick} ({unfair.seconds:.2f} s) every position "
                  f"reachable without a hit is hit; phase {unfair.responsible_phase_id} wave "
                  f"{unfair.responsible_wave.wave_index} covers most of it")
    else:
        verdict = "undetermined"
        reason = _undetermined_reason(dependent, aimed_ids, base_reach, search, end, by_time)
    stats = search.stats if search is not None else SearchStats()
    stopped = "time" if by_time else ("work" if budget.out_of_work() else "complete")
    effort = Effort(
        budget_seconds=budget_seconds, budget_work=budget_work, work_units=budget.work,
        work_by_stage=dict(sorted(budget.by_stage.items())), stopped_by=stopped,  # type: ignore[arg-type]
        cheap=CheapEffort(candidates=cheap.candidates, replays=cheap.replays,
                          found=cheap.found.label if cheap.found is not None else None,
                          seed=cheap.seed_label, seed_ticks=len(cheap.seed_path)),
        elapsed_seconds=round(budget.elapsed(), 3),
        reach_ticks=base_reach.end_tick, reach_complete=base_reach.complete,
        search=SearchEffort(nodes_expanded=stats.nodes_expanded, restarts=stats.restarts, widths=stats.widths,
                            deepest_tick=stats.deepest_tick, failure_ticks=stats.failures[:20],
                            stopped_by=stats.stopped_by,  # type: ignore[arg-type]
                            used_viability=search is not None and search.used_viability,
                            calm_ticks=stats.calm_ticks),
        reach_seconds=round(reach_seconds, 3), search_seconds=round(search_seconds, 3),
        replay_seconds=round(replay_seconds + cheap_seconds, 3))
    report = FairnessReport(
        verdict=verdict, reason=reason, config_name=cfg.name, config_hash=config_hash(cfg),
        program_hash=program_hash(program), seed=seed, fight_ticks=end, player_dependent=dependent,
        aimed_phase_ids=aimed_ids, witness=witness, unfair=unfair, safe_area=safe_area, effort=effort,
        notes=notes)
    return Analysis(report, program, grid, curve_field, curve_reach, hit_r2)


def _moves_of(moves: MoveTable, witness: WitnessInfo) -> list[int]:
    """The witness trace back as move-table indices (the first input of each distinct step)."""
    index = {(int(a), int(b), int(c)): k for k, (a, b, c) in
             enumerate(zip(moves.dx.tolist(), moves.dy.tolist(), moves.focus.tolist()))}
    out: list[int] = []
    for n, dx, dy, focus in witness.trace["runs"]:
        out += [index[(dx, dy, focus)]] * n
    return out


# ---------------------------------------------------------------------------- parts
def _aimed_phase_ids(program: dict[str, Any], specs: list[WaveSpec]) -> list[str]:
    """Phases that fire at least one aimed wave in this fight (a phase never reached reads nothing)."""
    seen: list[str] = []
    for s in specs:
        pid = program["phases"][s.phase_index]["phase_id"]
        if s.aim and pid not in seen:
            seen.append(pid)
    return seen


def _replay(program: dict[str, Any], moves: MoveTable, path: list[int], seed: int,
            simulate: Simulate = _python_telemetry) -> tuple[WitnessInfo, list[int]]:
    """The path as an inputs trace through the reference simulator; also its hit ticks."""
    trace: dict[str, Any] = {"format": INPUTS_FORMAT, "tick_hz": 60, "runs": path_to_runs(moves, path),
             "source": "gcv fair: witness search"}
    tel = simulate(program, {"kind": "inputs", "trace": trace}, seed)
    replay = ReplayCheck(player=tel["player"], player_hits=tel["player_hits"], status=tel["status"],
                         end_reason=tel["end_reason"], ticks=tel["ticks"], grazes=tel["grazes"],
                         state_hash=tel["state_hash"])
    return WitnessInfo(trace=trace, trace_hash=content_hash(trace), ticks=len(path), runs=len(trace["runs"]),
                       replay=replay), list(tel["hit_ticks"])


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
    kind: Literal["positions", "cells"]
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
    by the budget leaves the rest of the curve out rather than guessing it. The per-phase
    minima look only at examined ticks: after an unfair tick nothing is reachable, so a later
    phase is "not reached" (no minimum), and the tightest moment is the unfair tick itself.
    A phase that ends before the opening spread does is measured against the bullet-free
    bound of its ticks (at tick 0 the player can only be near the start, which is no danger).
    """
    fraction = reach.safe_fraction
    examined = int(fraction.size)
    if reach.first_empty is not None:
        fraction = np.concatenate((fraction, np.zeros(end - fraction.size)))
    curve = np.rint(fraction * 1000).astype(np.int64)
    measured = int(curve.size)
    warm = min(reach.warmup_ticks, end)
    free = reach.free_fraction if reach.free_fraction is not None else np.zeros(0)
    phases = []
    best: tuple[int, int, str] | None = None
    for w in sorted(schedule.windows, key=lambda w: w.start_tick):
        hi = min(w.end_tick, examined)
        # after the opening spread if the phase lasts beyond it, else the whole phase
        after = max(w.start_tick, warm)
        opening = not after < hi
        lo = w.start_tick if opening else after
        if lo < hi and opening:
            ticks = np.arange(lo, hi)
            denominator = np.ones(ticks.size)
            inside = ticks < free.size
            denominator[inside] = np.maximum(free[ticks[inside]], 1e-12)
            exact = np.minimum(fraction[lo:hi] / denominator, 1.0)
            seg = np.rint(exact * 1000).astype(np.int64)
        elif lo < hi:
            exact = fraction[lo:hi]
            seg = curve[lo:hi]
        else:
            exact = seg = np.zeros(0, dtype=np.int64)
        if seg.size:
            k = int(np.argmin(exact))  # exact shares: a tiny set is not an empty one
            phases.append(PhaseSafeArea(phase_id=w.phase_id, start_tick=w.start_tick, end_tick=w.end_tick,
                                        min_milli=int(seg[k]), min_tick=lo + k,
                                        mean_milli=int(np.rint(seg.mean())), ticks_considered=int(seg.size),
                                        measured_against="opening" if opening else "arena"))
            if best is None or int(seg[k]) < best[0]:
                best = (int(seg[k]), lo + k, w.phase_id)
        else:
            phases.append(PhaseSafeArea(phase_id=w.phase_id, start_tick=w.start_tick, end_tick=w.end_tick,
                                        min_milli=0, min_tick=w.start_tick, mean_milli=0, ticks_considered=0))
    if reach.first_empty is not None:  # the tightest moment of an unfair fight is its wall
        t = reach.first_empty
        best = (0, t, next((w.phase_id for w in schedule.windows if w.start_tick <= t < w.end_tick),
                           best[2] if best else schedule.windows[-1].phase_id))
    info = GridInfo(columns=grid.nx, rows=grid.ny, cell_width_units=round(grid.cell_width / 65536, 6),
                    cells_per_step=f"{grid.den}/{grid.num}", move_offsets=len(grid.offsets))
    return SafeArea(basis=basis, basis_note=basis_note, warmup_ticks=warm,  # type: ignore[arg-type]
                    curve_milli=curve.tolist(), measured_ticks=measured, phases=phases,
                    tightest_tick=best[1] if best else None, tightest_phase_id=best[2] if best else None,
                    tightest_milli=best[0] if best else None, grid=info)


def _undetermined_reason(dependent: bool, aimed_ids: list[str], reach: ReachResult, search: SearchResult | None,
                         end: int, by_time: bool) -> str:
    parts = []
    if by_time:
        parts.append("stopped by time: the seconds safety stop fired before the work budget was spent (a "
                     "slow or busy machine); this is not a finding about the fight, run it again with more "
                     "--budget-seconds")
    if search is None:
        parts.append("no witness search ran (the budget was spent before it)")
    elif search.stats.stopped_by in ("budget", "time"):
        parts.append(f"the {'time' if search.stats.stopped_by == 'time' else 'work'} budget ran out with the "
                     f"witness search at tick {search.stats.deepest_tick + 1} of {end}")
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
