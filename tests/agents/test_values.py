"""Values to set (gcv.agents.offline_requirement.handlers.values)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import values
from tests.support.readerutil import edits, read_segment as read



def test_values() -> None:
    assert edits(read(values.read, "speed 4.5")[1]) == [("bullet_speed", "set", Fraction(9, 2))]
    assert edits(read(values.read, "lifetime 4 s")[1]) == [("bullet_lifetime_seconds", "set", Fraction(4))]
    assert edits(read(values.read, "rotate 25 degrees")[1]) == [("rotation_per_wave_deg", "set", Fraction(25))]
    assert edits(read(values.read, "every 0.5 s")[1]) == [("wave_interval_ms", "set", Fraction(500))]


def test_from_to_keeps_only_the_new_value() -> None:
    left, r = read(values.read_from_to, "from 16 to 24 bullets")
    assert left.strip() == "24 bullets" and r.edits == []


def test_an_old_value_is_context() -> None:
    left, _ = read(values.read_old_value, "every 1.5 s instead of 1.2")
    assert left.strip() == "every 1.5 s" and "1.2" not in left


def test_a_range_is_two_options() -> None:
    _, r = read(values.read_range, "15 to 20 bullets")
    (pending,) = r.pending
    assert (pending.kind, pending.options, pending.unit) == ("range", (Fraction(15), Fraction(20)), "bullets")
