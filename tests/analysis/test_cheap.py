"""Cheap witnesses (gcv.analysis.cheap): standing still, walking one way then standing, and each
bot's trajectory, screened against the bullets and replayed; the longest survivor seeds the search."""

from __future__ import annotations

from typing import Any

import pytest

from gcv.analysis.cheap import WALK_TICKS, bot_candidates, cheap_witnesses, screen, walk_candidates
from gcv.analysis.field import BulletField, wave_specs
from gcv.analysis.moves import move_table
from gcv.contract.models import BulletHellConfig
from gcv.sim.program import compile_program
from gcv.sim.schedule import emission_schedule
from tests.support.fairutil import falling_wall, with_phase


def _setup(doc: dict[str, Any]):  # type: ignore[no-untyped-def]
    program = compile_program(BulletHellConfig.model_validate(doc))
    end = emission_schedule(program).end_tick
    moves = move_table(program)
    return program, moves, BulletField(program, wave_specs(program, 1, emission_schedule(program))), end


@pytest.fixture(scope="module")
def wall():  # type: ignore[no-untyped-def]
    return _setup(falling_wall())


def test_walk_candidates_stand_or_walk_then_stand(wall) -> None:  # type: ignore[no-untyped-def]
    program, moves, _, end = wall
    walks = walk_candidates(moves, end)
    stay = walks[0].path[0]
    assert walks[0].label == "stand still" and walks[0].path == [stay] * end
    assert moves.step_x[stay] == 0 and moves.step_y[stay] == 0
    assert walks[1].label == "move 1 for 4 ticks, then stand" and walks[1].path == [1] * 4 + [stay] * (end - 4)
    assert all(len(c.path) == end for c in walks)
    lengths = [int(c.label.split(" for ")[1].split()[0]) for c in walks[1:] if c.label.startswith("move 1 ")]
    assert lengths == [min(t, end) for t in WALK_TICKS[:len(lengths)]]  # 4, 8, 16, ... until it crosses the arena


def test_bot_candidates_one_per_skill(wall) -> None:  # type: ignore[no-untyped-def]
    program, moves, _, end = wall
    bots = bot_candidates(program, moves, 1, end)
    assert [b.label for b in bots] == ["bot novice (seed 1)", "bot average (seed 1)", "bot expert (seed 1)"]
    assert all(len(b.path) == end and set(b.path) <= set(range(moves.count)) for b in bots)
    assert bot_candidates(program, moves, 1, end)[0].path == bots[0].path  # the seed decides


def test_the_wall_hits_everyone(wall) -> None:  # type: ignore[no-untyped-def]
    """One bullet wider than the arena: every candidate is hit, standing still first."""
    program, moves, field_, end = wall
    candidates = walk_candidates(moves, end)[:3] + bot_candidates(program, moves, 1, end)
    first = screen(program, field_, moves, candidates, end, program["player"]["hit_radius"] ** 2, None)
    assert all(f is not None and 0 < f < end for f in first)
    assert first[0] == min(first)  # those who move away are hit later


def test_no_survivor_seeds_the_search_with_the_longest_survivor(wall) -> None:  # type: ignore[no-untyped-def]
    program, moves, field_, end = wall
    replays: list[list[int]] = []

    def replay(path: list[int]) -> dict[str, Any]:
        replays.append(path)
        return {"player_hits": 1, "status": "completed", "hit_ticks": [100]}

    result = cheap_witnesses(program, field_, moves, end, 1, program["player"]["hit_radius"] ** 2, None, replay)
    assert result.found is None and len(replays) == result.replays == 1
    assert result.seed_label is not None and result.seed_label.startswith("bot ")  # bots first on ties
    assert len(result.seed_path) == 100 - 30 and result.candidates == len(result.first_hits)


def test_a_hit_free_replay_is_the_witness() -> None:
    program, moves, field_, end = _setup(with_phase(falling_wall(), 0, bullet_speed=0.5, bullet_lifetime_seconds=0.5))  # gone early
    result = cheap_witnesses(program, field_, moves, end, 1, program["player"]["hit_radius"] ** 2, None,
                             lambda path: {"player_hits": 0, "status": "completed", "hit_ticks": []})
    assert result.found is not None and result.found.label == "stand still" and result.replays == 1
    assert result.first_hits["stand still"] is None
