"""Design targets stated in a request (gcv.agents.offline_requirement.handlers.targets)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gcv.agents.offline_requirement import decide
from gcv.agents.offline_requirement.handlers import targets
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH
from tests.support.readerutil import read_clause as read

BASE_CONFIG = load_config(BASELINE_PATH)



def test_constraints() -> None:
    left, r, clause = read(targets.read, "never more than 300 bullets alive")
    assert r.constraints == {"max_alive_bullets": Fraction(300)} and clause.signals == ["constraint:max_alive_bullets"]
    assert left.strip() == ""  # the 300 never becomes bullets per wave
    assert read(targets.read, "at most 2 hits")[1].constraints == {"max_player_hits": Fraction(2)}


def test_target_statements() -> None:
    _, r, _ = read(targets.read_statements, "raise the low FPS target to 60")
    assert r.constraints == {"min_low_fps": Fraction(60)}


def test_loosening_past_the_limit_is_blocked() -> None:
    _, r, _ = read(targets.read_statements, "raise the alive bullet limit to 1000")
    assert r.constraints == {} and r.blocks and "max_alive_bullets" in r.blocks[0].field


@pytest.mark.parametrize("text, name, value", [
    ("lower the on-screen bullet cap by 20", "max_alive_bullets", 330),
    ("bump the fps target by 3", "min_low_fps", 58),
    ("tighten the hit budget by 2", "max_player_hits", 1),
    ("帧率目标再提高4", "min_low_fps", 59),
])
def test_a_target_moved_by_an_amount_is_the_baseline_target_plus_or_minus_it(text: str, name: str,
                                                                            value: float) -> None:
    d = decide(text, BASE_CONFIG)
    assert d.decision in ("accepted", "no_change") and d.goal is not None, (text, d.questions)
    assert getattr(d.goal.constraints, name) == value


def test_loosening_a_target_by_an_amount_past_the_limit_is_blocked() -> None:
    d = decide("loosen the hit allowance by 2", BASE_CONFIG)
    assert d.decision == "blocked" and any("limit" in i.message for i in d.issues)
