"""The cell grid of the reachable-set bound: geometry, moves between cells, covered cells.

Cells split the arena ``[-hw, hw] x [-hh, hh]`` (Q16 integers) into columns and rows of
width ``step * num / den`` (an exact rational), where ``step`` is the player's largest
per-tick axis move. A cell stands for the integer positions inside it, clipped to the arena
(the player is always clamped into the arena, so positions outside it never occur).

Three operations, each an over- or under-approximation in the direction that keeps the
impossibility proof sound (docs/analysis.md):

* ``post(R)``: every cell that some position of some cell of ``R`` can reach in one move,
  clamp included (an over-approximation of the successors);
* ``pre(S)``: every cell from which some move can reach a cell of ``S`` (for guiding the
  witness search, the same construction reversed);
* ``covered(X, Y)``: cells whose every position is within the hit radius of one bullet
  (an under-approximation of the positions that are certainly hit).

Sets of cells are Python integers used as bit sets (bit ``(j + p) * W + (i + p)`` is cell
``(i, j)``, with ``p`` guard columns and rows around the arena and ``W = nx + 2p``): one
shift moves every cell of a set at once, and a whole post() is a few dozen machine-speed
big-integer operations on a few kilobytes, several times faster than numpy on a boolean
grid of that size (numpy's per-call cost dominates there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import isqrt
from typing import Any

import numpy as np

from gcv.analysis.moves import MoveTable


SPAN_BATCH_CELLS = 1 << 21  # cells marked per numpy batch in covered_sets (bounds its memory)


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def isqrt_array(v: np.ndarray) -> np.ndarray:
    """floor(sqrt(v)) for non-negative int64 values below 2^52, exactly.

    In that range the double conversion is exact and sqrt is correctly rounded, so the floor
    is already right; the correction is kept as a guard (a too-large root would make a
    "certainly hit" claim unsound; a too-small one only makes it more cautious).
    """
    d = np.sqrt(v.astype(np.float64)).astype(np.int64)
    d -= d * d > v
    return d


def _shift(x: int, n: int) -> int:
    return x << n if n >= 0 else x >> -n


@dataclass
class Grid:
    half_width: int
    half_height: int
    step: int  # the player's largest axis move per tick (Q16), > 0
    num: int  # cell width = step * num / den
    den: int
    moves: MoveTable
    nx: int = field(init=False)
    ny: int = field(init=False)

    def __post_init__(self) -> None:
        self.unit = self.step * self.num  # cell(x) = floor((x + hw) * den / unit)
        self.nx = int(self.cell_x(self.half_width)) + 1
        self.ny = int(self.cell_y(self.half_height)) + 1
        self.lo_x, self.hi_x = self._bounds(self.nx, self.half_width)
        self.lo_y, self.hi_y = self._bounds(self.ny, self.half_height)
        self.offsets = self._offsets()
        self.pad = max(1, max(max(abs(ox), abs(oy)) for ox, oy in self.offsets))
        self.width = self.nx + 2 * self.pad  # bits per row, guards included
        self.bits = self.width * (self.ny + 2 * self.pad)
        self.nbytes = (self.bits + 7) // 8
        self._masks()
        self._groups = self._offset_groups()
        self._row_sum = self.lo_y + self.hi_y
        self._row_width = self.hi_y - self.lo_y

    # --------------------------------------------------------------- geometry
    @property
    def cells(self) -> int:
        return self.nx * self.ny

    @property
    def cell_width(self) -> float:
        """In Q16 units (for reports)."""
        return self.unit / self.den

    def cell_x(self, x: Any) -> Any:
        return ((np.asarray(x) + self.half_width) * self.den) // self.unit

    def cell_y(self, y: Any) -> Any:
        return ((np.asarray(y) + self.half_height) * self.den) // self.unit

    def cell_of(self, x: int, y: int) -> tuple[int, int]:
        return int(self.cell_x(x)), int(self.cell_y(y))

    def bit_index(self, i: Any, j: Any) -> Any:
        return (j + self.pad) * self.width + (i + self.pad)

    def _bounds(self, n: int, half: int) -> tuple[np.ndarray, np.ndarray]:
        lo = np.array([_ceil_div(i * self.unit, self.den) - half for i in range(n + 1)], dtype=np.int64)
        hi = lo[1:] - 1
        lo = lo[:-1].copy()
        lo[0] = max(int(lo[0]), -half)
        hi[-1] = half
        return lo, hi

    def _axis_offsets(self, m: int) -> tuple[int, ...]:
        q, r = divmod(m * self.den, self.unit)
        return (q, q + 1) if r else (q,)

    def _offsets(self) -> list[tuple[int, int]]:
        """Cell displacements one move can cause: for a move of m, floor(m / width) and, unless
        m is a whole number of cells, one more (a cell's positions land in two cells)."""
        out: set[tuple[int, int]] = set()
        for mx, my in zip(self.moves.step_x.tolist(), self.moves.step_y.tolist()):
            for ox in self._axis_offsets(mx):
                for oy in self._axis_offsets(my):
                    out.add((ox, oy))
        return sorted(out)

    def _offset_groups(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The offsets as (oxs, oys) products: rows sharing the same ox set share one pass."""
        by_oy: dict[int, set[int]] = {}
        for ox, oy in self.offsets:
            by_oy.setdefault(oy, set()).add(ox)
        groups: dict[tuple[int, ...], list[int]] = {}
        for oy, oxs in sorted(by_oy.items()):
            groups.setdefault(tuple(sorted(oxs)), []).append(oy)
        return [(oxs, tuple(oys)) for oxs, oys in sorted(groups.items())]

    # --------------------------------------------------------------- bit sets
    def _masks(self) -> None:
        p, w, nx, ny = self.pad, self.width, self.nx, self.ny
        row = ((1 << nx) - 1) << p
        rows_all = sum(1 << ((j + p) * w) for j in range(ny))  # bit 0 of every core row
        self.core = row * rows_all
        self.left_guards = [rows_all << c for c in range(p)]
        self.right_guards = [rows_all << (p + nx + k) for k in range(p)]
        self.col_first, self.col_last = rows_all << p, rows_all << (p + nx - 1)
        self.row_first, self.row_last = row << (p * w), row << ((p + ny - 1) * w)
        self.top_guards = [row << (r * w) for r in range(p)]
        self.bottom_guards = [row << ((p + ny + k) * w) for k in range(p)]

    def single(self, i: int, j: int) -> int:
        return 1 << int(self.bit_index(i, j))

    def post(self, r: int) -> int:
        """Cells reachable in one move from the cells of ``r``, clamping folded into the edges.

        Separable: a move clamps each axis on its own, so each group is a horizontal pass over
        its ox values (clamped) followed by vertical shifts over its oy values (clamped).
        """
        p, w = self.pad, self.width
        out = 0
        for oxs, oys in self._groups:
            h = 0
            for ox in oxs:
                h |= _shift(r, ox)
            fold = 0
            for c, guard in enumerate(self.left_guards):
                fold |= (h & guard) << (p - c)
            for k, guard in enumerate(self.right_guards):
                fold |= (h & guard) >> (k + 1)
            h = (h & self.core) | fold
            for oy in oys:
                out |= _shift(h, oy * w)
        fold = 0
        for r_, guard in enumerate(self.top_guards):
            fold |= (out & guard) << ((p - r_) * w)
        for k, guard in enumerate(self.bottom_guards):
            fold |= (out & guard) >> ((k + 1) * w)
        return (out & self.core) | fold

    @property
    def ticks_per_cell(self) -> int:
        """k: any k ticks of moves shift a position by at most one cell per axis (k >= 1).

        A column is at least ``unit // den`` positions wide (boundaries are rounded up), so k
        moves of at most ``step`` each, ``k * step <= unit // den``, cannot cross two column
        boundaries; the clamp only pulls a position back towards the arena. When a cell spans
        several steps (a slow player on a coarse grid) this is what keeps the bound at the
        player's real speed instead of a cell per tick.
        """
        return max(1, (self.unit // self.den) // self.step)

    def dilate(self, r: int) -> int:
        """Cells of ``r`` and their 8 neighbours (inside the arena): where k ticks can lead."""
        w = self.width
        h = r | (r << 1) | (r >> 1)
        return (h | (h << w) | (h >> w)) & self.core

    def pre(self, s: int) -> int:
        """Cells from which one move can reach a cell of ``s`` (a clamped move ends on the edge)."""
        p, w = self.pad, self.width
        tall = s
        first, last = s & self.row_first, s & self.row_last
        for r_ in range(p):  # replicate the edge rows into the guard rows
            tall |= (first >> ((p - r_) * w)) | (last << ((r_ + 1) * w))
        out = 0
        for oxs, oys in self._groups:
            v = 0
            for oy in oys:
                v |= _shift(tall, -oy * w)
            v &= self.core
            first_c, last_c = v & self.col_first, v & self.col_last
            for c in range(p):
                v |= (first_c >> (p - c)) | (last_c << (c + 1))
            for ox in oxs:
                out |= _shift(v, -ox)
        return out & self.core

    def count(self, r: int) -> int:
        return r.bit_count()

    def area_fraction(self, r: int) -> float:
        """Share of the arena's positions in the cells of ``r`` (partial edge cells weigh less)."""
        n = r.bit_count()
        if n == 0:
            return 0.0
        lc, lr = (r & self.col_last).bit_count(), (r & self.row_last).bit_count()
        corner = (r >> int(self.bit_index(self.nx - 1, self.ny - 1))) & 1
        a = self._areas
        interior = n - lc - lr + corner
        return (interior * a[0] + (lc - corner) * a[1] + (lr - corner) * a[2] + corner * a[3]) / a[4]

    @property
    def _areas(self) -> tuple[float, float, float, float, float]:
        if not hasattr(self, "_areas_cache"):
            wx = (self.hi_x - self.lo_x + 1).astype(np.float64)
            wy = (self.hi_y - self.lo_y + 1).astype(np.float64)
            ix = wx[:-1].mean() if self.nx > 1 else wx[0]
            iy = wy[:-1].mean() if self.ny > 1 else wy[0]
            total = float(2 * self.half_width + 1) * float(2 * self.half_height + 1)
            self._areas_cache = (ix * iy, wx[-1] * iy, ix * wy[-1], wx[-1] * wy[-1], total)
        return self._areas_cache

    def to_bytes(self, r: int) -> bytes:
        return r.to_bytes(self.nbytes, "little")

    def from_masks(self, masks: np.ndarray) -> list[int]:
        """(k, ny, nx) boolean masks -> k bit sets."""
        p, k = self.pad, masks.shape[0]
        padded = np.zeros((k, self.ny + 2 * p, self.width), dtype=bool)
        padded[:, p:p + self.ny, p:p + self.nx] = masks
        packed = np.packbits(padded.reshape(k, -1), axis=1, bitorder="little")
        return [int.from_bytes(row.tobytes(), "little") for row in packed]

    def from_cells(self, i: np.ndarray, j: np.ndarray) -> int:
        """The bit set of the cells (i, j) (repeats allowed)."""
        flat = np.zeros(self.nbytes * 8, dtype=bool)
        flat[self.bit_index(i, j)] = True
        return int.from_bytes(np.packbits(flat, bitorder="little").tobytes(), "little")

    def to_mask(self, r: int | bytes) -> np.ndarray:
        """A bit set (or its bytes) -> (ny, nx) boolean mask."""
        raw = self.to_bytes(r) if isinstance(r, int) else r
        bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), count=self.bits, bitorder="little")
        p = self.pad
        return bits.reshape(self.ny + 2 * p, self.width)[p:p + self.ny, p:p + self.nx].astype(bool)

    # --------------------------------------------------------------- certainly-hit cells
    def covered(self, x: np.ndarray, y: np.ndarray, hit_r2: int, *, slot: np.ndarray | None = None,
                slots: int = 1) -> np.ndarray:
        """Cells all of whose positions are within the hit radius of one bullet, as a
        (slots, ny, nx) mask: bullet ``k`` counts in slot ``slot[k]`` (one slot per tick when
        many ticks are done at once; numpy's per-call cost dominates small arrays).

        Exact integer arithmetic: for a row of cells whose farthest y distance from the bullet
        is ``fy``, a cell is covered iff its farthest x distance is at most ``isqrt(r^2 - fy^2)``,
        which is an interval of columns.
        """
        ny, nx = self.ny, self.nx
        empty = np.zeros((slots, ny, nx), dtype=bool)
        spans = self.covered_spans(x, y, hit_r2)
        if spans is None:
            return empty
        bullet, jv, lo, hi = spans
        sv = (slot[bullet] if slot is not None else np.zeros(bullet.size, dtype=np.int64)) * (ny * nx)
        longest = int((hi - lo).max()) + 1
        if jv.size * longest <= min(2 * slots * self.cells, SPAN_BATCH_CELLS):
            # short spans: mark their cells directly
            cols = lo[:, None] + np.arange(longest)[None, :]
            flat = (sv[:, None] + jv[:, None] * nx + cols)[cols <= hi[:, None]]
            mask = empty.reshape(-1)
            mask[flat] = True
            return mask.reshape(slots, ny, nx)
        width = nx + 1
        size = slots * ny * width
        base = sv // nx * width + jv * width  # slot * ny * width + row * width
        diff = np.bincount(base + lo, minlength=size) - np.bincount(base + hi + 1, minlength=size)
        return np.cumsum(diff.reshape(slots, ny, width), axis=2)[:, :, :nx] > 0

    def covered_sets(self, x: np.ndarray, y: np.ndarray, hit_r2: int, slot: np.ndarray, slots: int) -> list[int]:
        """``covered`` as bit sets, one per slot, built straight from the spans."""
        stride = self.nbytes * 8
        flat = np.zeros(slots * stride, dtype=bool)
        spans = self.covered_spans(x, y, hit_r2)
        if spans is not None:
            bullet, jv, lo, hi = spans
            base = slot[bullet] * stride + (jv + self.pad) * self.width + self.pad
            longest = int((hi - lo).max()) + 1
            # spans x longest cells at once would be gigabytes for a large hit radius on a fine
            # grid (a slow player): mark them in batches of at most SPAN_BATCH_CELLS
            step = max(1, SPAN_BATCH_CELLS // longest)
            ramp = np.arange(longest)
            for k in range(0, base.size, step):
                cols = lo[k:k + step, None] + ramp
                flat[(base[k:k + step, None] + cols)[cols <= hi[k:k + step, None]]] = True
        packed = np.packbits(flat.reshape(slots, stride), axis=1, bitorder="little")
        return [int.from_bytes(row.tobytes(), "little") for row in packed]

    def covered_spans(self, x: np.ndarray, y: np.ndarray, hit_r2: int) -> tuple[np.ndarray, ...] | None:
        """(bullet, row, first column, last column) of every covered run of cells, or None.

        For each bullet, each of the rows a disk of the hit radius can reach: the row's farthest
        y distance ``fy = max(|Y - lo|, |Y - hi|)`` (= ``(|2Y - lo - hi| + hi - lo) / 2``); the row's
        covered cells are those whose x extent lies in ``[X - d, X + d]``, ``d = isqrt(r^2 - fy^2)``.
        Rows beyond the disk get ``r^2 - fy^2 < 0`` and drop out.
        """
        ny, nx = self.ny, self.nx
        if x.size == 0:
            return None
        r = isqrt(hit_r2)
        span = (2 * r * self.den) // self.unit + 2  # rows a disk of radius r can meet
        rows = np.maximum(self.cell_y(y - r), 0)[:, None] + np.arange(span)  # (b, span)
        rows_c = np.minimum(rows, ny - 1)
        fy = (np.abs((2 * y)[:, None] - self._row_sum[rows_c]) + self._row_width[rows_c]) >> 1
        v = hit_r2 - fy * fy
        bullet, k = np.nonzero((v >= 0) & (rows < ny))  # the rows the disk reaches
        if bullet.size == 0:
            return None
        jv = rows[bullet, k]
        d = isqrt_array(v[bullet, k])
        xb = x[bullet]
        # cells whose whole x extent is in [X - d, X + d]; left of the arena counts as covered
        # (no position is there), right of it too, which the last column's clipped bound needs
        i_min = np.maximum(self.cell_x(xb - d - 1) + 1, 0)
        b = xb + d
        i_max = np.where(b >= self.half_width, nx - 1, self.cell_x(b + 1) - 1)
        ok = i_min <= i_max
        if not ok.any():
            return None
        return bullet[ok], jv[ok], i_min[ok], i_max[ok]


def choose_grid(program: dict[str, Any], moves: MoveTable, ticks: int, *,
                work_limit: float = 1.2e9, cells_limit: int = 600_000,
                cells_per_radius: int = 3) -> Grid:
    """The finest grid the work budget allows, up to ``cells_per_radius`` cells per hit radius.

    A cell no wider than the player's step keeps the bound on the player's speed tight (a
    move that is not a whole number of cells over-reaches by at most one cell); a cell
    narrower than the hit radius is what lets a bullet cover whole cells. ``cells x ticks``
    is capped by ``work_limit`` (a fixed figure, not the caller's time budget, so the same
    config always gets the same grid) so that a long fight gets a coarser grid, not an
    endless run. Beyond one step per cell the width grows by half steps (1.5, 2, 2.5 steps):
    the bound stays sound but loose, and the report shows the grid it used.
    """
    arena, pl = program["arena"], program["player"]
    hw, hh = arena["half_width"], arena["half_height"]
    step = max(moves.max_axis_step, 1)
    hit_r = pl["hit_radius"]
    limit = max(1000, min(cells_limit, int(work_limit / max(ticks, 1))))

    def cells(num: int, den: int) -> int:
        return ((2 * hw * den) // (step * num) + 1) * ((2 * hh * den) // (step * num) + 1)

    den = max(1, _ceil_div(cells_per_radius * step, max(hit_r, 1)))
    while den > 1 and cells(1, den) > limit:
        den -= 1
    num = 1
    if cells(1, 1) > limit:  # coarser than one step: widths of k/2 steps
        num, den = 3, 2
        while cells(num, den) > limit:
            num += 1
    return Grid(hw, hh, step, num, den, moves)
