"""The integer sine of ``gcv.sim.fixed`` as whole tables, for the simulator's vector steps.

``fixed.isin`` is the scalar specification (docs/simulation.md section 2). Here the same
integer steps run over every angle at once in int64: every intermediate is non-negative and
below 2^62, so each shift floors exactly as in the scalar form (a test compares every entry).
Kept apart from ``fixed`` so that code needing only the exact conversions (validation, the
evaluator, the goal applier) does not import numpy.
"""

from __future__ import annotations

import numpy as np

from gcv.sim.fixed import QUARTER, SIN_C, TURN


def _quarter_sin_table() -> np.ndarray:
    """``fixed._quarter_sin`` for every x in [0, QUARTER]."""
    u = np.arange(QUARTER + 1, dtype=np.int64) << 16
    u2 = (u * u) >> 30
    c0, c1, c2, c3, c4 = SIN_C
    t = c3 - ((u2 * c4) >> 30)
    t = c2 - ((u2 * t) >> 30)
    t = c1 - ((u2 * t) >> 30)
    t = c0 - ((u2 * t) >> 30)
    v = (u * t) >> 30
    return (v + (1 << 13)) >> 14


QUARTER_SIN = _quarter_sin_table()


def _sin_table() -> np.ndarray:
    """``fixed.isin`` for every angle of the turn, folded by quadrant."""
    a = np.arange(TURN, dtype=np.int64)
    quadrant, x = a >> 14, a & (QUARTER - 1)
    index = np.where((quadrant & 1) == 0, x, QUARTER - x)
    sign = np.where(quadrant < 2, 1, -1)
    return sign * QUARTER_SIN[index]


SIN_TABLE = _sin_table()
COS_TABLE = np.roll(SIN_TABLE, -QUARTER)
# the same values as Python ints, for scalar lookups in per-tick code (faster than a call)
SIN_LIST: list[int] = SIN_TABLE.tolist()
