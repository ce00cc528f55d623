"""Percentages (gcv.agents.offline_requirement.handlers.percent)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import percent
from tests.support.readerutil import edits, read_segment as read



def test_percent_changes() -> None:
    assert edits(read(percent.read, "bullets 20% slower")[1]) == [("bullet_speed", "scale", Fraction(4, 5))]
    assert edits(read(percent.read, "speed down 20%")[1]) == [("bullet_speed", "scale", Fraction(4, 5))]
    assert edits(read(percent.read, "速度提高 30%")[1]) == [("bullet_speed", "scale", Fraction(13, 10))]


def test_down_to_a_share() -> None:
    assert edits(read(percent.read, "降到 80% 的速度")[1]) == [("bullet_speed", "scale", Fraction(4, 5))]


def test_a_percentage_without_a_field_waits() -> None:
    _, r = read(percent.read, "20% more")
    assert r.edits == [] and [(p.kind, p.operation, p.value) for p in r.pending] == [("field", "scale", Fraction(6, 5))]
