"""The batch matrix: every (config, player, engine, seed) is one cell with a stable id.

A cell id is built from the cell's content, never from its position, so adding a seed or a
player to a spec leaves every existing id (and every finished row) valid for ``--resume``::

    <config hash, 12 hex>.<engine>.<player slug>.<seed>     e.g. fab726d3215d.python-sim.bot-average.17

Cell order (and so the order of table rows) is config, player, engine, seed, as written in
the spec; execution order may differ, the table never does.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from engine_runners.protocol import RUN_ID_PATTERN
from gcv.contract.canonical import content_hash

HASH_PREFIX = 12
_RUN_ID = re.compile(RUN_ID_PATTERN)


@dataclass(frozen=True)
class Cell:
    index: int
    cell_id: str
    config_hash: str
    config_label: str
    player: str           # the telemetry player label
    engine: str
    seed: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Matrix:
    cells: list[Cell]
    programs: dict[str, dict[str, Any]]        # config hash -> sim program
    players: dict[str, dict[str, Any]]         # player label -> run request player object

    def __len__(self) -> int:
        return len(self.cells)

    def by_id(self) -> dict[str, Cell]:
        return {c.cell_id: c for c in self.cells}

    def digest(self) -> str:
        """Identifies the set of cells (for the batch manifest)."""
        return content_hash([c.cell_id for c in self.cells])


def player_slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]", "-", label)


def cell_id(config_hash: str, engine: str, player: str, seed: int) -> str:
    ident = f"{config_hash[:HASH_PREFIX]}.{engine}.{player_slug(player)}.{seed}"
    if not _RUN_ID.match(ident):  # would need an engine name of 30+ characters
        raise ValueError(f"cell id {ident!r} does not fit the run id pattern {RUN_ID_PATTERN}")
    return ident


def expand(configs: Iterable[Any], players: Iterable[Any], engines: Iterable[str]) -> Matrix:
    """Configs (``config_hash``, ``label``, ``program``) x players (``label``, ``spec``, ``seeds``)
    x engines -> the matrix. Works on the resolved spec objects or any look-alikes."""
    configs, players, engines = list(configs), list(players), list(engines)
    cells: list[Cell] = []
    seen: set[str] = set()
    for config in configs:
        for player in players:
            for engine in engines:
                for seed in player.seeds:
                    ident = cell_id(config.config_hash, engine, player.label, seed)
                    if ident in seen:
                        raise ValueError(f"two cells share the id {ident}: the configs' hashes agree in "
                                         f"their first {HASH_PREFIX} hex digits or a seed repeats")
                    seen.add(ident)
                    cells.append(Cell(len(cells), ident, config.config_hash, config.label, player.label,
                                      engine, seed))
    return Matrix(cells, {c.config_hash: c.program for c in configs}, {p.label: p.spec for p in players})


def expand_batch(resolved: Any) -> Matrix:
    """The matrix of a :class:`gcv.batch.spec.ResolvedBatch`."""
    return expand(resolved.configs, resolved.players, resolved.spec.engines)
