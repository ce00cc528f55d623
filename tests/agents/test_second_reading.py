"""The second reading (gcv.agents.second_reading): the words read afresh and each thing asked for
checked on the final candidate. The loop's use of it is tests/workflow/test_second_reading.py."""

from __future__ import annotations

from gcv.agents.offline_requirement import decide
from gcv.agents.second_reading import READER, second_reading
from tests.support.evalutil import base, variant

SLOWER = "make phase 2 bullets 20% slower"


def test_the_asked_value_holds_on_the_candidate_the_request_became() -> None:
    reading = second_reading(SLOWER, [], base(), decide(SLOWER, base()).candidate)  # type: ignore[arg-type]
    assert reading.reader == READER and reading.verdict == "holds"
    assert [(i.asked, i.rule, i.expected, i.found, i.holds) for i in reading.items] == [
        ("Phase 2 · bullet speed: 2.88 units/s", "equals", "2.88 units/s", "2.88 units/s", True)]


def test_a_candidate_that_does_not_do_it_misses() -> None:
    reading = second_reading(SLOWER, [], base(), base())
    assert reading.verdict == "misses" and [(i.found, i.holds) for i in reading.items] == [("3.6 units/s", False)]


def test_a_word_without_a_number_is_a_direction() -> None:
    reading = second_reading("make phase 2 bullets slower", [], base(), variant(base(), "phase_2", bullet_speed=3.5))
    (item,) = reading.items
    assert (item.rule, item.expected, item.holds) == ("direction", "below the baseline's 3.6 units/s", True)
    faster = second_reading("make phase 2 bullets slower", [], base(), variant(base(), "phase_2", bullet_speed=3.7))
    assert faster.verdict == "misses"


def test_targets_are_read_too() -> None:
    text = "make phase 2 denser, never more than 300 bullets alive"
    reading = second_reading(text, [], base(), decide(text, base()).candidate)  # type: ignore[arg-type]
    assert ("Targets · max alive bullets: at most 300", "at_most") in [(i.asked, i.rule) for i in reading.items]
    assert reading.verdict == "holds"


def test_words_the_reader_does_not_accept_are_unread() -> None:
    reading = second_reading("make it better", [], base(), base())
    assert reading.verdict == "unread" and reading.items == []
    assert reading.note == "the offline reader does not accept the words on its own (needs_clarification)"
