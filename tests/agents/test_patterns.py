"""Pattern names and switches (gcv.agents.offline_requirement.handlers.patterns)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import patterns
from tests.support.readerutil import read_clause as read



def test_the_pattern_asked_for() -> None:
    left, r, clause = read(patterns.read, "make phase 1 an aimed fan")
    assert r.pattern_type == "aimed_fan" and clause.signals == ["pattern:aimed_fan"] and "fan" not in left
    assert read(patterns.read, "把第二阶段改成花瓣")[1].pattern_type == "petal"
    assert read(patterns.read, "make phase 2 faster")[1].pattern_type is None
