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


def test_the_comparative_after_a_multiple_names_its_field_before_a_nearby_field_word() -> None:
    from gcv.agents.offline_requirement import decide
    from gcv.contract.loading import load_config
    from tests.conftest import BASELINE_PATH

    base = load_config(BASELINE_PATH)
    for text, field, value in (("the spiral's bullets 1.25x as quick", "bullet_speed", 4.5),
                               ("make the spiral bullets twice as fast", "bullet_speed", 7.2),
                               ("phase 2: bullets two times as often", "wave_interval_ms", 350)):
        d = decide(text, base)
        assert d.decision == "accepted" and d.candidate is not None, (text, d.questions)
        assert getattr(d.candidate.phase("phase_2").pattern, field) == value, text
        assert d.candidate.phase("phase_2").pattern.bullets_per_wave == base.phase("phase_2").pattern.bullets_per_wave
