"""The offline reader's parse state (gcv.agents.offline_requirement.state): the Reading, its
questions, and the helpers every handler shares."""

from __future__ import annotations

import re
from fractions import Fraction

from gcv.agents.offline_requirement.state import (MAX_QUESTIONS, Clause, Context, Reading, consume, field_in, num,
                                                  phase_summary, sub_all)
from tests.support.evalutil import base


def test_a_reading_has_a_change_only_when_something_moves() -> None:
    r = Reading(text="x")
    assert not r.has_change
    r.pressure = "increase"
    assert r.has_change
    assert Reading(text="x", constraints={"max_alive_bullets": Fraction(300)}).has_change


def test_questions_are_asked_once_and_at_most_max_questions() -> None:
    r = Reading(text="x")
    for i in range(MAX_QUESTIONS + 3):
        r.ask(f"question {i}?")
        r.ask(f"question {i}?")
    assert len(r.questions) == MAX_QUESTIONS and r.questions[0] == "question 0?"
    r.note("a")
    r.note("a")
    assert r.understood == ["a"]


def test_edits_record_their_note_and_dropping_one_removes_it() -> None:
    ctx, r, clause = Context(base()), Reading(text="x"), Clause()
    ctx.edit(r, clause, "bullet_speed", "scale", Fraction(4, 5), " 20%   slower ")
    (edit,) = r.edits
    assert edit.note == "edit: bullet_speed x 0.8 ('20% slower')" and r.understood == [edit.note]
    assert clause.signals == ["edit:bullet_speed:scale:4/5"]
    r.drop_edit(edit)
    assert r.edits == [] and r.understood == []


def test_phases_outside_the_fight_are_asked_about() -> None:
    ctx, r, clause = Context(base()), Reading(text="x"), Clause()
    ctx.add_phase(2, r, clause)
    ctx.add_phase(2, r, clause)
    ctx.add_phase(4, r, clause)
    assert r.phase_positions == [2] and clause.phases == [2] and r.bad_phase and ctx.count == 3
    assert "there is no phase 4" in r.questions[0]


def test_helpers() -> None:
    assert num("2.5") == Fraction(5, 2) and num("-3") == -3
    assert consume("abc def", re.search("def", "abc def")) == "abc    "  # type: ignore[arg-type]
    seen: list[str] = []
    assert sub_all(r"\bfoo\b", "foo bar foo", lambda m: seen.append(m.group())) == "    bar    "
    assert seen == ["foo", "foo"]
    assert field_in("the bullet speed") == "bullet_speed" and field_in("nothing here") is None
    assert phase_summary(base()) == ("phase_1 (ring, 'Opening ring'), phase_2 (spiral, 'Turning spiral'), "
                                     "phase_3 (petal, 'Falling petals')")
