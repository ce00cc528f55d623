"""Layer 2, reference: does the candidate do what the goal asked, on phases that exist?

Needs the structured goal; without one the layer is skipped (there is nothing to hold the
candidate to). A goal given as raw data is validated here too, so that a model-produced goal
with, say, a pattern type the simulator does not know is reported rather than raised.

| rule id                             | checks                                                   |
|-------------------------------------|----------------------------------------------------------|
| reference.goal_invalid              | the goal is a valid gcv.goal/1 document                  |
| reference.unsupported_pattern_type  | the requested pattern type is one the simulator supports |
| reference.duplicate_target_phase    | the goal names each target phase once                    |
| reference.phase_not_in_baseline     | every target phase exists in the baseline                |
| reference.phase_not_in_candidate    | every target phase exists in the candidate               |
| reference.pattern_type_mismatch     | target phases have the requested pattern type            |
| reference.bidirectional_mismatch    | target phases have the requested bidirectional flag      |
| reference.rotation_not_reversed     | with reverse_rotation, the rotation sign is the          |
|                                     | opposite of the baseline's (and nonzero)                 |
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from gcv.contract.goal import Goal
from gcv.contract.loading import json_path
from gcv.contract.models import PATTERN_TYPES, BulletHellConfig
from gcv.sim.fixed import exact
from gcv.sim.program import PATTERN_CODES
from gcv.validation.report import LayerResult, ValidationIssue, layer_result

SUPPORTED_PATTERN_TYPES = tuple(t for t in PATTERN_TYPES if t in PATTERN_CODES)


def _goal_path(parts: list[str | int]) -> str:
    return "goal:" + json_path(parts)


def parse_goal(goal: Any) -> tuple[Goal | None, list[ValidationIssue]]:
    """A ``Goal`` from a model or raw data, or the issues that make it unusable."""
    if isinstance(goal, Goal):
        data: Any = goal.model_dump(mode="json")
        pattern_type = goal.pattern_type
    elif isinstance(goal, BaseModel):
        data = goal.model_dump(mode="json")
        pattern_type = data.get("pattern_type") if isinstance(data, dict) else None
    else:
        data = goal
        pattern_type = data.get("pattern_type") if isinstance(data, dict) else None
    issues: list[ValidationIssue] = []
    if pattern_type is not None and pattern_type not in SUPPORTED_PATTERN_TYPES:
        issues.append(ValidationIssue.make(
            "reference.unsupported_pattern_type", _goal_path(["pattern_type"]), pattern_type,
            list(SUPPORTED_PATTERN_TYPES),
            f"the goal asks for pattern type {pattern_type!r}, which the simulator does not support; "
            f"supported: {', '.join(SUPPORTED_PATTERN_TYPES)}"))
    if isinstance(goal, Goal) and not issues:
        return goal, []
    try:
        parsed = Goal.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc = [p for p in error["loc"] if isinstance(p, (str, int))]
            if loc[:1] == ["pattern_type"] and issues:
                continue  # already reported as unsupported_pattern_type
            issues.append(ValidationIssue.make(
                "reference.goal_invalid", _goal_path(loc[:3]), error.get("input"),
                "a valid gcv.goal/1 document",
                f"the goal is not valid at {json_path(loc[:3])}: {error['msg']}"))
        return None, issues
    return (parsed if not issues else None), issues


def _sign(value: float) -> int:
    v = exact(value)
    return (v > 0) - (v < 0)


def check_reference(baseline: BulletHellConfig, candidate: BulletHellConfig, goal: Any) -> LayerResult:
    parsed, issues = parse_goal(goal)
    if parsed is None:
        return layer_result("reference", issues)
    seen: set[str] = set()
    for n, phase_id in enumerate(parsed.target_phase_ids):
        target: list[str | int] = ["target_phase_ids", n]
        if phase_id in seen:
            issues.append(ValidationIssue.make(
                "reference.duplicate_target_phase", _goal_path(target), phase_id,
                "each phase id once", f"the goal names phase '{phase_id}' more than once"))
            continue
        seen.add(phase_id)
        base_phase = baseline.phase(phase_id)
        cand_index = next((i for i, p in enumerate(candidate.phases) if p.phase_id == phase_id), None)
        if base_phase is None:
            issues.append(ValidationIssue.make(
                "reference.phase_not_in_baseline", _goal_path(target), phase_id,
                [p.phase_id for p in baseline.phases],
                f"the goal targets phase '{phase_id}', which the baseline does not have "
                f"(it has {', '.join(p.phase_id for p in baseline.phases)})"))
        if cand_index is None:
            issues.append(ValidationIssue.make(
                "reference.phase_not_in_candidate", _goal_path(target), phase_id,
                [p.phase_id for p in candidate.phases],
                f"the goal targets phase '{phase_id}', which the candidate does not have"))
            continue
        pat = candidate.phases[cand_index].pattern
        base: list[str | int] = ["phases", cand_index, "pattern"]
        if parsed.pattern_type is not None and pat.type != parsed.pattern_type:
            issues.append(ValidationIssue.make(
                "reference.pattern_type_mismatch", json_path([*base, "type"]), pat.type,
                parsed.pattern_type,
                f"the goal asks phase '{phase_id}' to be a {parsed.pattern_type}, "
                f"but the candidate makes it a {pat.type}"))
        if parsed.bidirectional is not None and pat.bidirectional != parsed.bidirectional:
            issues.append(ValidationIssue.make(
                "reference.bidirectional_mismatch", json_path([*base, "bidirectional"]),
                pat.bidirectional, parsed.bidirectional,
                f"the goal asks phase '{phase_id}' to be "
                f"{'bidirectional' if parsed.bidirectional else 'one-directional'}, "
                f"but the candidate sets bidirectional = {str(pat.bidirectional).lower()}"))
        if parsed.reverse_rotation and base_phase is not None:
            base_sign = _sign(base_phase.pattern.rotation_per_wave_deg)
            cand_sign = _sign(pat.rotation_per_wave_deg)
            if base_sign == 0:
                allowed: Any = "nonzero, opposite to the baseline's (which does not rotate)"
                why = "the baseline phase does not rotate, so there is no rotation to reverse"
            else:
                allowed = "< 0" if base_sign > 0 else "> 0"
                why = (f"the baseline rotates {base_phase.pattern.rotation_per_wave_deg:g} deg/wave, "
                       f"the candidate {pat.rotation_per_wave_deg:g}")
            if base_sign == 0 or cand_sign != -base_sign:
                issues.append(ValidationIssue.make(
                    "reference.rotation_not_reversed", json_path([*base, "rotation_per_wave_deg"]),
                    pat.rotation_per_wave_deg, allowed,
                    f"the goal asks to reverse the rotation of phase '{phase_id}', but {why}"))
    return layer_result("reference", issues)
