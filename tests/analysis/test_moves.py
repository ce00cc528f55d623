"""The analysis's move table is the simulator's: the same steps, the same clamp."""

from __future__ import annotations

import numpy as np
import pytest

from gcv.analysis.moves import move_table
from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from tests.support.fairutil import baseline_data, falling_wall, spec_steps


@pytest.mark.parametrize("doc", [baseline_data(), falling_wall(), falling_wall(focus_multiplier=0.35)],
                         ids=["baseline", "focus_equal", "focus_slower"])
def test_distinct_steps_match_the_spec_and_the_bot_table(doc: dict) -> None:
    program = compile_program(BulletHellConfig.model_validate(doc))
    table = move_table(program)
    steps = set(zip(table.step_x.tolist(), table.step_y.tolist()))
    assert steps == set(spec_steps(program))
    assert table.count == len(steps)  # distinct
    bot = Simulation(program, {"kind": "bot", "skill": "average"})
    assert steps == set(zip(bot.bot_step_x.tolist(), bot.bot_step_y.tolist()))
    # the recorded input of each step reproduces it under the spec's movement rule
    pl = program["player"]
    for k in range(table.count):
        dx, dy, focus = int(table.dx[k]), int(table.dy[k]), int(table.focus[k])
        s = pl["focus_speed"] if focus else pl["speed"]
        s = (s * 46341) >> 16 if dx and dy else s
        assert (dx * s, dy * s) == (table.step_x[k], table.step_y[k])


def test_apply_clamps_like_the_engine() -> None:
    program = compile_program(BulletHellConfig.model_validate(falling_wall(move_speed=30)))
    table = move_table(program)
    hw, hh = program["arena"]["half_width"], program["arena"]["half_height"]
    clamped = 0
    for k in range(table.count):
        nx, ny = table.apply(hw - 5, -hh + 5, k)
        assert nx == min(max(hw - 5 + int(table.step_x[k]), -hw), hw)
        assert ny == min(max(-hh + 5 + int(table.step_y[k]), -hh), hh)
        clamped += int(nx == hw) + int(ny == -hh)
    assert clamped >= 2  # the corner clamps on both axes for some moves
    xs, ys = table.apply(np.array([hw - 5, 0]), np.array([0, -hh + 5]), np.arange(2))
    assert xs.shape == ys.shape == (2,)
