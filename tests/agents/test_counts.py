"""Counts added or taken away (gcv.agents.offline_requirement.handlers.counts)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import counts
from tests.support.readerutil import edits, read_segment as read



def test_counts() -> None:
    left, r = read(counts.read, "5 more bullets")
    assert edits(r) == [("bullets_per_wave", "add", Fraction(5))] and left.strip() == ""
    assert edits(read(counts.read, "take 3 bullets off")[1]) == [("bullets_per_wave", "add", Fraction(-3))]
    assert edits(read(counts.read, "+200ms interval")[1]) == [("wave_interval_ms", "add", Fraction(200))]


def test_a_plain_value_is_not_a_count() -> None:
    left, r = read(counts.read, "speed 4.5")
    assert r.edits == [] and left == "speed 4.5"
