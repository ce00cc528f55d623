"""Gameplay checks (gcv.evaluation.gameplay): an evaluation without its frame-time checks, passed
and miss score recomputed from what is left."""

from __future__ import annotations

from gcv.evaluation.gameplay import FRAME_TIME_CHECKS, gameplay_only
from tests.support.evalutil import base_telemetry, edit, evaluation, over_budget


def test_a_low_fps_failure_alone_is_dropped_and_the_rest_passes() -> None:
    slow = evaluation(edit(base_telemetry(), low_fps=30.0))
    assert not slow.passed and [c.name for c in slow.failed] == ["low_fps"] and slow.miss_score > 0
    kept = gameplay_only(slow)
    assert kept.passed and kept.miss_score == 0.0
    assert "low_fps" not in [c.name for c in kept.checks] and FRAME_TIME_CHECKS == {"low_fps"}
    assert len(kept.checks) == len(slow.checks) - 1
    assert slow.check("low_fps") is not None  # the original is not changed


def test_a_gameplay_failure_still_fails_with_its_own_miss() -> None:
    both = evaluation(edit(over_budget(420), low_fps=30.0))
    kept = gameplay_only(both)
    assert not kept.passed and [c.name for c in kept.failed] == ["peak_alive_bullets"]
    assert kept.miss_score == both.check("peak_alive_bullets").miss  # type: ignore[union-attr]
