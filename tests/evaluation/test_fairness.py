"""The fair-fight check joins an evaluation (gcv.evaluation.fairness): appended to the hard
checks, the pass and the miss score combined exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from gcv.evaluation.fairness import with_fairness
from tests.support.evalutil import base_telemetry, evaluation, over_budget

FAIR = {"name": "fair_fight", "field": "fairness.verdict", "op": "==", "expected": "fair", "actual": "fair",
        "passed": True, "detail": "a replayed witness"}
UNFAIR = {**FAIR, "actual": "unfair", "passed": False, "phase_id": "phase_2", "miss": 1.0}


def test_a_passing_check_keeps_a_passing_evaluation_passing() -> None:
    ev = evaluation(base_telemetry())
    joined = with_fairness(ev, FAIR)
    assert joined.passed and joined.checks[-1].name == "fair_fight" and len(joined.checks) == len(ev.checks) + 1
    assert joined.miss_score == ev.miss_score == 0
    assert len(ev.checks) == len(joined.checks) - 1  # a new evaluation; the old one is unchanged


def test_an_unfair_fight_fails_and_adds_its_miss() -> None:
    ev = evaluation(over_budget(420))
    joined = with_fairness(ev, UNFAIR)
    assert not joined.passed and joined.check("fair_fight").phase_id == "phase_2"  # type: ignore[union-attr]
    assert joined.miss_score == float(Fraction(str(ev.miss_score)) + 1)
    assert not with_fairness(evaluation(base_telemetry()), UNFAIR).passed


def test_a_malformed_check_is_refused() -> None:
    with pytest.raises(ValidationError):
        with_fairness(evaluation(base_telemetry()), {**FAIR, "op": "~"})
