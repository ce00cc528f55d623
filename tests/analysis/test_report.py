"""The fair-fight gate's policy is explicit (issue 29): an undetermined fight that passes says
it passed by policy, and the strict policy fails it."""

from __future__ import annotations

import pytest

from gcv.analysis import analyze, fairness_check
from gcv.evaluation.models import Check
from tests.support.fairutil import falling_wall, with_phase


@pytest.fixture(scope="module")
def undetermined():
    report = analyze(with_phase(falling_wall(), 0, type="aimed_fan", spread_angle_deg=30), seed=1)
    assert report.verdict == "undetermined"
    return report


def test_undetermined_passes_by_policy_and_says_so(undetermined) -> None:
    check = fairness_check(undetermined)
    assert check.passed and "passes by policy" in check.detail and "policy undetermined_allowed" in check.detail
    strict = fairness_check(undetermined, policy="fair_required")
    assert not strict.passed and strict.expected == "fair" and "policy fair_required" in strict.detail
    assert fairness_check(undetermined, require_proof=True) == strict  # the older spelling
    Check.model_validate(strict.model_dump())


def test_an_unknown_policy_is_refused(undetermined) -> None:
    with pytest.raises(ValueError, match="unknown fairness policy"):
        fairness_check(undetermined, policy="maybe")  # type: ignore[arg-type]
