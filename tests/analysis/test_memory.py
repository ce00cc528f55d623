"""Memory stays bounded for a large hit radius on a fine grid (a slow player; issue 29).

``covered_sets`` marked every covered span's cells in one numpy array of spans x longest
span: with a hit radius of hundreds of cells that is gigabytes. It now marks them in
batches; the result must be the same cells, and the peak allocation a few batches.
"""

from __future__ import annotations

import tracemalloc

import numpy as np

import gcv.analysis.grid as grid_module
from gcv.analysis.grid import Grid
from gcv.analysis.moves import move_table
from gcv.contract.models import BulletHellConfig
from gcv.sim.program import compile_program
from tests.support.fairutil import falling_wall


def _fine_grid() -> tuple[Grid, int]:
    doc = falling_wall(move_speed=0.5, hit_radius=2)  # radius 2, steps of 1/120 unit: 240 cells per radius
    program = compile_program(BulletHellConfig.model_validate(doc))
    moves = move_table(program)
    return Grid(program["arena"]["half_width"], program["arena"]["half_height"], moves.max_axis_step, 1, 1,
                moves), program["player"]["hit_radius"] ** 2


def _bullets(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(29)
    x = rng.integers(-3 * 65536, 3 * 65536, n)
    y = rng.integers(-3 * 65536, 3 * 65536, n)
    return x, y, np.arange(n) % 4


def test_covered_sets_marks_the_same_cells_in_batches(monkeypatch) -> None:
    g, r2 = _fine_grid()
    x, y, slot = _bullets(12)
    whole = g.covered_sets(x, y, r2, slot, 4)
    monkeypatch.setattr(grid_module, "SPAN_BATCH_CELLS", 1000)
    assert g.covered_sets(x, y, r2, slot, 4) == whole
    masks = g.covered(x, y, r2, slot=slot, slots=4)
    assert g.from_masks(masks) == whole  # the other path (difference arrays) agrees


def test_covered_sets_peak_memory_is_bounded() -> None:
    g, r2 = _fine_grid()
    x, y, slot = _bullets(60)  # 60 disks x ~480 rows x ~480 columns = 14 M cells at once before
    tracemalloc.start()
    try:
        g.covered_sets(x, y, r2, slot, 4)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 96 * 1024 * 1024, f"peak {peak / 2**20:.0f} MB"
