"""Pattern names and switches (gcv.agents.offline_requirement.handlers.patterns)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import patterns
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

CTX = Context(base())  # the committed baseline: phase_1 ring, phase_2 spiral, phase_3 petal


def read(handler, text: str):  # type: ignore[no-untyped-def]
    """(the text left for later handlers, the reading, the clause) after ``handler`` read ``text``."""
    r, clause = Reading(text=text), Clause()
    return handler(CTX, normalize(text), r, clause), r, clause


def test_the_pattern_asked_for() -> None:
    left, r, clause = read(patterns.read, "make phase 1 an aimed fan")
    assert r.pattern_type == "aimed_fan" and clause.signals == ["pattern:aimed_fan"] and "fan" not in left
    assert read(patterns.read, "把第二阶段改成花瓣")[1].pattern_type == "petal"
    assert read(patterns.read, "make phase 2 faster")[1].pattern_type is None
