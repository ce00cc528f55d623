"""Layer 4, safety (gcv.validation.safety_layer): a candidate edits patterns and tightens targets;
nothing else moves."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from gcv.contract.goal import DesignerConstraints, Goal
from gcv.contract.models import BulletHellConfig
from gcv.validation.safety_layer import check_safety
from tests.support.evalutil import base, variant


def _edited(edit: Callable[[dict[str, Any]], None]) -> BulletHellConfig:
    data = base().model_dump(mode="json")
    edit(data)
    return BulletHellConfig.model_validate(data)


def test_pattern_edits_and_tighter_targets_pass() -> None:
    assert check_safety(base(), variant(base(), "phase_2", bullet_speed=2.0), None).status == "passed"
    assert check_safety(base(), _edited(lambda d: d["targets"].update(max_alive_bullets=300)), None).status == "passed"


@pytest.mark.parametrize("edit,rule,path", [
    (lambda d: d["boss"].update(max_health=100), "safety.immutable_field", "$.boss.max_health"),
    (lambda d: d["player"].update(max_health=9), "safety.immutable_field", "$.player.max_health"),
    (lambda d: d["phases"][1].update(title="X"), "safety.phase_title", None),
    (lambda d: d["targets"].update(min_survival_seconds=30.0), "safety.target_loosened",
     "$.targets.min_survival_seconds"),
], ids=["boss", "player", "title", "loosened"])
def test_what_a_candidate_may_not_change(edit, rule: str, path: str | None) -> None:  # type: ignore[no-untyped-def]
    result = check_safety(base(), _edited(edit), None)
    assert result.status == "failed" and result.rule_ids() == [rule]
    if path:
        assert result.errors[0].path == path


def test_a_loosened_target_message_names_both_values() -> None:
    issue = check_safety(base(), _edited(lambda d: d["targets"].update(min_survival_seconds=30.0)), None).errors[0]
    assert issue.message == ("targets.min_survival_seconds was loosened from 36 to 30; a candidate may only "
                             "tighten targets")


def test_a_designer_stated_value_may_loosen_a_target_to_exactly_that() -> None:
    tight = _edited(lambda d: d["targets"].update(max_alive_bullets=200))
    loosened = _edited(lambda d: d["targets"].update(max_alive_bullets=300))
    assert check_safety(tight, loosened, None).rule_ids() == ["safety.target_loosened"]
    asked = Goal(target_phase_ids=["phase_2"], constraints=DesignerConstraints(max_alive_bullets=300))
    assert check_safety(tight, loosened, asked).status == "passed"
