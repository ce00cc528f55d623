"""The witness search: a sequence of real inputs that takes no hit for the whole fight.

A beam search over exact positions (Q16 integers, the engine's moves and clamp) against the
exact bullets of a hit-free run (``gcv.analysis.field``). Each tick every kept position tries
every distinct move; a new position survives if no bullet of that tick touches it (the
engine's test, ``d2 <= hit_radius^2``) and, when the backward bound is known, if its cell can
still survive the rest of the fight (a sound filter: see ``gcv.analysis.reach.viable``). The
survivors are ranked by clearance (the distance to the nearest bullet now and a few ticks on,
capped) and the best ``width`` are kept, at most one per cell so the beam spreads out.

Aimed phases make the bullets depend on the path: an aimed wave takes its angle from the
position at its emission tick. Every kept position therefore carries its own "world" (the
aim angles of the aimed waves it has seen); positions that saw the same angles share one.

When the beam dies the search backs up: it restarts some ticks earlier from the positions
kept there, with a wider beam, backing up further each time. Nothing here is trusted: a
path it returns is replayed through the simulator before anyone calls the fight fair.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from math import isqrt
from typing import Any, Callable

import numpy as np

from gcv.analysis.budget import Budget
from gcv.analysis.field import BulletField, WaveSpec, aim_angle, wave_bullets
from gcv.analysis.grid import Grid
from gcv.analysis.moves import MoveTable

ProgressFn = Callable[[str, int, int], None]
LOOKAHEAD_TICKS = 8
BULLET_CHUNK = 64
MAX_WIDTH = 256
BACKUP_TICKS = 30


@dataclass
class SearchStats:
    nodes_expanded: int = 0
    restarts: int = 0
    widths: list[int] = field(default_factory=list)
    deepest_tick: int = -1  # the last tick some kept position survived
    failures: list[int] = field(default_factory=list)  # ticks at which the beam died
    stopped_by: str = "not_run"  # found | budget | time | exhausted
    calm_ticks: int = 0  # ticks passed standing still with no bullet able to arrive


@dataclass
class SearchResult:
    moves: list[int] | None  # move index per tick 0 .. end_tick - 1, or None
    aims: dict[int, int]  # aimed wave ordinal -> angle, along the returned (or deepest) path
    deepest_path: list[int]  # move indices of the deepest path found (for reporting)
    stats: SearchStats
    used_viability: bool = False


class _Worlds:
    """Aimed waves fired along each kept path, shared between paths that saw the same angles."""

    def __init__(self, program: dict[str, Any], specs: list[WaveSpec]) -> None:
        self.program = program
        self.aimed = {s.tick: s for s in specs if s.aim}
        self._by_ordinal = {s.ordinal: s for s in specs if s.aim}
        self.keys: list[tuple[tuple[int, int], ...]] = [()]
        self.index: dict[tuple[tuple[int, int], ...], int] = {(): 0}
        self._bullets: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
        self.boss_x, self.boss_y = program["boss"]["x"], program["boss"]["y"]

    def wave(self, ordinal: int, angle: int) -> tuple[np.ndarray, ...]:
        key = (ordinal, angle)
        if key not in self._bullets:
            spec = self._by_ordinal[ordinal]
            vx, vy, death = wave_bullets(self.program, spec, angle)
            self._bullets[key] = (np.full(vx.size, spec.tick, dtype=np.int64), vx, vy, death)
            if len(self._bullets) > 200_000:
                self._bullets.clear()
        return self._bullets[key]

    def extend(self, world: int, ordinal: int, angle: int, t: int) -> int:
        """The world after firing aimed wave ``ordinal`` at ``angle``; dead waves are dropped."""
        kept = tuple((o, a) for o, a in self.keys[world] if int(self.wave(o, a)[3].max()) > t)
        key = kept + ((ordinal, angle),)
        if key not in self.index:
            self.index[key] = len(self.keys)
            self.keys.append(key)
        return self.index[key]

    def bullets(self, world: int, t: int, tick_ahead: int = 0) -> tuple[np.ndarray, np.ndarray]:
        xs, ys = [], []
        for o, a in self.keys[world]:
            s, vx, vy, death = self.wave(o, a)
            alive = death > t
            if alive.any():
                age = t + tick_ahead - s[alive]
                xs.append(self.boss_x + vx[alive] * age)
                ys.append(self.boss_y + vy[alive] * age)
        if not xs:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(xs), np.concatenate(ys)


def _nearest_d2(cx: np.ndarray, cy: np.ndarray, bx: np.ndarray, by: np.ndarray, fx: np.ndarray,
                fy: np.ndarray, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """Squared distance from each candidate to its nearest bullet now (``bx, by``) and a few
    ticks on (``fx, fy``, the same bullets), each capped at reach^2."""
    cap = reach * reach
    full = np.full(cx.size, cap, dtype=np.int64)
    if bx.size == 0:
        return full, full
    x0, x1, y0, y1 = int(cx.min()) - reach, int(cx.max()) + reach, int(cy.min()) - reach, int(cy.max()) + reach
    px, py = np.concatenate((bx, fx)), np.concatenate((by, fy))
    near = (px >= x0) & (px <= x1) & (py >= y0) & (py <= y1)
    n = bx.size
    if not near.any():
        return full, full
    sel = np.flatnonzero(near)
    dx = cx[:, None] - px[sel]
    dy = cy[:, None] - py[sel]
    dx *= dx
    dy *= dy
    dx += dy
    now_cols, later_cols = sel < n, sel >= n
    now = dx[:, now_cols].min(axis=1) if now_cols.any() else full
    later = dx[:, later_cols].min(axis=1) if later_cols.any() else full
    return np.minimum(now, cap), np.minimum(later, cap)


class WitnessSearch:
    def __init__(self, program: dict[str, Any], field_: BulletField, specs: list[WaveSpec], moves: MoveTable,
                 end_tick: int, *, grid: Grid, viable: np.ndarray | None = None,
                 width: int = 8) -> None:
        self.program = program
        self.field = field_
        self.moves = moves
        self.end_tick = end_tick
        self.grid = grid
        self.viable = viable
        self.width = width
        pl = program["player"]
        self.hit_r2 = pl["hit_radius"] ** 2
        # Clearance beyond this does not rank: twice the graze radius (and at least the hit
        # radius plus a few steps) is "comfortably clear".
        self.reach = max(2 * pl["graze_radius"], pl["hit_radius"] + 8 * moves.max_axis_step)
        # standing still, the gap to any bullet closes by at most this per tick (the slack
        # covers the trigonometry table's rounding, as in the engine's collision skipping)
        vmax = max((abs(sl[1]) for ph in program["phases"] for sl in ph["slots"]), default=0)
        self.closure = vmax + (vmax >> 15) + 2
        self.hit_r = isqrt(self.hit_r2)
        self.stay = int(np.flatnonzero((moves.step_x == 0) & (moves.step_y == 0))[0])
        self._calm = False  # the best node of the last step had nothing within reach
        self.budget: Budget | None = None
        self.stats = SearchStats()
        self.start = (pl["start_x"], pl["start_y"])
        self.worlds = _Worlds(program, specs)
        self.aimed_ticks = self.worlds.aimed
        self._aimed_order = sorted(self.aimed_ticks)
        self._fans: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._chunk_start = -(1 << 40)
        self._chunk: tuple[np.ndarray, ...] = ()

    # ------------------------------------------------------------------ one tick
    def _fan(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(parent, move) of the n x m expansions, cached per n."""
        if n not in self._fans:
            m = self.moves.count
            self._fans[n] = (np.repeat(np.arange(n), m), np.tile(np.arange(m), n))
        return self._fans[n]

    def _cells(self, cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
        """Bit index of each position's cell in the grid's bit sets."""
        g = self.grid
        return g.bit_index(g.cell_x(cx), g.cell_y(cy))

    def _step(self, t: int, px: np.ndarray, py: np.ndarray, world: np.ndarray,
              width: int) -> tuple[np.ndarray, ...]:
        """Expand, filter and rank: returns (px, py, world, parent, move) of the kept nodes.

        Candidates are numbered ``parent * m + move``; only their numbers are filtered, and the
        arrays are gathered once at the end (numpy's per-call cost dominates these sizes).
        """
        mv = self.moves
        m, n = mv.count, px.size
        if t in self.aimed_ticks:
            world = self._fire(t, px, py, world)
        all_x = np.minimum(np.maximum(px[:, None] + mv.step_x, -mv.half_width), mv.half_width).ravel()
        all_y = np.minimum(np.maximum(py[:, None] + mv.step_y, -mv.half_height), mv.half_height).ravel()
        self.stats.nodes_expanded += int(all_x.size)
        if self.budget is not None:
            self.budget.spend("search", all_x.size)
        all_cell = self._cells(all_x, all_y)
        if self.viable is not None:
            row = self.viable[t]
            sel = np.flatnonzero((row[all_cell >> 3] >> (all_cell & 7)) & 1)
            cx, cy, cell = all_x[sel], all_y[sel], all_cell[sel]
        else:
            sel, cx, cy, cell = np.arange(all_x.size), all_x, all_y, all_cell
        empty = np.zeros(0, dtype=np.int64)
        if sel.size == 0:
            return empty, empty, empty, empty, empty
        bx, by, fx, fy, ahead = self._bullets_at(t)
        multi = len(self.worlds.keys) > 1
        cw = world[sel // m] if multi else None
        if cw is None or not cw.any():
            now, later = _nearest_d2(cx, cy, bx, by, fx, fy, self.reach)
        else:
            now = np.empty(cx.size, dtype=np.int64)
            later = np.empty(cx.size, dtype=np.int64)
            for w in np.unique(cw).tolist():
                part = np.flatnonzero(cw == w)
                ex, ey = self.worlds.bullets(w, t)
                gx, gy = self.worlds.bullets(w, t, ahead)
                now[part], later[part] = _nearest_d2(
                    cx[part], cy[part], np.concatenate((bx, ex)), np.concatenate((by, ey)),
                    np.concatenate((fx, gx)), np.concatenate((fy, gy)), self.reach)
        safe = np.flatnonzero(now > self.hit_r2)
        if safe.size == 0:
            return empty, empty, empty, empty, empty
        score = np.minimum(now, later)[safe] + (now[safe] >> 2)
        # Ties (nothing near enough to rank by: every score at the cap) go to the positions
        # farthest from the beam's centre, so a beam with nothing to dodge yet spreads out at
        # full speed instead of idling in a blob: a danger still far off may need a long walk.
        sx, sy = cx[safe] - int(px.mean()), cy[safe] - int(py.mean())
        order = np.lexsort((-(sx * sx + sy * sy), -score))
        # the best node of each cell (and world) only, so the beam spreads out
        key = cell[safe][order]
        if cw is not None:
            key = key * (int(cw.max()) + 1) + cw[safe][order]
        _, best = np.unique(key, return_index=True)
        top = order[np.sort(best)[:width]]
        self._calm = bool(now[safe[top[0]]] == self.reach * self.reach and later[safe[top[0]]] == now[safe[top[0]]])
        chosen = sel[safe[top]]
        parent = chosen // m
        return all_x[chosen], all_y[chosen], world[parent], parent, chosen % m

    def _calm_ticks(self, t: int, px: np.ndarray, py: np.ndarray, world: np.ndarray) -> int:
        """Ticks from t on that every node of the beam can stand still with no bullet able to
        touch it (the smallest over the nodes, so the whole beam stands and keeps its spread).

        Sound bound: a bullet at distance d (floor of the root) now is farther than the hit
        radius for the next (d - r - 1) // closure ticks; bullets fired later start at the boss.
        Stops before the next aimed emission (it changes the world) and at the end of the
        viable cells, if known.
        """
        limit = self.end_tick - t
        k = bisect_left(self._aimed_order, t)
        if k < len(self._aimed_order):
            limit = min(limit, self._aimed_order[k] - t)
        if limit < 2:
            return 0
        bx, by, _, _, _ = self._bullets_at(t)
        boss = self.program["boss"]
        skip = limit
        for i in range(px.size):
            x, y, w = int(px[i]), int(py[i]), int(world[i])
            ex, ey = (bx, by)
            if w:
                wx, wy = self.worlds.bullets(w, t)
                ex, ey = np.concatenate((bx, wx)), np.concatenate((by, wy))
            d2 = (boss["x"] - x) ** 2 + (boss["y"] - y) ** 2
            if ex.size:
                dx, dy = ex - x, ey - y
                d2 = min(d2, int((dx * dx + dy * dy).min()))
            k = (isqrt(d2) - self.hit_r - 1) // self.closure + 1
            if k >= 2 and self.viable is not None:
                g = self.grid
                bit = int(g.bit_index(int(g.cell_x(x)), int(g.cell_y(y))))
                ok = (self.viable[t:t + k, bit >> 3] >> (bit & 7)) & 1
                k = int(np.argmin(ok)) if not ok.all() else k
            skip = min(skip, k)
            if skip < 2:
                return 0
        if self.budget is not None:
            self.budget.spend("search", px.size * max(1, bx.size))
        return skip

    def _bullets_at(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """Player-independent bullets at tick t and the same bullets a few ticks on.

        Computed for BULLET_CHUNK ticks at a time and sliced per tick.
        """
        ahead = min(LOOKAHEAD_TICKS, max(0, self.end_tick - 1 - t))
        c0 = self._chunk_start
        if not c0 <= t < c0 + BULLET_CHUNK:
            c0 = self._chunk_start = t - t % BULLET_CHUNK
            tick, idx = self.field.alive_pairs(c0, c0 + BULLET_CHUNK)
            order = np.argsort(tick, kind="stable")
            tick, idx = tick[order], idx[order]
            x, y = self.field.positions_at(tick, idx)
            lead = np.minimum(LOOKAHEAD_TICKS, np.maximum(0, self.end_tick - 1 - tick))
            self._chunk = (x, y, x + self.field.VX[idx] * lead, y + self.field.VY[idx] * lead,
                           np.searchsorted(tick, np.arange(c0, c0 + BULLET_CHUNK + 1)))
        x, y, fx, fy, bounds = self._chunk
        a, b = bounds[t - c0], bounds[t - c0 + 1]
        return x[a:b], y[a:b], fx[a:b], fy[a:b], ahead

    def _fire(self, t: int, px: np.ndarray, py: np.ndarray, world: np.ndarray) -> np.ndarray:
        """An aimed wave leaves at tick t: each node's world gains it, aimed at the node's
        position before this tick's move (the engine aims in step 5, the player moves in 6)."""
        spec = self.aimed_ticks[t]
        world = world.copy()
        cache: dict[tuple[int, int], int] = {}
        for k in range(px.size):
            angle = aim_angle(self.program, int(px[k]), int(py[k]))
            key = (int(world[k]), angle)
            if key not in cache:
                cache[key] = self.worlds.extend(key[0], spec.ordinal, angle, t)
            world[k] = cache[key]
        return world

    # ------------------------------------------------------------------ the search
    def _follow(self, path: list[int]) -> list[tuple[np.ndarray, ...]]:
        """Layers of one node along ``path`` (a trajectory known to be hit-free so far, e.g. a
        bot's up to a little before its first hit), aimed waves fired as the engine would."""
        zero = np.zeros(1, dtype=np.int64)
        px = np.array([self.start[0]], dtype=np.int64)
        py = np.array([self.start[1]], dtype=np.int64)
        world = zero
        layers: list[tuple[np.ndarray, ...]] = [(px, py, zero, zero, zero)]
        sx, sy = self.moves.step_x, self.moves.step_y
        for t, k in enumerate(path):
            if t in self.aimed_ticks:
                world = self._fire(t, px, py, world)
            px = np.minimum(np.maximum(px + sx[k], -self.moves.half_width), self.moves.half_width)
            py = np.minimum(np.maximum(py + sy[k], -self.moves.half_height), self.moves.half_height)
            layers.append((px, py, world, zero, np.full(1, k, dtype=np.int64)))
        return layers

    def run(self, *, budget: Budget | None = None, progress: ProgressFn | None = None,
            viable_provider: Callable[[], np.ndarray | None] | None = None,
            seed_path: list[int] | None = None) -> SearchResult:
        """Search until a path covers the whole fight, the budget ends, or backing up from the
        start with the widest beam fails. ``viable_provider`` is called at the first dead end
        to get the backward bound (it costs a pass over the fight, so it waits until needed).

        ``seed_path`` starts the beam where a cheap trajectory (a bot's, walking then standing)
        got to without a hit; backing up reaches back into it (from its single positions, with
        a wider beam each time) and, failing that, to the very start, so a seed can only help.

        Standing still while nothing can arrive keeps the whole beam (its spread is what lets
        it dodge afterwards) and is not taken again inside a stretch being retried after the
        beam died there: standing still is what the retry must be free to not do.
        """
        self.budget = budget
        self.stats = SearchStats()
        # layers[t + 1] = nodes kept at tick t; layers[0] = the start (tick -1)
        layers = self._follow(seed_path or [])
        width, back, attempt_start = self.width, BACKUP_TICKS, 0
        worst_failure = -1
        deepest: list[int] = []
        self.stats.widths.append(width)
        t = len(layers) - 1
        self.stats.deepest_tick = t - 1
        report_every = max(1, self.end_tick // 50)
        while t < self.end_tick:
            px, py, world, _, _ = layers[t]
            if self._calm and t > worst_failure:
                self._calm = False
                skip = self._calm_ticks(t, px, py, world)
                if skip:  # nothing can reach the beam for a while: it stands still
                    n = px.size
                    node = (px, py, world, np.arange(n, dtype=np.int64), np.full(n, self.stay, dtype=np.int64))
                    layers.extend([node] * skip)
                    t += skip
                    self.stats.deepest_tick = max(self.stats.deepest_tick, t - 1)
                    self.stats.calm_ticks += skip
                    continue
            self._calm = False
            kept = self._step(t, px, py, world, width)
            if kept[0].size:
                layers.append(kept)
                self.stats.deepest_tick = max(self.stats.deepest_tick, t)
                t += 1
                if width > self.width and t > worst_failure + 4 * BACKUP_TICKS:
                    width = self.width  # well past the trouble spot: the usual beam again
                if progress is not None and t % report_every == 0:
                    progress("search", t, self.end_tick)
                if budget is not None and t % 16 == 0 and budget.exhausted():
                    self.stats.stopped_by = "time" if budget.stopped_by_time else "budget"
                    return self._result(layers, deepest, found=False)
                continue
            # the beam died at tick t
            self.stats.failures.append(t)
            if t - 1 >= len(deepest):
                deepest = self._path(layers)
            if budget is not None and budget.exhausted():
                self.stats.stopped_by = "time" if budget.stopped_by_time else "budget"
                return self._result(layers, deepest, found=False)
            if self.viable is None and viable_provider is not None:
                # from now on leave dead ends early (the kept layers stay valid: they are hit-free)
                self.viable = viable_provider()
                viable_provider = None
            new_spot = t > worst_failure + BACKUP_TICKS
            if attempt_start == 0 and width >= MAX_WIDTH and not new_spot:
                # the widest beam from the very start died where the others did
                self.stats.stopped_by = "exhausted"
                return self._result(layers, deepest, found=False)
            if new_spot:
                # a new trouble spot: back up a little first, with the usual beam
                back, width = BACKUP_TICKS, self.width
            else:
                width = min(MAX_WIDTH, width * 2)
            worst_failure = max(worst_failure, t)
            attempt_start = max(0, t - back)
            back *= 2
            self.stats.restarts += 1
            self.stats.widths.append(width)
            del layers[attempt_start + 1:]
            t = attempt_start
        self.stats.stopped_by = "found"
        return self._result(layers, deepest, found=True)

    @staticmethod
    def _path(layers: list[tuple[np.ndarray, ...]]) -> list[int]:
        """Moves from the start to the best node of the last layer."""
        path: list[int] = []
        k = 0
        for t in range(len(layers) - 1, 0, -1):
            _, _, _, parent, move = layers[t]
            path.append(int(move[k]))
            k = int(parent[k])
        path.reverse()
        return path

    def _result(self, layers: list[tuple[np.ndarray, ...]], deepest: list[int], *, found: bool) -> SearchResult:
        path = self._path(layers)
        if not found and len(deepest) > len(path):
            path = deepest
        aims = aims_along(self.program, self.moves, self.aimed_ticks, path, self.end_tick)
        return SearchResult(path if found else None, aims, path, self.stats, self.viable is not None)

def aims_along(program: dict[str, Any], moves: MoveTable, aimed_ticks: dict[int, WaveSpec], path: list[int],
               end_tick: int) -> dict[int, int]:
    """Aim angle of every aimed wave fired while following ``path`` (standing still after it)."""
    aims: dict[int, int] = {}
    if not aimed_ticks:
        return aims
    sx, sy = moves.step_x.tolist(), moves.step_y.tolist()
    x, y = program["player"]["start_x"], program["player"]["start_y"]
    for t in range(end_tick):
        if t in aimed_ticks:
            aims[aimed_ticks[t].ordinal] = aim_angle(program, x, y)
        if t < len(path):
            x = min(max(x + sx[path[t]], -moves.half_width), moves.half_width)
            y = min(max(y + sy[path[t]], -moves.half_height), moves.half_height)
    return aims


def path_to_runs(moves: MoveTable, path: list[int]) -> list[list[int]]:
    """Move indices per tick -> the inputs trace's run-length ``[ticks, dx, dy, focus]`` runs."""
    runs: list[list[int]] = []
    for k in path:
        item = [int(moves.dx[k]), int(moves.dy[k]), int(moves.focus[k])]
        if runs and runs[-1][1:] == item:
            runs[-1][0] += 1
        else:
            runs.append([1, *item])
    return runs
