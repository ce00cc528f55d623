"""Batch API: many seeds and players of one program, same figures as one-by-one runs.

A batch compiles nothing and shares the program and its lookup tables across runs; with
``workers > 1`` it spreads runs over a process pool. Runs never share state (each
``Simulation.reset`` creates its own RNG), so the order of execution cannot change any
figure: ``run_batch(...)[i]`` equals the single run of ``runs[i]`` exactly.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Any, Iterable

from gcv.sim.engine import Simulation

_PROGRAM: dict[str, Any] | None = None


def _init(program: dict[str, Any]) -> None:
    global _PROGRAM
    _PROGRAM = program


def _run_chunk(chunk: list[tuple[int, int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    assert _PROGRAM is not None
    return _run_local(_PROGRAM, chunk)


def _run_local(program: dict[str, Any], chunk: Iterable[tuple[int, int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    sims: dict[str, Simulation] = {}
    out = []
    for index, seed, player in chunk:
        key = repr(sorted(player.items())) if player["kind"] != "inputs" else f"inputs:{index}"
        sim = sims.get(key)
        if sim is None:
            sim = sims[key] = Simulation(program, player)
        out.append((index, sim.run(seed=seed).telemetry))
    return out


def run_batch(program: dict[str, Any], runs: list[tuple[int, dict[str, Any]]], *,
              workers: int = 1) -> list[dict[str, Any]]:
    """``runs`` = [(seed, player), ...] -> telemetry list in the same order."""
    items = [(i, seed, player) for i, (seed, player) in enumerate(runs)]
    results: list[dict[str, Any] | None] = [None] * len(items)
    if workers <= 1 or len(items) < 2:
        pairs = _run_local(program, items)
    else:
        chunks = [items[w::workers] for w in range(workers)]
        with ProcessPoolExecutor(max_workers=workers, initializer=_init, initargs=(program,)) as pool:
            pairs = [pair for part in pool.map(_run_chunk, chunks) for pair in part]
    for index, telemetry in pairs:
        results[index] = telemetry
    return [r for r in results if r is not None]
