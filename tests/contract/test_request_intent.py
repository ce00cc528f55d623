"""gcv/contract/request_intent.py: each thing a goal asks for, typed (issue 26 item 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.agents.offline_requirement import decide
from gcv.contract.goal import DesignerConstraints, Goal, ParameterEdit
from gcv.contract.models import BulletHellConfig
from gcv.contract.request_intent import RequestIntent, request_intent

BASELINE = BulletHellConfig.model_validate(
    json.loads((Path(__file__).resolve().parents[2] / "artifacts" / "baselines" / "shrine_trial.json").read_text()))


def _kinds(intent: RequestIntent) -> list[tuple[str, str, str, bool]]:
    return [(e.kind, e.field, e.direction, e.exact) for e in intent.edits]


def test_each_edit_has_its_direction_size_and_exactness() -> None:
    goal = Goal(target_phase_ids=["phase_2"], edits=[
        ParameterEdit(field="bullet_speed", operation="scale", value=0.8),
        ParameterEdit(field="bullets_per_wave", operation="add", value=3),
        ParameterEdit(field="bullet_lifetime_seconds", operation="set", value=4.5),
        ParameterEdit(field="spread_angle_deg", operation="scale", value=1.2, qualitative=True)])
    intent = request_intent(goal)
    assert _kinds(intent) == [("edit", "bullet_speed", "down", True), ("edit", "bullets_per_wave", "up", True),
                              ("edit", "bullet_lifetime_seconds", "set", True),
                              ("edit", "spread_angle_deg", "up", False)]
    assert [e.size for e in intent.edits][:3] == ["x0.8 (20% less)", "+3", "4.5"]
    assert "default step" in intent.edits[3].size
    assert all(e.phases == ["phase_2"] for e in intent.edits)
    assert all("scope" in e.held_by for e in intent.edits)
    assert intent.lines()[2] == "phase_2 · bullet_lifetime_seconds: set to 4.5 (exact)"


def test_pressure_without_a_number_is_held_to_the_documented_minimum_share() -> None:
    intent = request_intent(Goal(target_phase_ids=["phase_3"], pressure="increase"))
    [e] = intent.edits
    assert (e.kind, e.field, e.direction, e.exact) == ("pressure", "spawn_rate", "up", False)
    assert e.size == "at least +10% of the baseline's spawn rate"
    assert e.held_by[:2] == ["intent.spawn_rate", "intent.mean_alive"]
    down = request_intent(Goal(target_phase_ids=["phase_3"], pressure="decrease")).edits[0]
    assert (down.direction, down.size) == ("down", "at least -10% of the baseline's spawn rate")


def test_pressure_with_a_numbered_density_edit_is_exact_and_a_qualitative_one_is_not() -> None:
    numbered = Goal(target_phase_ids=["phase_1"], pressure="increase",
                    edits=[ParameterEdit(field="bullets_per_wave", operation="set", value=20)])
    assert request_intent(numbered).edits[-1].exact is True
    worded = Goal(target_phase_ids=["phase_1"], pressure="increase",
                  edits=[ParameterEdit(field="bullets_per_wave", operation="scale", value=1.5, qualitative=True)])
    assert request_intent(worded).edits[-1].exact is False


def test_pattern_rotation_and_targets_are_listed_after_the_edits() -> None:
    goal = Goal(target_phase_ids=["phase_2"], pattern_type="spiral", bidirectional=True, reverse_rotation=True,
                constraints=DesignerConstraints(max_player_hits=2, max_alive_bullets=300, min_low_fps=55,
                                                require_dodgeable=True))
    assert _kinds(request_intent(goal)) == [
        ("pattern", "type", "set", True), ("pattern", "bidirectional", "set", True),
        ("rotation", "rotation_per_wave_deg", "reverse", True), ("target", "player_hits", "at_most", True),
        ("target", "peak_alive_bullets", "at_most", True), ("target", "low_fps", "at_least", True),
        ("target", "dodgeable", "set", True)]
    targets = [e for e in request_intent(goal).edits if e.kind == "target"]
    assert all(e.phases == [] for e in targets)
    assert "the whole fight · player_hits: at most 2 (exact)" in request_intent(goal).lines()


def test_a_goal_written_before_the_flag_keeps_its_json() -> None:
    edit = ParameterEdit(field="bullet_speed", operation="scale", value=1.2)
    assert "qualitative" not in edit.model_dump(mode="json")
    assert ParameterEdit(field="bullet_speed", operation="scale", value=1.2,
                         qualitative=True).model_dump(mode="json")["qualitative"] is True


@pytest.mark.parametrize("text, field, exact", [
    ("phase 1 bullets 20% faster", "bullet_speed", True),
    ("faster bullets in phase 1", "bullet_speed", False),
    ("阶段1 子弹更快", "bullet_speed", False),
    ("阶段1 子弹速度设为 4.5", "bullet_speed", True),
])
def test_the_offline_reader_marks_words_without_a_number(text: str, field: str, exact: bool) -> None:
    decision = decide(text, BASELINE)
    assert decision.decision == "accepted" and decision.goal is not None, decision.rationale
    [edit] = [e for e in request_intent(decision.goal).edits if e.field == field]
    assert edit.exact is exact
