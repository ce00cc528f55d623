"""Design targets stated in a request (gcv.agents.offline_requirement.handlers.targets)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import targets
from tests.support.readerutil import read_clause as read



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
