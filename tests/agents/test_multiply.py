"""Multipliers (gcv.agents.offline_requirement.handlers.multiply)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import multiply
from tests.support.readerutil import edits, read_segment as read



def test_words() -> None:
    assert edits(read(multiply.read_words, "halve the wave interval")[1]) == [("wave_interval_ms", "scale", Fraction(1, 2))]
    assert edits(read(multiply.read_words, "子弹翻倍")[1]) == [("bullets_per_wave", "scale", Fraction(2))]


def test_times() -> None:
    left, r = read(multiply.read_times, "3 times the bullets")
    assert edits(r) == [("bullets_per_wave", "scale", Fraction(3))] and "3" not in left
    assert edits(read(multiply.read_times, "bullets x2")[1]) == [("bullets_per_wave", "scale", Fraction(2))]
    assert read(multiply.read_times, "speed 4.5")[1].edits == []
