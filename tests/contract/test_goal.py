"""The structured goal (gcv.contract.goal): edits name a pattern field from a closed list, values
are bounded decimals, and a goal names between one and six phases."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gcv.contract.canonical import content_hash
from gcv.contract.goal import EDITABLE_FIELDS, GOAL_ID, DesignerConstraints, Goal, ParameterEdit


def test_a_minimal_goal_and_its_defaults() -> None:
    goal = Goal(target_phase_ids=["phase_2"])
    assert goal.goal == GOAL_ID == "gcv.goal/1"
    assert (goal.pressure, goal.edits, goal.reverse_rotation, goal.pattern_type) == ("keep", [], False, None)


def test_edits_name_only_the_editable_fields() -> None:
    assert len(EDITABLE_FIELDS) == 7 and "bullet_speed" in EDITABLE_FIELDS
    assert ParameterEdit(field="bullet_speed", operation="scale", value=0.8).value == 0.8
    with pytest.raises(ValidationError):
        ParameterEdit(field="boss_health", operation="set", value=1)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ParameterEdit(field="bullet_speed", operation="multiply", value=2)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ParameterEdit(field="bullet_speed", operation="set", value=0.1234567)  # seven places


@pytest.mark.parametrize("phases", [[], [f"phase_{i}" for i in range(7)]])
def test_a_goal_names_one_to_six_phases(phases: list[str]) -> None:
    with pytest.raises(ValidationError):
        Goal(target_phase_ids=phases)


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(ValidationError):
        Goal.model_validate({"target_phase_ids": ["phase_1"], "colour": "red"})


def test_require_dodgeable_is_left_out_unless_stated_so_goals_keep_their_hash() -> None:
    assert "require_dodgeable" not in DesignerConstraints().model_dump()
    assert DesignerConstraints(require_dodgeable=True).model_dump()["require_dodgeable"] is True
    a = Goal(target_phase_ids=["phase_1"])
    b = Goal(target_phase_ids=["phase_1"], constraints=DesignerConstraints(require_dodgeable=None))
    assert content_hash(a) == content_hash(b)
    with pytest.raises(ValidationError):
        DesignerConstraints(max_player_hits=-1)
