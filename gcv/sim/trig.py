"""The integer sine of ``gcv.sim.fixed`` as whole tables, for the simulator's vector steps.

``fixed.isin`` is the scalar specification (docs/simulation.md section 2). Here the same
function, ``fixed.quarter_sin``, runs over every angle at once in int64 (a test compares every
entry with the scalar form). Kept apart from ``fixed`` so that code needing only the exact
conversions (validation, the evaluator, the goal applier) does not import numpy.
"""

from __future__ import annotations

import numpy as np

from gcv.sim.fixed import QUARTER, TURN, quarter_sin

QUARTER_SIN: np.ndarray = quarter_sin(np.arange(QUARTER + 1, dtype=np.int64))


def _sin_table() -> np.ndarray:
    """``fixed.isin`` for every angle of the turn, folded by quadrant."""
    a = np.arange(TURN, dtype=np.int64)
    quadrant, x = a >> 14, a & (QUARTER - 1)
    index = np.where((quadrant & 1) == 0, x, QUARTER - x)
    sign = np.where(quadrant < 2, 1, -1)
    table: np.ndarray = sign * QUARTER_SIN[index]
    return table


SIN_TABLE = _sin_table()
COS_TABLE = np.roll(SIN_TABLE, -QUARTER)
# the same values as Python ints, for scalar lookups in per-tick code (faster than a call)
SIN_LIST: list[int] = SIN_TABLE.tolist()
