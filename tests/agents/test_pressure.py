"""Pressure words (gcv.agents.offline_requirement.handlers.pressure)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import pressure
from tests.support.readerutil import read_clause as read



def test_more_and_less_pressure() -> None:
    left, r, clause = read(pressure.read, "make phase 2 denser")
    assert r.pressure == "increase" and clause.signals == ["pressure:increase"] and "denser" not in left
    assert read(pressure.read, "make it easier")[1].pressure == "decrease"
    assert read(pressure.read, "第三阶段更密集")[1].pressure == "increase"


def test_both_at_once_is_a_question() -> None:
    _, r, _ = read(pressure.read, "make it denser and easier")
    assert r.questions == ["The request asks for both more and less pressure; which one?"]
    assert r.asked[r.questions[0]].kind == "contradiction"


def test_no_pressure_word() -> None:
    _, r, clause = read(pressure.read, "phase 2 bullets 20% slower")
    assert r.pressure == "keep" and clause.signals == []
