"""Repair search: the smallest step of the chosen intent that the reference simulator passes.

The review agent names an intent and the policy gate allows it; the calculator
(``gcv.repair.calculators``) still does all the arithmetic. Instead of one fixed step, the
search tries the intent's magnitudes on a documented ladder, from the gentlest to the
strongest, and applies the first whose candidate passes every gameplay and intent check in
the reference simulator (same seed, same player as the workflow). The three cores agree on
every gameplay figure, so what the reference passes, the engine passes too; only frame time
is left for the engine to measure.

The rule, deterministic:

* the ladder of each intent (``LADDERS``) is a list of miss ratios r (0 < r < 1), gentlest
  first; a rung is the calculator's value with r in place of the evaluation's miss ratio
  (every bound, minimum step and the designer's pressure guard still apply);
* rungs whose value equals an earlier rung's (the bounds and rounding can merge them) are
  tried once; rungs the calculator refuses, or whose candidate fails validation, are skipped;
* the first rung whose candidate passes every gameplay and intent check wins (the smallest
  change that works; there are no ties: the ladder is ordered);
* when none passes, the strongest rung that is valid is applied, and the explanation says
  that no rung passed (the next round's run then shows how far it still misses).

Bot populations are not run by the search (too many runs per rung); the real run judges them.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gcv.contract.goal import Goal
from gcv.contract.intents import (INCREASE_WAVE_INTERVAL, REDUCE_BULLET_LIFETIME, REDUCE_BULLET_SPEED,
                                  REDUCE_BULLETS_PER_WAVE, REDUCE_PATTERN_LAYERS)
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.evaluate import evaluate
from gcv.evaluation.gameplay import gameplay_only
from gcv.evaluation.models import Evaluation
from gcv.repair.calculators import apply_repair
from gcv.repair.intents import INTENT_FIELD
from gcv.repair.models import RepairOutcome, SearchRung  # the record lives with the others
from gcv.validation.validate import validate

F = Fraction
# Miss ratios r, gentlest first, in steps of 5%. bullets per wave: floor(n * r); wave interval:
# ceil(ms / r); lifetime: floor(100 * life * r) / 100; speed: floor(100 * speed * r) / 100 (the
# calculator keeps r inside its 0.6..0.9 clamp); layers: one layer fewer is the only step.
def _ladder(first: Fraction, last: Fraction) -> tuple[Fraction, ...]:
    """r from ``first`` down to ``last`` in steps of 1/20 (5%)."""
    return tuple(Fraction(k, 20) for k in range(int(first * 20), int(last * 20) - 1, -1))


LADDERS: dict[str, tuple[Fraction, ...]] = {
    REDUCE_BULLETS_PER_WAVE: _ladder(F(19, 20), F(2, 5)),   # 0.95, 0.90, ..., 0.40
    INCREASE_WAVE_INTERVAL: _ladder(F(19, 20), F(2, 5)),    # ms / 0.95 ... ms / 0.40
    REDUCE_BULLET_LIFETIME: _ladder(F(19, 20), F(1, 2)),    # 0.95 ... 0.50
    REDUCE_BULLET_SPEED: _ladder(F(9, 10), F(3, 5)),        # 0.90 ... 0.60 (the calculator's clamp)
    REDUCE_PATTERN_LAYERS: (F(1),),                         # one layer fewer
}

Simulate = Callable[[BulletHellConfig], dict[str, Any]]


def search_repair(*, candidate: BulletHellConfig, intent: str, phase_id: str | None, evaluation: Evaluation,
                  goal: Goal | None, baseline: BulletHellConfig, baseline_telemetry: dict[str, Any],
                  simulate: Simulate, frame_times_measured: bool) -> tuple[RepairOutcome, list[SearchRung]]:
    """The repair the search settles on, and every rung it tried (in order)."""
    field = INTENT_FIELD.get(intent)
    rungs: list[SearchRung] = []
    seen: set[Any] = set()
    strongest: RepairOutcome | None = None
    first_refusal: RepairOutcome | None = None
    for ratio in LADDERS.get(intent, ()):
        outcome = apply_repair(candidate=candidate, intent=intent, phase_id=phase_id, evaluation=evaluation,
                               goal=goal, baseline=baseline, ratio=ratio)
        if not outcome.ok or outcome.candidate is None:
            rungs.append(SearchRung(ratio=str(ratio), outcome="refused", failed_checks=[outcome.error or ""]))
            first_refusal = first_refusal or outcome
            continue
        value = outcome.detail.get("after")
        if value in seen:
            rungs.append(SearchRung(ratio=str(ratio), value=value, outcome="same_as_earlier"))
            continue
        seen.add(value)
        if not validate(baseline, outcome.candidate, goal).ok:
            rungs.append(SearchRung(ratio=str(ratio), value=value, outcome="invalid"))
            continue
        strongest = outcome
        judged = evaluate(baseline=baseline, goal=goal, baseline_telemetry=baseline_telemetry,
                          candidate=outcome.candidate, candidate_telemetry=simulate(outcome.candidate))
        if frame_times_measured:  # the engine, not the reference, decides frame time
            judged = gameplay_only(judged)
        failed = [c.name + (f"@{c.phase_id}" if c.phase_id else "") for c in judged.failed]
        rungs.append(SearchRung(ratio=str(ratio), value=value, outcome="passes" if judged.passed else "fails",
                                failed_checks=failed, miss_score=judged.miss_score))
        if judged.passed:
            return _settled(outcome, field, rungs, passed=True), rungs
    if strongest is not None:
        return _settled(strongest, field, rungs, passed=False), rungs
    return first_refusal or apply_repair(candidate=candidate, intent=intent, phase_id=phase_id,
                                         evaluation=evaluation, goal=goal, baseline=baseline), rungs


def _settled(outcome: RepairOutcome, field: str | None, rungs: list[SearchRung], *, passed: bool) -> RepairOutcome:
    tried = sum(1 for r in rungs if r.outcome in ("passes", "fails"))
    if passed:
        note = (f"; repair search: the gentlest of {tried} rung(s) tried in the reference simulator that passes "
                f"every gameplay and intent check (r = {rungs[-1].ratio})")
    else:
        note = (f"; repair search: no rung of the ladder passes in the reference simulator ({tried} tried); the "
                "strongest valid rung is applied")
    return outcome.model_copy(update={"explanation": outcome.explanation + note,
                                      "detail": {**outcome.detail, "search": "passed" if passed else "none_passed",
                                                 "field": field}})


__all__ = ["LADDERS", "SearchRung", "search_repair"]
