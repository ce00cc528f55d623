"""Rotation words (gcv.agents.offline_requirement.handlers.rotation)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import rotation
from tests.support.readerutil import read_clause as read



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
