"""Layer 2, reference (gcv.validation.reference_layer): the candidate does what the goal asks,
on phases that exist; a malformed goal is reported, not raised."""

from __future__ import annotations

from gcv.contract.goal import Goal
from gcv.validation.reference_layer import SUPPORTED_PATTERN_TYPES, check_reference, parse_goal
from tests.support.evalutil import base, variant


def _other_type(current: str) -> str:
    return next(t for t in SUPPORTED_PATTERN_TYPES if t != current and t != "scatter")


def test_the_asked_pattern_type_must_be_the_candidates() -> None:
    b = base()
    current = b.phases[1].pattern.type
    wanted = _other_type(current)
    goal = Goal(target_phase_ids=["phase_2"], pattern_type=wanted)
    result = check_reference(b, b, goal)
    assert result.status == "failed" and result.rule_ids() == ["reference.pattern_type_mismatch"]
    assert check_reference(b, variant(b, "phase_2", type=wanted), goal).status == "passed"


def test_target_phases_must_exist() -> None:
    result = check_reference(base(), base(), {"target_phase_ids": ["phase_9"]})
    assert result.rule_ids() == ["reference.phase_not_in_baseline", "reference.phase_not_in_candidate"]
    assert result.errors[0].path == "goal:$.target_phase_ids[0]"
    assert result.errors[0].allowed == ["phase_1", "phase_2", "phase_3"]
    assert check_reference(base(), base(), {"target_phase_ids": ["phase_1", "phase_1"]}).rule_ids() == [
        "reference.duplicate_target_phase"]


def test_parse_goal_reports_a_malformed_goal() -> None:
    goal, issues = parse_goal({"target_phase_ids": []})
    assert goal is None and [i.rule_id for i in issues] == ["reference.goal_invalid"]
    assert issues[0].path == "goal:$.target_phase_ids"
    parsed, none = parse_goal({"target_phase_ids": ["phase_1"]})
    assert isinstance(parsed, Goal) and none == []
    assert check_reference(base(), base(), {"target_phase_ids": []}).rule_ids() == ["reference.goal_invalid"]
