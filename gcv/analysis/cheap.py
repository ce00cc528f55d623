"""Cheap witnesses, tried before any search: standing still, walking one way then standing,
and the trajectory of each bot skill with the analysis's seed.

Why first: many fights are survived by something simple. A sparse fight is often survived by
standing still; a fight with one safe lane by walking into it early and staying ("walk right,
stand"), which the beam search misses when the danger is still far away (it ranks by nearby
clearance, and nothing is near yet). A handful of whole-fight paths screened at once against
the bullets costs far less than the search or the bound, and a hit-free one, replayed through
the simulator, is a witness like any other.

The screen runs every candidate against the player-independent bullets (``BulletField``),
chunk by chunk, dropping a candidate at its first hit. With aimed phases that is a necessary
condition only; the replay through the reference simulator decides, as it does for every
witness. The candidate that survives longest, if none survives, becomes the search's seed: its
moves up to a little before its first hit (taken from the replay) start the beam there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gcv.analysis.budget import CHEAP_SHARE, PAIRS_PER_UNIT, REPLAY_TICK_UNITS, Budget
from gcv.analysis.field import BulletField
from gcv.analysis.moves import MoveTable
from gcv.sim.engine import BOT_DIRS, DIAGONAL_Q16, Simulation

WALK_TICKS = (4, 8, 16, 32, 64, 128, 256, 512, 1024)
MAX_REPLAYS = 6
CHUNK = 16
SEED_MARGIN = 30  # the seed stops this many ticks before the candidate's first hit


@dataclass
class Candidate:
    label: str
    path: list[int]  # move index per tick, the whole fight


@dataclass
class CheapResult:
    found: Candidate | None  # a candidate the simulator replayed with no hit
    seed_path: list[int]  # moves of the longest-surviving candidate up to a margin before its first hit
    seed_label: str | None
    candidates: int
    replays: int
    first_hits: dict[str, int | None]  # label -> first hit tick against the screened bullets (None: none)


def _stay(moves: MoveTable) -> int:
    return int(np.flatnonzero((moves.step_x == 0) & (moves.step_y == 0))[0])


def walk_candidates(moves: MoveTable, end: int) -> list[Candidate]:
    """Standing still, then every distinct move held for 4, 8, ... ticks and standing after,
    up to the ticks that cross the arena (longer walks only stand at the edge for longer)."""
    stay = _stay(moves)
    out = [Candidate("stand still", [stay] * end)]
    span = 2 * max(moves.half_width, moves.half_height)
    for k in range(moves.count):
        if k == stay:
            continue
        step = max(abs(int(moves.step_x[k])), abs(int(moves.step_y[k])), 1)
        cross = -(-span // step) + 1
        for ticks in WALK_TICKS:
            n = min(ticks, end)
            out.append(Candidate(f"move {k} for {n} ticks, then stand", [k] * n + [stay] * (end - n)))
            if ticks >= cross or ticks >= end:
                break
    return out


def bot_candidates(program: dict[str, Any], moves: MoveTable, seed: int, end: int) -> list[Candidate]:
    """Each bot skill's moves with the analysis's seed, as move-table indices (stand after the
    bot's run ends). The bot draws from the generator, an inputs player does not: with scatter
    phases the replay is what decides, as always."""
    pl = program["player"]
    index: dict[tuple[int, int], int] = {(int(x), int(y)): k for k, (x, y)
                                         in enumerate(zip(moves.step_x.tolist(), moves.step_y.tolist()))}
    bot_steps = []
    for focus in (0, 1):
        speed = pl["focus_speed"] if focus else pl["speed"]
        diagonal = (speed * DIAGONAL_Q16) >> 16
        for dx, dy in BOT_DIRS:
            s = diagonal if dx and dy else speed
            bot_steps.append(index[(dx * s, dy * s)])
    stay = _stay(moves)
    out = []
    for skill in program["bot"]["skills"]:
        sim = Simulation(program, {"kind": "bot", "skill": skill})
        sim.reset(seed=seed)
        path: list[int] = []
        while len(path) < end:
            going = sim.step()
            path.append(bot_steps[sim.bot_move])
            if not going:
                break
        path += [stay] * (end - len(path))
        out.append(Candidate(f"bot {skill} (seed {seed})", path[:end]))
    return out


def screen(program: dict[str, Any], field_: BulletField, moves: MoveTable, candidates: list[Candidate],
           end: int, hit_r2: int, budget: Budget | None) -> list[int | None]:
    """First tick each candidate is hit by the field's bullets (None: never), chunk by chunk.

    Positions are advanced chunk by chunk from each candidate's state (clamped like the
    engine's step 6), so memory stays a few chunks' worth however long the fight.
    """
    n = len(candidates)
    pl = program["player"]
    cap = budget.work_limit // CHEAP_SHARE if budget is not None else 0
    paths = np.array([c.path for c in candidates], dtype=np.int8).reshape(n, end)
    x = np.full(n, pl["start_x"], dtype=np.int64)
    y = np.full(n, pl["start_y"], dtype=np.int64)
    first: list[int | None] = [None] * n
    live = np.arange(n)
    for t0 in range(0, end, CHUNK):
        if live.size == 0:
            break
        if budget is not None and (budget.exhausted() or budget.by_stage.get("cheap", 0) >= cap):
            # out of budget (or of the cheap stage's share): the unscreened rest counts as hit
            # here (nothing is claimed; the search and the bound get the rest of the budget)
            for i in live.tolist():
                first[i] = t0
            break
        t1 = min(end, t0 + CHUNK)
        span = paths[live, t0:t1].astype(np.int64)
        cx = np.empty(span.shape, dtype=np.int64)
        cy = np.empty(span.shape, dtype=np.int64)
        lx, ly = x[live], y[live]
        for j in range(t1 - t0):
            lx = np.minimum(np.maximum(lx + moves.step_x[span[:, j]], -moves.half_width), moves.half_width)
            ly = np.minimum(np.maximum(ly + moves.step_y[span[:, j]], -moves.half_height), moves.half_height)
            cx[:, j], cy[:, j] = lx, ly
        x[live], y[live] = lx, ly
        tick, idx = field_.alive_pairs(t0, t1)
        if tick.size == 0:
            continue
        bx, by = field_.positions_at(tick, idx)
        rel = tick - t0
        if budget is not None:
            budget.spend("cheap", -(-live.size * tick.size // PAIRS_PER_UNIT))
        dx, dy = cx[:, rel] - bx, cy[:, rel] - by
        hit = (dx * dx + dy * dy) <= hit_r2
        any_hit = hit.any(axis=1)
        for row in np.flatnonzero(any_hit).tolist():
            first[int(live[row])] = int(tick[hit[row]].min())
        live = live[~any_hit]
    return first


def cheap_witnesses(program: dict[str, Any], field_: BulletField, moves: MoveTable, end: int, seed: int,
                    hit_r2: int, budget: Budget | None, replay: Any) -> CheapResult:
    """Screen the cheap candidates, replay the survivors (in order) until one is hit-free.

    ``replay(path)`` runs the path through the reference simulator and returns its telemetry
    (``player_hits``, ``status``, ``hit_ticks``); only a hit-free, completed replay counts.
    """
    candidates = walk_candidates(moves, end) + bot_candidates(program, moves, seed, end)
    if budget is not None:
        budget.spend("cheap", len(program["bot"]["skills"]) * end * REPLAY_TICK_UNITS)
    first = screen(program, field_, moves, candidates, end, hit_r2, budget)
    hits = {c.label: f for c, f in zip(candidates, first)}
    replays = 0
    for c, f in zip(candidates, first):
        if f is not None or replays >= MAX_REPLAYS:
            continue
        replays += 1
        if budget is not None:
            budget.spend("cheap", end * REPLAY_TICK_UNITS)
        tel = replay(c.path)
        if tel["player_hits"] == 0 and tel["status"] == "completed":
            return CheapResult(c, [], None, len(candidates), replays, hits)
    # the seed: the candidate hit last (bots first on ties: they dodge as they go)
    hit_at = [end if f is None else f for f in first]  # never hit: at the end
    order = sorted(range(len(candidates)), key=lambda i: (-hit_at[i],
                                                          0 if candidates[i].label.startswith("bot") else 1, i))
    seed_path: list[int] = []
    seed_label = None
    if order:
        best = candidates[order[0]]
        tel = replay(best.path)  # the first hit with every bullet (aimed ones too)
        replays += 1
        if budget is not None:
            budget.spend("cheap", end * REPLAY_TICK_UNITS)
        first_hit = tel["hit_ticks"][0] if tel["hit_ticks"] else end
        cut = max(0, first_hit - SEED_MARGIN)
        if cut > 0:
            seed_path, seed_label = best.path[:cut], best.label
    return CheapResult(None, seed_path, seed_label, len(candidates), replays, hits)
