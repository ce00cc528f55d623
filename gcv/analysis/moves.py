"""The player's real moves, exactly as the simulator applies them (docs/simulation.md 6).

An ``inputs`` player holds a direction ``(dx, dy)`` in ``{-1, 0, 1}^2`` and a focus flag each
tick; its per-tick step is ``(dx * s, dy * s)`` with ``s`` the focused or unfocused speed,
shrunk by ``(s * 46341) >> 16`` on diagonals, then the position is clamped to the arena.
Those 18 inputs give at most 17 distinct steps (standing still is the same focused or not;
with ``focus_multiplier = 1`` the focused steps repeat the unfocused ones). Every search and
bound in this package works on this table, so nothing here may drift from the engine: a
test compares it with the engine's own bot step table and with replays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gcv.sim.engine import BOT_DIRS, DIAGONAL_Q16


@dataclass(frozen=True)
class MoveTable:
    """Distinct per-tick steps and one input that produces each (the first, in bot order)."""

    dx: np.ndarray  # int64 (m,) input direction
    dy: np.ndarray
    focus: np.ndarray  # int64 (m,) 0 or 1
    step_x: np.ndarray  # int64 (m,) Q16 step before clamping
    step_y: np.ndarray
    half_width: int
    half_height: int

    @property
    def count(self) -> int:
        return int(self.step_x.size)

    @property
    def max_axis_step(self) -> int:
        """The largest distance one tick can move a coordinate (before clamping)."""
        return int(max(np.abs(self.step_x).max(), np.abs(self.step_y).max()))

    def apply(self, x: np.ndarray | int, y: np.ndarray | int, k: np.ndarray | int) -> tuple[Any, Any]:
        """Positions after move ``k`` from ``(x, y)``, clamped like the engine's step 6."""
        nx = np.clip(np.asarray(x) + self.step_x[k], -self.half_width, self.half_width)
        ny = np.clip(np.asarray(y) + self.step_y[k], -self.half_height, self.half_height)
        return nx, ny


def move_table(program: dict[str, Any]) -> MoveTable:
    pl, arena = program["player"], program["arena"]
    seen: dict[tuple[int, int], tuple[int, int, int]] = {}
    for focus in (0, 1):
        speed = pl["focus_speed"] if focus else pl["speed"]
        diagonal = (speed * DIAGONAL_Q16) >> 16
        for dx, dy in BOT_DIRS:
            s = diagonal if dx and dy else speed
            seen.setdefault((dx * s, dy * s), (dx, dy, focus))
    steps = list(seen)
    inputs = [seen[s] for s in steps]
    arr = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return MoveTable(arr([i[0] for i in inputs]), arr([i[1] for i in inputs]), arr([i[2] for i in inputs]),
                     arr([s[0] for s in steps]), arr([s[1] for s in steps]),
                     arena["half_width"], arena["half_height"])
