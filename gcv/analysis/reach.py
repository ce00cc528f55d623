"""The reachable-set bound: where a player that has not been hit yet can be, tick by tick.

``F[-1]`` is the start cell. For every tick ``t`` of the fight, ``F[t] = post(F[t-1]) minus
covered(t)``: every cell a position of the previous set can move to (an over-approximation
of the real moves and the clamp), minus the cells whose every position touches a bullet of
tick ``t`` (an under-approximation of the certainly-hit positions). By induction every
position of every hit-free run lies in a cell of ``F[t]`` (docs/analysis.md), so when
``F[t]`` is empty no run avoids a hit at tick ``t`` or before: the fight is unfair.

The same pass gives the safe-area curve (the share of the arena in ``F[t]``), and, run
backwards, the cells from which the rest of the fight can still be survived (``viable``),
which the witness search uses to leave dead ends early.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from gcv.analysis.budget import CELLS_PER_UNIT, Budget
from gcv.analysis.field import BulletField
from gcv.analysis.grid import Grid

ProgressFn = Callable[[str, int, int], None]
# Per-tick sets kept for the backward pass and the frames. The backward pass keeps as much
# again, so the two together stay under 2 x this (a large hit radius with a slow player
# used to store 2 x 384 MB); above it the sets are not kept: the search goes without the
# viability filter and a frame recomputes its tick's set.
MAX_STORED_BYTES = 96 * 1024 * 1024
EXACT_CAP = 40_000  # candidate positions per tick the exact opening may test


@dataclass
class ReachResult:
    grid: Grid
    end_tick: int  # ticks 0 .. end_tick - 1 were examined (all of them unless it emptied or stopped)
    safe_fraction: np.ndarray  # float64 per examined tick: share of the arena in F[t]
    safe_cells: np.ndarray  # int64 per examined tick
    first_empty: int | None
    warmup_ticks: int  # before this tick, even without bullets the bound is not the whole arena
    complete: bool  # every tick of the fight was examined (or it emptied)
    stored: np.ndarray | None = field(default=None, repr=False)  # (ticks, nbytes) F[t] bit sets
    start_cell: tuple[int, int] = (0, 0)
    last: int = 0  # F[end_tick - 1]
    before_last: int = 0  # F[end_tick - 2] (the start cell when end_tick is 1)
    exact_ticks: int = 0  # ticks 0 .. exact_ticks - 1 were enumerated exactly
    empty_candidates: tuple[np.ndarray, np.ndarray] | None = None  # exact positions all hit at first_empty
    free_fraction: np.ndarray | None = field(default=None, repr=False)  # bullet-free bound's share, warm-up ticks

    def reachable(self, t: int) -> int:
        """F[t] as a bit set (t = -1 is the start cell); needs the stored sets."""
        if t < 0:
            return self.grid.single(*self.start_cell)
        if self.stored is None:
            raise RuntimeError("the per-tick sets were not stored (too large for memory)")
        return int.from_bytes(self.stored[t].tobytes(), "little")


def _chunk_bullets(field_: BulletField, grid: Grid, hit_r2: int, t0: int, t1: int) -> tuple[np.ndarray, ...]:
    """Bullets of ticks t0 .. t1 - 1 that could cover a cell: (x, y, tick - t0)."""
    tick, idx = field_.alive_pairs(t0, t1)
    x, y = field_.positions_at(tick, idx)
    # a bullet farther than the hit radius outside the arena covers no cell
    r = int(np.sqrt(hit_r2)) + 1
    inside = (np.abs(x) <= grid.half_width + r) & (np.abs(y) <= grid.half_height + r)
    return x[inside], y[inside], (tick - t0)[inside]


def covered_chunk(field_: BulletField, grid: Grid, hit_r2: int, t0: int, t1: int) -> np.ndarray:
    """Certainly-hit cells of ticks t0 .. t1 - 1, (t1 - t0, ny, nx), computed in one batch."""
    x, y, slot = _chunk_bullets(field_, grid, hit_r2, t0, t1)
    return grid.covered(x, y, hit_r2, slot=slot, slots=t1 - t0)


def covered_chunk_sets(field_: BulletField, grid: Grid, hit_r2: int, t0: int, t1: int) -> list[int]:
    """The same as bit sets (what the bound's loop uses)."""
    x, y, slot = _chunk_bullets(field_, grid, hit_r2, t0, t1)
    return grid.covered_sets(x, y, hit_r2, slot, t1 - t0)


def _warmup(grid: Grid, hit_r2: int, start: tuple[int, int], ticks: int,
            budget: Budget | None) -> tuple[int, np.ndarray]:
    """First tick from which the bound would cover the whole arena with no bullets at all, and
    the share of the arena that bullet-free bound covers at each tick before it: the most a
    tick of the opening spread could have (a phase inside the spread is measured against it).

    The very same procedure as the bound (exact opening, cells, the k-tick chain) with no
    bullets, so with no bullets near the two agree and the ratio is 1.
    """
    free = forward(None, grid, hit_r2, start, ticks, store=False, until_full=True)
    if budget is not None:
        budget.spend("opening", -(-free.end_tick * grid.cells // CELLS_PER_UNIT))
    full = free.end_tick - 1 if free.last == grid.core else ticks
    return full, free.safe_fraction[:full]


def exact_step(field_: BulletField | None, grid: Grid, hit_r2: int, t: int, xs: np.ndarray,
               ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every real move from every position, clamped and deduplicated, and which are hit at t.

    Returns (x, y, hit). Exact: the engine's moves, clamp and hit test (``d2 <= r^2``).
    """
    mv = grid.moves
    cx = np.minimum(np.maximum(xs[:, None] + mv.step_x, -mv.half_width), mv.half_width).ravel()
    cy = np.minimum(np.maximum(ys[:, None] + mv.step_y, -mv.half_height), mv.half_height).ravel()
    key = np.unique((cx + (1 << 23)) << 24 | (cy + (1 << 23)))
    cx, cy = (key >> 24) - (1 << 23), (key & ((1 << 24) - 1)) - (1 << 23)
    hit = np.zeros(cx.size, dtype=bool)
    if field_ is None:
        return cx, cy, hit
    bx, by = field_.positions(t, field_.alive(t))
    if bx.size:
        r = int(np.sqrt(hit_r2)) + 1
        near = ((bx >= int(cx.min()) - r) & (bx <= int(cx.max()) + r)
                & (by >= int(cy.min()) - r) & (by <= int(cy.max()) + r))
        bx, by = bx[near], by[near]
        for k in range(0, bx.size, 32):
            dx = cx[:, None] - bx[None, k:k + 32]
            dy = cy[:, None] - by[None, k:k + 32]
            hit |= ((dx * dx + dy * dy) <= hit_r2).any(axis=1)
    return cx, cy, hit


def forward(field_: BulletField | None, grid: Grid, hit_r2: int, start: tuple[int, int], end_tick: int, *,
            store: bool = True, progress: ProgressFn | None = None,
            budget: Budget | None = None, exact_cap: int = EXACT_CAP, stage: str = "bound",
            until_full: bool = False, warmup: bool = True) -> ReachResult:
    """Run the bound over ticks 0 .. end_tick - 1; stop early at the first empty set.

    The opening is exact: while fewer than ``exact_cap`` positions are reachable without a
    hit, they are enumerated (the engine's moves and hit test) and F[t] is the set of their
    cells; from the first tick with more, the cell bound takes over from those cells. Both
    contain every hit-free position, and the exact opening is much tighter where it matters
    most (a wall in the first ticks, when the player has had no time to move).

    Work is counted in ``budget`` (cells per tick, positions tested in the opening) and the
    budget is asked at chunk boundaries only, so where a pass stops depends on the config
    alone; an exhausted budget stops it (the result then covers fewer ticks and proves nothing
    about the rest; ``complete`` is False and the caller says so).

    ``field_=None`` is a fight with no bullets (the opening spread); ``until_full`` stops at the
    first tick whose set is the whole arena; neither it nor ``warmup=False`` computes the
    opening spread (``warmup_ticks`` is then meaningless).
    """
    start_cell = grid.cell_of(*start)
    stored = None
    if store and end_tick * grid.nbytes <= MAX_STORED_BYTES:
        stored = np.zeros((end_tick, grid.nbytes), dtype=np.uint8)
    fractions = np.zeros(end_tick, dtype=np.float64)
    counts = np.zeros(end_tick, dtype=np.int64)
    r = previous = grid.single(*start_cell)
    xs = np.array([start[0]], dtype=np.int64)
    ys = np.array([start[1]], dtype=np.int64)
    exact_ticks = 0
    exact = exact_cap > 0
    candidates = None
    first_empty = None
    done = end_tick
    complete = True
    chunk = max(1, min(64, 2_000_000 // grid.cells))
    hits: list[int] = []
    report_every = max(1, end_tick // 50)
    cell_units = -(-grid.cells // CELLS_PER_UNIT)
    lag = grid.ticks_per_cell
    recent: deque[int] = deque([r], maxlen=lag)  # F[t - lag] .. F[t - 1] (the start cell for t - lag < 0)
    for t in range(end_tick):
        k = t % chunk
        if k == 0:
            if budget is not None and t and budget.exhausted():
                done, complete = t, False  # r is F[t - 1], previous F[t - 2]
                break
            if progress is not None and t // report_every != (t + chunk) // report_every:
                progress("reach", t, end_tick)
            hits = (covered_chunk_sets(field_, grid, hit_r2, t, min(end_tick, t + chunk)) if field_ is not None
                    else [0] * chunk)
        previous = r
        if exact:
            cx, cy, hit = exact_step(field_, grid, hit_r2, t, xs, ys)
            if budget is not None:
                budget.spend(stage, cx.size)
            xs, ys = cx[~hit], cy[~hit]
            r = grid.from_cells(grid.cell_x(xs), grid.cell_y(ys))
            exact_ticks = t + 1
            if xs.size == 0:
                candidates = (cx, cy)
            elif xs.size * grid.moves.count > exact_cap:
                exact = False
        else:
            r = grid.post(r) & ~hits[k]
            if lag > 1:  # and within one cell of F[t - lag]: the player's real speed
                r &= grid.dilate(recent[0])
            if budget is not None:
                budget.spend(stage, cell_units)
        recent.append(r)
        counts[t] = n = r.bit_count()
        if stored is not None:
            stored[t] = np.frombuffer(grid.to_bytes(r), dtype=np.uint8)
        if n == 0:
            first_empty, done = t, t + 1
            break
        fractions[t] = grid.area_fraction(r)
        if until_full and r == grid.core:
            done = t + 1
            break
    if until_full or not warmup:
        warm, free = done, None
    else:
        warm, free = _warmup(grid, hit_r2, start, min(end_tick, 4 * (grid.nx + grid.ny) * lag), budget)
    return ReachResult(grid, done, fractions[:done], counts[:done], first_empty, warm, complete,
                       stored[:done] if stored is not None else None, start_cell, r, previous, exact_ticks,
                       candidates, free)


def viable(reach: ReachResult, progress: ProgressFn | None = None,
           budget: Budget | None = None) -> np.ndarray | None:
    """Backwards: V[t] = F[t] and pre(V[t+1]), stored like ``reach.stored``; None without storage.

    A position outside V[t] cannot start a hit-free rest of the fight (the same induction as
    the forward bound, run from the end), so the search may drop it.
    """
    if reach.stored is None or reach.first_empty is not None or not reach.complete:
        return None
    g = reach.grid
    out = np.empty_like(reach.stored)
    last = reach.end_tick - 1
    v = reach.reachable(last)
    out[last] = reach.stored[last]
    report_every = max(1, reach.end_tick // 50)
    cell_units = -(-g.cells // CELLS_PER_UNIT)
    for t in range(last - 1, -1, -1):
        v = reach.reachable(t) & g.pre(v)
        if budget is not None:
            budget.spend("viable", cell_units)
        out[t] = np.frombuffer(g.to_bytes(v), dtype=np.uint8)
        if t % report_every == 0:
            if progress is not None:
                progress("viable", last - t, last)
            if budget is not None and budget.exhausted():
                return None
    return out
