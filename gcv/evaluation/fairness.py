"""The fair-fight check joins an evaluation the one way the loop (and its replay) does.

The analysis itself (``gcv.analysis``) proves a fight dodgeable with a replayed witness, or
unfair where that is sound; the loop runs it when the targets require a dodgeable fight and
hands the resulting check here. Only a proof of unfairness fails: an undetermined fight is
not blamed for the analysis's limits; the check's detail names that policy (``undetermined_allowed``;
``fair_required`` fails anything but a witness: ``gcv.analysis.fairness_check(policy=...)``), so
an undetermined pass is never silent. The check names the phase whose
bullets close the last gap, so a repair acts there (``danger`` family).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from gcv.evaluation.models import Check, Evaluation


def with_fairness(evaluation: Evaluation, check: dict[str, Any]) -> Evaluation:
    """A new evaluation with the fair-fight check appended to its hard checks."""
    joined = Check.model_validate(check)
    return evaluation.model_copy(update={
        "checks": [*evaluation.checks, joined],
        "passed": evaluation.passed and joined.passed,
        "miss_score": float(Fraction(str(evaluation.miss_score)) + Fraction(str(joined.miss))),
    })


__all__ = ["with_fairness"]
