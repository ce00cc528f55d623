"""The offline reader's phrase tables (gcv.agents.offline_requirement.phrases): the steps of the
words without numbers, and the tables matching what they say they match."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from gcv.agents.offline_requirement import phrases


def test_the_qualitative_steps() -> None:
    assert (phrases.QUALITATIVE_UP, phrases.QUALITATIVE_DOWN) == (Fraction(6, 5), Fraction(4, 5))
    assert phrases.FIRE_RATE_UP < 1 < phrases.FIRE_RATE_DOWN  # firing more often is a shorter interval


@pytest.mark.parametrize("table,text,matches", [
    ("PRESSURE_UP", "make it harder", True), ("PRESSURE_UP", "make it easier", False),
    ("PRESSURE_DOWN", "make it easier", True), ("PRESSURE_DOWN", "make it denser", False),
    ("UP_WORDS", "faster bullets", True), ("DOWN_WORDS", "slower bullets", True), ("DOWN_WORDS", "faster", False),
    ("RATE_WORDS", "fire rate", True), ("UNKNOWN_PATTERNS", "add homing missiles", True),
    ("UNKNOWN_PATTERNS", "a spiral", False),
])
def test_tables_match_what_they_name(table: str, text: str, matches: bool) -> None:
    assert bool(re.search(getattr(phrases, table), text)) is matches


def test_numbers_are_whole_tokens() -> None:
    assert [m.group() for m in re.finditer(phrases.NUM, "9 bullets every 0.5 s, -3 and +2")] == ["9", "0.5", "-3",
                                                                                                  "+2"]
    assert re.fullmatch(phrases.NUM, "1.") is None


def test_every_editable_field_has_words() -> None:
    from gcv.contract.goal import EDITABLE_FIELDS

    assert set(EDITABLE_FIELDS) <= set(phrases.FIELD_WORDS)
    assert re.search(phrases.FIELD_WORDS["bullet_speed"], "the bullet speed")
