"""Player specifications (gcv.sim.players): scripted, bot:SKILL and inputs:FILE, and the
run-length inputs trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from gcv.contract.canonical import content_hash
from gcv.sim.players import (MAX_TRACE_TICKS, InputsTrace, PlayerSpecError, expand_trace, load_trace, parse_player,
                             player_label)

TRACE = {"format": "gcv.inputs/1", "tick_hz": 60, "runs": [[2, 1, 0, 0], [1, 0, -1, 1]], "source": "test"}


def test_scripted_and_bots() -> None:
    assert parse_player("scripted") == {"kind": "scripted"}
    assert parse_player("bot:expert") == {"kind": "bot", "skill": "expert"}
    with pytest.raises(PlayerSpecError, match="unknown bot skill 'pro'; allowed: novice, average, expert"):
        parse_player("bot:pro")
    with pytest.raises(PlayerSpecError, match="unknown player 'human'"):
        parse_player("human")


def test_an_inputs_file_relative_to_a_base_dir(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps(TRACE))
    player = parse_player("inputs:t.json", base_dir=tmp_path)
    assert player["kind"] == "inputs" and player["trace"]["runs"] == TRACE["runs"]
    assert player_label(player) == "inputs:" + content_hash(player["trace"])[:12]
    assert player_label({"kind": "bot", "skill": "novice"}) == "bot:novice"
    assert player_label({"kind": "scripted"}) == "scripted"


def test_expand_trace_is_one_input_per_tick() -> None:
    assert expand_trace(TRACE) == [(1, 0, 0), (1, 0, 0), (0, -1, 1)]


@pytest.mark.parametrize("runs,message", [
    ([[1, 2, 0, 0]], "direction"), ([[0, 0, 0, 0]], "ticks"), ([[1, 0, 0, 2]], "focus"), ([[1, 0, 0]], "got 3 items"),
    ([[MAX_TRACE_TICKS, 0, 0, 0], [1, 0, 0, 0]], "at most"),
])
def test_a_malformed_trace_is_refused(runs: list[list[int]], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        InputsTrace.model_validate({**TRACE, "runs": runs})


def test_load_trace_says_which_file(tmp_path: Path) -> None:
    with pytest.raises(PlayerSpecError, match="cannot read inputs trace .*file not found"):
        load_trace(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**TRACE, "tick_hz": 30}))
    with pytest.raises(PlayerSpecError, match="is invalid"):
        load_trace(bad)
