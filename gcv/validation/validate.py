"""The four validation layers in order, as one report.

``validate`` never raises for a bad candidate: whatever the candidate holds, the answer is
a report. It raises :class:`GcvInputError` only when the *baseline* is not a valid config,
because then there is nothing trustworthy to compare against (an operator error, not a
candidate defect). If the schema layer fails, the later layers are skipped: cross-field
rules on a document that does not parse would only produce noise.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from gcv.contract.canonical import config_hash
from gcv.contract.goal import Goal
from gcv.contract.jsonschema_check import bound_violation, config_validator
from gcv.contract.loading import GcvInputError, model_error
from gcv.contract.models import CONTRACT_ID, BulletHellConfig
from gcv.validation.reference_layer import check_reference, parse_goal
from gcv.validation.report import LayerResult, ValidationReport, skipped
from gcv.validation.rules_layer import check_rules
from gcv.validation.safety_layer import check_safety
from gcv.validation.schema_layer import check_schema


def _baseline_model(baseline: Any) -> BulletHellConfig:
    if isinstance(baseline, BulletHellConfig):
        return baseline
    data = baseline.model_dump(mode="json") if isinstance(baseline, BaseModel) else baseline
    try:
        return BulletHellConfig.model_validate(data)
    except ValidationError as exc:
        raise model_error("baseline", exc) from None


def _hash(value: Any) -> str | None:
    try:
        return config_hash(value)
    except (TypeError, ValueError, RecursionError):
        return None


def validate(baseline: Any, candidate: Any, goal: Any = None) -> ValidationReport:
    """Validate ``candidate`` against ``baseline`` (and ``goal``, if given).

    Each argument may be raw JSON data (as loaded from a file) or a model.
    """
    base = _baseline_model(baseline)
    schema_result, cand = check_schema(candidate)
    layers: list[LayerResult] = [schema_result]
    parsed_goal: Goal | None = None
    if cand is None:
        reason = "the schema layer failed; later layers need a well-formed candidate"
        layers += [skipped("reference", reason), skipped("rules", reason), skipped("safety", reason)]
        raw = candidate.model_dump(mode="json") if isinstance(candidate, BaseModel) else candidate
        # a document over a size bound is not hashed: refusing it must stay cheap
        oversize = bound_violation(raw, config_validator().schema) is not None
        candidate_hash = None if oversize else _hash(raw)
    else:
        candidate_hash = config_hash(cand)
        if goal is None:
            layers.append(skipped("reference", "no goal given"))
        else:
            reference = check_reference(base, cand, goal)
            layers.append(reference)
            parsed_goal, _ = parse_goal(goal)
        layers.append(check_rules(cand))
        layers.append(check_safety(base, cand, parsed_goal))
    ok = all(layer.status != "failed" for layer in layers) and schema_result.status == "passed"
    return ValidationReport(ok=ok, contract=CONTRACT_ID, candidate_hash=candidate_hash,
                            baseline_hash=config_hash(base), goal_given=goal is not None,
                            layers=layers)


__all__ = ["validate", "GcvInputError"]
