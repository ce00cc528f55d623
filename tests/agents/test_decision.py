"""The offline decision (gcv.agents.offline_requirement.decision): accepted with a goal and the
calculator's candidate, or a question, a block, out of scope, no change. The table of requests
is tests/agents/test_offline_requirement.py."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.goal_applier import apply_goal
from gcv.agents.offline_requirement.decision import MAX_REQUEST_CHARS, decide, pending_question
from gcv.agents.offline_requirement.state import Pending
from tests.support.evalutil import base


def test_an_accepted_request_has_its_goal_and_the_calculators_candidate() -> None:
    d = decide("make phase 2 bullets 20% slower", base())
    assert d.decision == "accepted" and d.goal is not None
    assert d.goal.target_phase_ids == ["phase_2"] and d.goal.source_text == "make phase 2 bullets 20% slower"
    assert [(e.field, e.operation, e.value) for e in d.goal.edits] == [("bullet_speed", "scale", 0.8)]
    assert d.candidate == apply_goal(base(), d.goal) and d.candidate.phases[1].pattern.bullet_speed == 2.88
    assert d.rationale.startswith("understood: edit: bullet_speed x 0.8 ('20% slower') on phase_2")


def test_the_other_decisions() -> None:
    vague = decide("make it better", base())
    assert vague.decision == "needs_clarification" and vague.questions[0].startswith("Which phase should change?")
    assert decide("change the music", base()).decision == "out_of_scope"
    assert decide("keep everything as is", base()).decision == "no_change"
    blocked = decide("make the boss health 9000", base())
    assert blocked.decision == "blocked" and [i.field for i in blocked.issues] == ["$.boss.max_health"]


def test_a_request_too_long_to_read() -> None:
    d = decide("x" * (MAX_REQUEST_CHARS + 1), base())
    assert d.decision == "needs_clarification"
    assert d.questions == [f"The request is {MAX_REQUEST_CHARS + 1} characters long; GCV reads at most "
                           f"{MAX_REQUEST_CHARS}. Please state the change in a few sentences."]


def test_answers_complete_the_request() -> None:
    asked = decide("phase 2 15 to 20 bullets", base())
    assert asked.decision == "needs_clarification"
    # the question says what is understood first, then asks only what is missing
    assert asked.questions == ["Understood: the change is on phase_2. " + pending_question(
        Pending("range", "15 to 20 bullets", options=(Fraction(15), Fraction(20)), unit="bullets"))]
    answered = decide("phase 2 15 to 20 bullets", base(), follow_ups=["20"])
    assert answered.decision == "accepted" and answered.goal is not None
    assert [(e.field, e.value) for e in answered.goal.edits] == [("bullets_per_wave", 20.0)]


def test_pending_questions() -> None:
    question = pending_question(Pending("range", "15 to 20 bullets", options=(Fraction(15), Fraction(20)),
                                        unit="bullets"))
    assert question == "'15 to 20 bullets' gives two values (15 and 20); which one should GCV verify?"


def test_a_number_against_more_or_less_than_now_is_asked_about() -> None:
    from gcv.agents.offline_requirement import decide
    from gcv.contract.loading import load_config
    from tests.conftest import BASELINE_PATH

    base = load_config(BASELINE_PATH)  # phase 3 fires 8 bullets a wave
    d = decide("phase 3: 6 bullets a wave, more than now", base)
    assert d.decision == "needs_clarification" and "which value do you want" in d.questions[-1]
    zh = decide("第三阶段每波6颗子弹，比原来多", base)
    assert zh.decision == "needs_clarification" and "比现在多" in zh.questions[-1]
    assert decide("phase 3: 11 bullets a wave, more than now", base).decision == "accepted"  # they agree
    assert decide("phase 3: 6 bullets a wave, fewer than now", base).decision == "accepted"
