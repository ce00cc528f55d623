"""Layer 4, safety: the candidate changes only what a change request may change.

A candidate may edit ``phases[*].pattern.*`` and tighten ``targets.*``; everything else is
the baseline's. This is what keeps a candidate (or an agent writing one) from winning by
moving the goalposts: targets come from the baseline and the designer's stated constraints,
never from the candidate. A target may be loosened only to the exact value the designer
asked for in the goal's constraints, and never past the baseline's hard limits.

| rule id                   | checks                                                          |
|---------------------------|-----------------------------------------------------------------|
| safety.immutable_field    | contract, name, scenario.*, player.*, boss.* are unchanged      |
| safety.phase_count        | the candidate has as many phases as the baseline                |
| safety.phase_id           | phase ids and their order are unchanged                         |
| safety.phase_title        | phase titles are unchanged                                      |
| safety.phase_trigger      | phase triggers are unchanged                                    |
| safety.limits_changed     | limits.* are unchanged (the platform owns them)                 |
| safety.target_loosened    | targets are only tightened (or set to a designer-stated value)  |
| safety.target_past_limit  | no target is looser than the baseline's limit                   |
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig
from gcv.sim.fixed import exact
from gcv.validation.diff import diff_configs
from gcv.validation.report import LayerResult, ValidationIssue, layer_result

_PHASE_FIELD = re.compile(r"^\$\.phases\[(\d+)\](?:\.(\w+))?")

# field -> (tighter direction, limits field, constraint field)
#   direction -1: lower is tighter; +1: higher is tighter
TARGET_RULES: dict[str, tuple[int, str | None, str | None]] = {
    "max_alive_bullets": (-1, "max_alive_bullets", "max_alive_bullets"),
    "max_player_hits": (-1, "max_player_hits", "max_player_hits"),
    "min_survival_seconds": (+1, None, None),
    "min_low_fps": (+1, "min_low_fps", "min_low_fps"),
    "require_all_phases": (+1, None, None),
    "require_dodgeable": (+1, None, None),
}


def _num(value: Any) -> Fraction:
    if isinstance(value, bool):
        return Fraction(int(value))
    return exact(value)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:g}" if isinstance(value, float) else str(value)


def _structure_issues(baseline: BulletHellConfig, candidate: BulletHellConfig) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    nb, nc = len(baseline.phases), len(candidate.phases)
    if nb != nc:
        issues.append(ValidationIssue.make(
            "safety.phase_count", "$.phases", nc, nb,
            f"the candidate has {nc} phases, the baseline {nb}; a change request edits patterns "
            "inside the existing phases, it never adds or removes phases"))
    base_ids = [p.phase_id for p in baseline.phases]
    for change in diff_configs(baseline, candidate):
        path = change.path
        if path.startswith("$.targets."):
            continue  # judged by _target_issues
        if path.startswith("$.limits."):
            issues.append(ValidationIssue.make(
                "safety.limits_changed", path, change.after, change.before,
                f"{path} changed from {_show(change.before)} to {_show(change.after)}; limits are "
                "the platform's hard limits, owned by the baseline, and never change"))
            continue
        match = _PHASE_FIELD.match(path)
        if match:
            index, field = int(match.group(1)), match.group(2)
            if field is None:
                continue  # a whole phase added or removed: reported as safety.phase_count
            if field == "pattern":
                continue  # the editable part
            if field == "phase_id":
                moved = (f"; '{change.after}' is phase {base_ids.index(change.after)} in the baseline"
                         if change.after in base_ids else "")
                issues.append(ValidationIssue.make(
                    "safety.phase_id", path, change.after, change.before,
                    f"phase {index} is '{change.before}' in the baseline but '{change.after}' in "
                    f"the candidate{moved}; phase ids and their order are immutable"))
            elif field == "title":
                issues.append(ValidationIssue.make(
                    "safety.phase_title", path, change.after, change.before,
                    f"the title of phase {index} changed from {change.before!r} to "
                    f"{change.after!r}; titles are immutable (only the pattern may change)"))
            elif field == "trigger_boss_hp_below":
                issues.append(ValidationIssue.make(
                    "safety.phase_trigger", path, change.after, change.before,
                    f"the trigger of phase {index} changed from {_show(change.before)} to "
                    f"{_show(change.after)}; triggers are immutable (only the pattern may change)"))
            else:  # pragma: no cover - the model has no other phase fields
                issues.append(ValidationIssue.make(
                    "safety.immutable_field", path, change.after, change.before,
                    f"{path} is not editable"))
            continue
        issues.append(ValidationIssue.make(
            "safety.immutable_field", path, change.after, change.before,
            f"{path} changed from {_show(change.before)} to {_show(change.after)}; only "
            "phases[*].pattern.* and targets.* may change in a candidate"))
    return issues


def _target_issues(baseline: BulletHellConfig, candidate: BulletHellConfig,
                   goal: Goal | None) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    for field, (direction, limit_field, constraint_field) in TARGET_RULES.items():
        path = f"$.targets.{field}"
        before = getattr(baseline.targets, field)
        after = getattr(candidate.targets, field)
        if limit_field is not None:
            limit = getattr(baseline.limits, limit_field)
            if (_num(after) - _num(limit)) * direction < 0:
                sign = ">=" if direction > 0 else "<="
                issues.append(ValidationIssue.make(
                    "safety.target_past_limit", path, after,
                    f"{sign} {_show(limit)} (baseline limits.{limit_field})",
                    f"targets.{field} is {_show(after)}, past the baseline's hard limit "
                    f"{_show(limit)}; no request can move a target past a limit"))
                continue
        if (_num(after) - _num(before)) * direction >= 0:
            continue  # unchanged or tightened
        asked = getattr(goal.constraints, constraint_field) if goal and constraint_field else None
        if asked is not None and _num(asked) == _num(after):
            continue  # the designer stated exactly this value
        sign = ">=" if direction > 0 else "<="
        allowed: Any = f"{sign} {_show(before)} (the baseline's target)"
        hint = ""
        if constraint_field is not None:
            hint = (" unless the goal's constraints state exactly this value"
                    + (f" (the goal asks for {_show(asked)})" if asked is not None else ""))
        issues.append(ValidationIssue.make(
            "safety.target_loosened", path, after, allowed,
            f"targets.{field} was loosened from {_show(before)} to {_show(after)}; a candidate "
            f"may only tighten targets{hint}"))
    return issues


def check_safety(baseline: BulletHellConfig, candidate: BulletHellConfig,
                 goal: Goal | None = None) -> LayerResult:
    return layer_result("safety", [*_structure_issues(baseline, candidate),
                                   *_target_issues(baseline, candidate, goal)])
