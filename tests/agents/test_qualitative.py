"""Words without numbers (gcv.agents.offline_requirement.handlers.qualitative)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import qualitative
from tests.support.readerutil import read_clause as read



def test_a_field_word_with_a_direction_is_a_default_step() -> None:
    left, r, clause = read(qualitative.read, "faster bullets in phase 1")
    assert [(e.field, e.operation, e.value, e.qualitative) for e in r.edits] == [
        ("bullet_speed", "scale", Fraction(6, 5), True)]
    assert clause.signals == ["edit:bullet_speed:scale:6/5"] and left.strip() == "in phase 1"
    slower = read(qualitative.read, "slower bullets")[1].edits
    assert slower and slower[0].field == "bullet_speed" and slower[0].value < 1


def test_nothing_to_read() -> None:
    assert read(qualitative.read, "phase 1")[1].edits == []
