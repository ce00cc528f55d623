"""Counts added or taken away (gcv.agents.offline_requirement.handlers.counts)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import counts
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


def test_counts() -> None:
    left, r = read(counts.read, "5 more bullets")
    assert edits(r) == [("bullets_per_wave", "add", Fraction(5))] and left.strip() == ""
    assert edits(read(counts.read, "take 3 bullets off")[1]) == [("bullets_per_wave", "add", Fraction(-3))]
    assert edits(read(counts.read, "+200ms interval")[1]) == [("wave_interval_ms", "add", Fraction(200))]


def test_a_plain_value_is_not_a_count() -> None:
    left, r = read(counts.read, "speed 4.5")
    assert r.edits == [] and left == "speed 4.5"
