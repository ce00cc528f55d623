"""Multipliers (gcv.agents.offline_requirement.handlers.multiply)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import multiply
from gcv.agents.offline_requirement.handlers.segment import Segment
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

CTX = Context(base())


def read(handler, text: str):  # type: ignore[no-untyped-def]
    """(the segment's text after ``handler``, the reading): a numeric handler reads one segment."""
    r = Reading(text=text)
    return handler(Segment(CTX, normalize(text), r, Clause())), r


def edits(r: Reading) -> list[tuple[str, str, Fraction]]:
    return [(e.field, e.operation, e.value) for e in r.edits]


def test_words() -> None:
    assert edits(read(multiply.read_words, "halve the wave interval")[1]) == [("wave_interval_ms", "scale", Fraction(1, 2))]
    assert edits(read(multiply.read_words, "子弹翻倍")[1]) == [("bullets_per_wave", "scale", Fraction(2))]


def test_times() -> None:
    left, r = read(multiply.read_times, "3 times the bullets")
    assert edits(r) == [("bullets_per_wave", "scale", Fraction(3))] and "3" not in left
    assert edits(read(multiply.read_times, "bullets x2")[1]) == [("bullets_per_wave", "scale", Fraction(2))]
    assert read(multiply.read_times, "speed 4.5")[1].edits == []
