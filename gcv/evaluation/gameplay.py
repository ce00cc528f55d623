"""Gameplay checks: what the reference simulator decides exactly for every engine.

The three cores agree bit for bit on every gameplay figure (docs/simulation.md), so for
everything but frame time the reference simulator *is* the engine. Frame time is the one
thing only an engine measures: ``low_fps`` is judged on the engine's own run, never on the
reference's modeled figure. A pre-screen (``gcv.workflow.loop``) and a repair search
(``gcv.repair.search``) judge a candidate with these checks before any engine time is spent.
"""

from __future__ import annotations

from fractions import Fraction

from gcv.evaluation.models import Evaluation

FRAME_TIME_CHECKS = frozenset({"low_fps"})


def gameplay_only(evaluation: Evaluation) -> Evaluation:
    """The evaluation without its frame-time checks (passed and miss score recomputed)."""
    checks = [c for c in evaluation.checks if c.name not in FRAME_TIME_CHECKS]
    kept = [*checks, *evaluation.intent_checks]
    return evaluation.model_copy(update={
        "checks": checks,
        "passed": all(c.passed for c in kept),
        "miss_score": float(sum((Fraction(str(c.miss)) for c in kept), Fraction(0))),
    })


__all__ = ["FRAME_TIME_CHECKS", "gameplay_only"]
