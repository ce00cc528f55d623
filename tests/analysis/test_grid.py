"""The grid's three operations against cell-by-cell brute force.

post() must contain every cell some position of a set can move to (soundness of the bound),
covered() must contain only cells whose every position is hit (soundness again) and should
contain all of them (precision), pre() mirrors post().
"""

from __future__ import annotations

from math import isqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcv.analysis.grid import Grid, isqrt_array
from gcv.analysis.moves import MoveTable


def _grid(hw: int, hh: int, speed: int, focus: int, num: int, den: int) -> Grid:
    steps = {}
    for f, s in ((0, speed), (1, focus)):
        d = (s * 46341) >> 16
        for dx, dy in ((0, 0), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)):
            v = d if dx and dy else s
            steps.setdefault((dx * v, dy * v), (dx, dy, f))
    keys = list(steps)
    arr = lambda vals: np.array(vals, dtype=np.int64)  # noqa: E731
    table = MoveTable(arr([steps[k][0] for k in keys]), arr([steps[k][1] for k in keys]),
                      arr([steps[k][2] for k in keys]), arr([k[0] for k in keys]), arr([k[1] for k in keys]), hw, hh)
    return Grid(hw, hh, max(speed, focus), num, den, table)


GRIDS = st.builds(_grid, hw=st.integers(3000, 40000), hh=st.integers(3000, 40000), speed=st.integers(500, 6000),
                  focus=st.integers(100, 6000), num=st.integers(1, 2), den=st.integers(1, 3))


def _cells_of_positions(g: Grid, xs: np.ndarray, ys: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(g.cell_x(xs).tolist(), g.cell_y(ys).tolist()))


