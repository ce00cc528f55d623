"""The batch matrix (gcv.batch.matrix): one cell per (config, player, engine, seed), in spec
order, each with an id built from its content."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gcv.batch.matrix import cell_id, expand, player_slug
from gcv.contract.canonical import content_hash

A, B = "a" * 64, "b" * 64


def _config(h: str, label: str) -> SimpleNamespace:
    return SimpleNamespace(config_hash=h, label=label, program={"p": label})


def _player(label: str, seeds: list[int]) -> SimpleNamespace:
    return SimpleNamespace(label=label, spec={"kind": label}, seeds=seeds)


def test_cell_ids() -> None:
    assert player_slug("bot:average") == "bot-average" and player_slug("inputs:abc/d e") == "inputs-abc-d-e"
    assert cell_id("fab726d3215de8da", "python-sim", "bot:average", 17) == "fab726d3215d.python-sim.bot-average.17"
    with pytest.raises(ValueError, match="does not fit the run id pattern"):
        cell_id(A, "e" * 80, "scripted", 1)


def test_expansion_order_is_config_player_engine_seed() -> None:
    matrix = expand([_config(A, "a"), _config(B, "b")], [_player("scripted", [0, 1]), _player("bot:novice", [5])],
                    ["python-sim", "unity"])
    assert len(matrix) == 2 * 3 * 2
    first = [(c.config_label, c.player, c.engine, c.seed) for c in matrix.cells[:6]]
    assert first == [("a", "scripted", "python-sim", 0), ("a", "scripted", "python-sim", 1),
                     ("a", "scripted", "unity", 0), ("a", "scripted", "unity", 1),
                     ("a", "bot:novice", "python-sim", 5), ("a", "bot:novice", "unity", 5)]
    assert [c.index for c in matrix.cells] == list(range(12))
    assert matrix.programs == {A: {"p": "a"}, B: {"p": "b"}} and matrix.players["bot:novice"] == {"kind": "bot:novice"}
    assert matrix.by_id()["aaaaaaaaaaaa.unity.scripted.1"].seed == 1
    assert matrix.digest() == content_hash([c.cell_id for c in matrix.cells])


def test_adding_a_seed_keeps_every_existing_id() -> None:
    small = expand([_config(A, "a")], [_player("scripted", [0, 1])], ["python-sim"])
    large = expand([_config(A, "a")], [_player("scripted", [0, 1, 2])], ["python-sim"])
    assert set(small.by_id()) < set(large.by_id()) and small.digest() != large.digest()


def test_two_cells_with_one_id_are_refused() -> None:
    with pytest.raises(ValueError, match="two cells share the id"):
        expand([_config(A, "a"), _config(A[:12] + "c" * 52, "b")], [_player("scripted", [0])], ["python-sim"])
    with pytest.raises(ValueError, match="a seed repeats"):
        expand([_config(A, "a")], [_player("scripted", [3, 3])], ["python-sim"])
