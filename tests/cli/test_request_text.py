"""A request that begins with "-" (gcv.cli.commands.request_text): moved behind "--" before click
parses it, an option's value left where it is."""

from __future__ import annotations

import pytest

from gcv.cli.commands.request_text import request_args


@pytest.mark.parametrize("args,moved", [
    (["- phase 2 speed 4"], ["--", "- phase 2 speed 4"]),
    (["-20% bullet speed", "--yes"], ["--yes", "--", "-20% bullet speed"]),
    (["--engine", "python-sim", "-> faster"], ["--engine", "python-sim", "--", "-> faster"]),
])
def test_text_beginning_with_a_dash_goes_behind_the_separator(args: list[str], moved: list[str]) -> None:
    assert request_args(args) == moved


@pytest.mark.parametrize("args", [["--yes", "make it denser"], ["-y", "text"], ["--", "-20%"], ["-v"]])
def test_options_and_an_existing_separator_are_left_alone(args: list[str]) -> None:
    assert request_args(args) == args


def test_the_value_of_an_option_stays_its_value() -> None:
    assert request_args(["--seed", "-1", "denser"], frozenset({"--seed"})) == ["--seed", "-1", "denser"]
    assert request_args(["--seed", "-1", "-2 bullets"], frozenset({"--seed"})) == ["--seed", "-1", "--", "-2 bullets"]