@settings(max_examples=60, deadline=None)
@given(g=GRIDS, data=st.data())
def test_post_contains_every_real_successor(g: Grid, data: st.DataObject) -> None:
    """Sample positions in a few cells, apply every real move with the clamp: their cells are in post()."""
    i = data.draw(st.integers(0, g.nx - 1))
    j = data.draw(st.integers(0, g.ny - 1))
    # every corner of the cell and some inner points: the extremes are where over-reach happens
    xs = np.array([g.lo_x[i], g.hi_x[i], (g.lo_x[i] + g.hi_x[i]) // 2], dtype=np.int64)
    ys = np.array([g.lo_y[j], g.hi_y[j], (g.lo_y[j] + g.hi_y[j]) // 2], dtype=np.int64)
    X, Y = np.meshgrid(xs, ys)
    X, Y = X.ravel(), Y.ravel()
    mv = g.moves
    nx = np.clip(X[:, None] + mv.step_x, -g.half_width, g.half_width).ravel()
    ny = np.clip(Y[:, None] + mv.step_y, -g.half_height, g.half_height).ravel()
    succ = g.to_mask(g.post(g.single(i, j)))
    for a, b in _cells_of_positions(g, nx, ny):
        assert succ[b, a], f"post() misses cell {(a, b)} reached from cell {(i, j)}"


def _post_reference(g: Grid, r: np.ndarray) -> np.ndarray:
    out = np.zeros_like(r)
    for j, i in zip(*np.nonzero(r)):
        for ox, oy in g.offsets:
            out[min(max(j + oy, 0), g.ny - 1), min(max(i + ox, 0), g.nx - 1)] = True
    return out


def _pre_reference(g: Grid, s: np.ndarray) -> np.ndarray:
    out = np.zeros_like(s)
    for j in range(g.ny):
        for i in range(g.nx):
            out[j, i] = any(s[min(max(j + oy, 0), g.ny - 1), min(max(i + ox, 0), g.nx - 1)] for ox, oy in g.offsets)
    return out


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(g=GRIDS.filter(lambda g: g.cells <= 900), seed=st.integers(0, 2**32 - 1))
def test_bitset_post_and_pre_equal_the_cell_by_cell_definition(g: Grid, seed: int) -> None:
    rng = np.random.default_rng(seed)
    r = rng.random((g.ny, g.nx)) < 0.1
    (bits,) = g.from_masks(r[None])
    assert np.array_equal(g.to_mask(bits), r)
    assert np.array_equal(g.to_mask(g.post(bits)), _post_reference(g, r))
    assert np.array_equal(g.to_mask(g.pre(bits)), _pre_reference(g, r))
    assert g.count(bits) == int(r.sum())


def test_offsets_cover_both_cells_of_a_move_that_is_not_a_whole_number_of_cells() -> None:
    g = _grid(20000, 20000, speed=3000, focus=1350, num=1, den=2)  # cell = 1500
    assert (2, 0) in g.offsets and (-2, 0) in g.offsets  # 3000 = exactly two cells
    assert (3, 0) not in g.offsets
    assert {(0, 0), (1, 0)} <= set(g.offsets)  # 1350 = 0.9 cells: lands in the same or the next cell
    diag = (3000 * 46341) >> 16  # 2121 = 1.41 cells
    assert {(1, 1), (2, 2), (1, 2), (2, 1)} <= set(g.offsets) and diag // 1500 == 1


@settings(max_examples=80, deadline=None)
@given(g=GRIDS, bx=st.integers(-45000, 45000), by=st.integers(-45000, 45000), r=st.integers(300, 20000))
def test_covered_is_exactly_the_cells_inside_one_disk(g: Grid, bx: int, by: int, r: int) -> None:
    """A cell (clipped to the arena) is covered iff its four corners are within the radius:
    the disk is convex, so that is every position of the cell; and no other cell is."""
    mask = g.covered(np.array([bx]), np.array([by]), r * r)[0]
    i0, i1 = max(0, int(g.cell_x(bx - r)) - 1), min(g.nx - 1, int(g.cell_x(bx + r)) + 1)
    j0, j1 = max(0, int(g.cell_y(by - r)) - 1), min(g.ny - 1, int(g.cell_y(by + r)) + 1)
    expected = np.zeros_like(mask)
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            corners = [(x, y) for x in (g.lo_x[i], g.hi_x[i]) for y in (g.lo_y[j], g.hi_y[j])]
            expected[j, i] = all((x - bx) ** 2 + (y - by) ** 2 <= r * r for x, y in corners)
    assert np.array_equal(mask, expected)


def test_covered_in_slots_equals_one_call_per_slot() -> None:
    g = _grid(30000, 20000, speed=2000, focus=900, num=1, den=2)
    rng = np.random.default_rng(5)
    x, y = rng.integers(-35000, 35000, 50), rng.integers(-25000, 25000, 50)
    slot = rng.integers(0, 4, 50)
    both = g.covered(x, y, 6000 ** 2, slot=slot, slots=4)
    for k in range(4):
        assert np.array_equal(both[k], g.covered(x[slot == k], y[slot == k], 6000 ** 2)[0])
    # the long-span path (diff + cumsum) agrees with the direct path
    wide = g.covered(x, y, 40000 ** 2, slot=slot, slots=4)
    for k in range(4):
        assert np.array_equal(wide[k], g.covered(x[slot == k], y[slot == k], 40000 ** 2)[0])


def test_isqrt_array_is_exact() -> None:
    v = np.concatenate([np.arange(0, 5000), [k * k + e for k in range(1, 1 << 17, 131) for e in (-1, 0, 1)],
                        np.random.default_rng(1).integers(0, 1 << 40, 5000)]).astype(np.int64)
    v = v[v >= 0]
    assert [int(d) for d in isqrt_array(v)] == [isqrt(int(n)) for n in v]


@pytest.mark.parametrize("full", [True, False])
def test_area_fraction(full: bool) -> None:
    g = _grid(10000, 7000, speed=3000, focus=3000, num=1, den=1)
    if full:
        assert g.area_fraction(g.core) == pytest.approx(1.0, abs=1e-3)
    else:
        half = np.zeros((g.ny, g.nx), dtype=bool)
        half[:, : g.nx // 2] = True
        (bits,) = g.from_masks(half[None])
        share = (int(g.hi_x[g.nx // 2 - 1]) + g.half_width + 1) / (2 * g.half_width + 1)
        assert g.area_fraction(bits) == pytest.approx(share, rel=0.02)
