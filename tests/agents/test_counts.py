"""Counts added or taken away (gcv.agents.offline_requirement.handlers.counts)."""

from __future__ import annotations

import pytest

from gcv.agents.offline_requirement import decide
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import counts
from tests.support.readerutil import edits, read_segment as read

BASE = load_config(BASELINE_PATH)



def test_counts() -> None:
    left, r = read(counts.read, "5 more bullets")
    assert edits(r) == [("bullets_per_wave", "add", Fraction(5))] and left.strip() == ""
    assert edits(read(counts.read, "take 3 bullets off")[1]) == [("bullets_per_wave", "add", Fraction(-3))]
    assert edits(read(counts.read, "+200ms interval")[1]) == [("wave_interval_ms", "add", Fraction(200))]


def test_a_plain_value_is_not_a_count() -> None:
    left, r = read(counts.read, "speed 4.5")
    assert r.edits == [] and left == "speed 4.5"


@pytest.mark.parametrize("text, phase, field, value", [
    ("phase 2's gap between waves 150 ms shorter", "phase_2", "wave_interval_ms", 550),
    ("the petal bullets live 1 s longer", "phase_3", "bullet_lifetime_seconds", 6),
    ("phase 1: 300 ms longer between waves", "phase_1", "wave_interval_ms", 1500),
])
def test_a_difference_with_its_unit_before_a_comparative_is_an_amount(text: str, phase: str, field: str,
                                                                     value: float) -> None:
    d = decide(text, BASE)
    assert d.decision == "accepted" and d.candidate is not None, (text, d.questions)
    assert getattr(d.candidate.phase(phase).pattern, field) == value
