"""Numbers, segment by segment (gcv.agents.offline_requirement.handlers.numeric)."""

from __future__ import annotations

from fractions import Fraction

from gcv.agents.offline_requirement.handlers import numeric
from tests.support.readerutil import read_clause as read



def _edits(r: Reading) -> list[tuple[str, str, Fraction]]:
    return [(e.field, e.operation, e.value) for e in r.edits]


def test_each_segment_of_a_clause_is_read() -> None:
    _, r, clause = read(numeric.read, "every 0.5 s 9 bullets")
    assert _edits(r) == [("wave_interval_ms", "set", Fraction(500)), ("bullets_per_wave", "set", Fraction(9))]
    assert clause.signals == ["edit:wave_interval_ms:set:500", "edit:bullets_per_wave:set:9"]


def test_the_forms_of_numbers() -> None:
    assert _edits(read(numeric.read, "bullets 20% slower")[1]) == [("bullet_speed", "scale", Fraction(4, 5))]
    assert _edits(read(numeric.read, "double the bullets")[1]) == [("bullets_per_wave", "scale", Fraction(2))]
    assert _edits(read(numeric.read, "5 more bullets")[1]) == [("bullets_per_wave", "add", Fraction(5))]
    assert _edits(read(numeric.read, "from 16 to 24 bullets")[1]) == [("bullets_per_wave", "set", Fraction(24))]


def test_a_range_waits_for_the_designer() -> None:
    _, r, _ = read(numeric.read, "15 to 20 bullets")
    assert r.edits == [] and [(p.kind, p.options) for p in r.pending] == [("range", (Fraction(15), Fraction(20)))]


def test_a_rate_is_asked_about_never_guessed() -> None:
    _, r, _ = read(numeric.read, "20 bullets per second")
    assert r.edits == [] and (r.questions or r.pending)


def test_a_turn_rate_per_second_is_asked_with_per_wave_choices_and_one_answer_settles_it() -> None:
    from gcv.agents.offline_requirement import decide
    from gcv.contract.loading import load_config
    from tests.conftest import BASELINE_PATH

    base = load_config(BASELINE_PATH)
    d = decide("the petal phase should turn 40 degrees each second", base)
    assert d.decision == "needs_clarification" and "not per second" in d.questions[-1]
    [ask] = [a for a in d.asks if "not per second" in a.text]
    assert [c.answer for c in ask.choices][2] == "phase 3 rotate 34 degrees per wave"  # 40 x 0.85 s
    answered = decide("the petal phase should turn 40 degrees each second", base, follow_ups=[ask.choices[2].answer])
    assert answered.decision == "accepted" and answered.candidate is not None, answered.questions
    assert answered.candidate.phase("phase_3").pattern.rotation_per_wave_deg == 34
    zh = decide("第二阶段每秒旋转20度", base)
    assert zh.decision == "needs_clarification" and "不按每秒" in zh.questions[-1]
    assert decide("phase 1 arc 90 degrees as an aimed fan", base).decision == "accepted"  # "as" is no second
