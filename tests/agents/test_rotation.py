"""Rotation words (gcv.agents.offline_requirement.handlers.rotation)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import rotation
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

CTX = Context(base())  # the committed baseline: phase_1 ring, phase_2 spiral, phase_3 petal


def read(handler, text: str):  # type: ignore[no-untyped-def]
    """(the text left for later handlers, the reading, the clause) after ``handler`` read ``text``."""
    r, clause = Reading(text=text), Clause()
    return handler(CTX, normalize(text), r, clause), r, clause


def test_bidirectional() -> None:
    left, r, clause = read(rotation.read_bidirectional, "make phase 2 a bidirectional spiral")
    assert r.bidirectional is True and clause.signals == ["bidirectional:True"] and "bidirectional" not in left
    assert read(rotation.read_bidirectional, "把第二阶段改成双向螺旋")[1].bidirectional is True
    assert read(rotation.read_bidirectional, "make phase 2 faster")[1].bidirectional is None


def test_directions() -> None:
    _, r, clause = read(rotation.read_direction, "rotate phase 2 clockwise")
    assert r.direction == -1 and clause.signals == ["direction:-1"]
    assert read(rotation.read_direction, "rotate phase 2 counter-clockwise")[1].direction == 1
    assert read(rotation.read_direction, "make phase 2 faster")[1].direction == 0
