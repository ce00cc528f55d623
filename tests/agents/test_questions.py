"""Questions of the offline reader (issue 27): kinds and choices, the request's language, never twice."""

from __future__ import annotations

import pytest

from gcv.agents.offline_requirement import decide
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH

BASE = load_config(BASELINE_PATH)
LOOP = "make phase 3 denser and keep player hits at 2 or fewer"


def test_the_loop_of_issue_27_is_read_at_once_as_a_change_and_a_target() -> None:
    d = decide(LOOP, BASE)
    assert d.decision == "accepted", d.questions
    assert d.goal is not None and d.goal.constraints.max_player_hits == 2
    assert d.goal.target_phase_ids == ["phase_3"] and d.goal.pressure == "increase"


@pytest.mark.parametrize("text", ["make phase 3 denser and 2", "phase 2 faster, 2", "第三阶段更密，2"])
def test_no_question_is_asked_twice_and_the_third_answer_meets_a_clear_stop(text: str) -> None:
    """An answer that settles nothing gets a different question, then a stop, never the same one."""
    seen: list[str] = []
    answers: list[str] = []
    for _ in range(4):
        d = decide(text, BASE, follow_ups=answers)
        assert d.decision == "needs_clarification"
        assert d.questions[0] not in seen, (answers, d.questions[0])
        seen.append(d.questions[0])
        answers.append("hmm")
    assert [a.kind for a in decide(text, BASE, follow_ups=["hmm"]).asks][:1] == ["restate"]
    assert "stop" in decide(text, BASE, follow_ups=["hmm", "hmm"]).questions[0].lower() or \
        "不再追问" in decide(text, BASE, follow_ups=["hmm", "hmm"]).questions[0]


def test_a_number_without_a_field_offers_choices_and_each_choice_is_understood() -> None:
    d = decide("make phase 3 denser and 2", BASE)
    ask = d.asks[0]
    assert ask.kind == "field" and ask.text == d.questions[0]
    answers = {c.answer for c in ask.choices}
    assert {"bullets per wave", "the player hit limit", "drop it"} <= answers
    for choice in ask.choices:  # one click moves the request on: accepted or blocked, never the same question
        after = decide("make phase 3 denser and 2", BASE, follow_ups=[choice.answer])
        assert after.decision in ("accepted", "blocked") or after.questions[0] != d.questions[0], choice
    hits = decide("make phase 3 denser and 2", BASE, follow_ups=["the player hit limit"])
    assert hits.decision == "accepted" and hits.goal is not None and hits.goal.constraints.max_player_hits == 2


def test_a_phase_question_offers_every_phase_and_all_phases() -> None:
    d = decide("make it denser", BASE)
    ask = d.asks[0]
    assert ask.kind == "phase"
    assert [c.answer for c in ask.choices] == ["phase 1", "phase 2", "phase 3", "all phases"]
    assert decide("make it denser", BASE, follow_ups=[ask.choices[1].answer]).decision == "accepted"


@pytest.mark.parametrize("text", ["子弹慢一点", "第一阶段改成 8", "更密一点", "第三阶段 9 到 11 发"])
def test_a_chinese_request_is_asked_in_chinese(text: str) -> None:
    d = decide(text, BASE)
    assert d.decision == "needs_clarification"
    for q in d.questions:
        assert "Which" not in q and "What" not in q and "Is '" not in q, q
        assert any("\u4e00" <= ch <= "\u9fff" for ch in q), q
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in c.label) or c.label[:1].isdigit()
               for a in d.asks for c in a.choices if a.kind == "phase")


def test_an_english_request_is_asked_in_english() -> None:
    d = decide("slow the bullets down", BASE)
    assert d.questions[0].startswith("Understood:") and "Which phase" in d.questions[0]
