"""The offline reader (gcv.agents.offline_requirement.reader): clauses through the handlers in
order, the target phases resolved, and answers filled in place."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.reader import RequestReader
from tests.support.evalutil import base


def test_a_request_read_whole() -> None:
    r = RequestReader(base()).read("make phase 2 bullets 20% slower and never more than 300 bullets alive")
    assert r.phase_ids == ["phase_2"]
    assert [(e.field, e.operation, e.value) for e in r.edits] == [("bullet_speed", "scale", Fraction(4, 5))]
    assert r.constraints == {"max_alive_bullets": Fraction(300)}  # the 300 is not bullets per wave
    assert r.questions == [] and r.has_change


def test_a_vague_request_has_no_change() -> None:
    r = RequestReader(base()).read("make it better")
    assert not r.has_change and r.edits == []


def test_an_answer_fills_what_was_pending() -> None:
    reader = RequestReader(base())
    r = reader.read("phase 2 15 to 20 bullets")
    assert [p.kind for p in r.pending] == ["range"] and r.edits == []
    reader.answer(r, "20")
    assert [(e.field, e.value) for e in r.edits] == [("bullets_per_wave", Fraction(20))] and r.pending == []


def test_reading_is_deterministic() -> None:
    a = RequestReader(base()).read("第二阶段更密集，子弹速度降低20%")
    b = RequestReader(base()).read("第二阶段更密集，子弹速度降低20%")
    assert a == b and a.pressure == "increase" and a.phase_ids == ["phase_2"]
