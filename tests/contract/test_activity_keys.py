"""The activity keys: spelt once (gcv.contract.activity_keys), as workflows have recorded them."""

from __future__ import annotations

import pytest

from gcv.contract.activity_keys import (fairness_key, population_key, prescreen_key, requirement_key, review_key,
                                        run_key)
from gcv.contract.status import FINAL, WAITING, Status
from gcv.workflow.loop import STEPS


def test_the_keys_are_those_recorded_workflows_hold() -> None:
    assert [requirement_key(1), requirement_key(3)] == ["requirement", "requirement:3"]
    assert review_key(2) == "review:2"
    assert [run_key(None), run_key(4)] == ["run:baseline", "run:candidate:4"]
    assert [prescreen_key(None), prescreen_key(1)] == ["prescreen:baseline", "prescreen:candidate:1"]
    assert [population_key(None), population_key(2)] == ["population:baseline", "population:candidate:2"]
    assert [fairness_key(None), fairness_key(2)] == ["analysis:fair:baseline", "analysis:fair:2"]
    with pytest.raises(ValueError, match="counts from 1"):
        requirement_key(0)


def test_every_status_the_loop_does_not_wait_in_has_exactly_one_step() -> None:
    moving = {s for s in Status if s not in WAITING and s not in FINAL}
    assert set(STEPS) == moving
    assert all(callable(step) for step in STEPS.values())
