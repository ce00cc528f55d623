"""The four layers as one report (gcv.validation.validate): never raises for a candidate, skips
the later layers after a schema failure, refuses an invalid baseline."""

from __future__ import annotations

import pytest

from gcv.contract.canonical import config_hash
from gcv.contract.goal import Goal
from gcv.contract.loading import GcvInputError
from gcv.validation.validate import validate
from tests.support.evalutil import base, variant


def test_the_baseline_against_itself() -> None:
    report = validate(base(), base())
    assert report.ok and report.candidate_hash == report.baseline_hash == config_hash(base())
    assert [(layer.layer, layer.status) for layer in report.layers] == [
        ("schema", "passed"), ("reference", "skipped"), ("rules", "passed"), ("safety", "passed")]
    assert report.layer("reference").reason == "no goal given" and not report.goal_given


def test_a_schema_failure_skips_the_later_layers() -> None:
    data = base().model_dump(mode="json")
    data["phases"][0]["pattern"]["bullets_per_wave"] = 0
    report = validate(base(), data)
    assert not report.ok and report.rule_ids() == ["schema.range"]
    assert [layer.status for layer in report.layers] == ["failed", "skipped", "skipped", "skipped"]
    assert report.candidate_hash == config_hash(data)


def test_every_layer_runs_with_a_goal_and_each_can_fail() -> None:
    goal = Goal(target_phase_ids=["phase_2"])
    report = validate(base(), variant(base(), "phase_2", bullet_speed=2.0), goal)
    assert report.ok and report.goal_given and report.layer("reference").status == "passed"
    data = base().model_dump(mode="json")
    data["boss"]["max_health"] = 100
    assert validate(base(), data, goal).rule_ids() == ["safety.immutable_field"]


@pytest.mark.parametrize("junk", [None, "text", 3, [1], {"contract": 1}])
def test_any_candidate_gets_a_report(junk: object) -> None:
    report = validate(base(), junk)
    assert not report.ok and report.layer("schema").status == "failed"


def test_an_invalid_baseline_is_an_input_error() -> None:
    with pytest.raises(GcvInputError, match="baseline"):
        validate({"contract": "nope"}, base())
