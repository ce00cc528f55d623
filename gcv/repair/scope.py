"""The authorized repair scope and the trade-offs offered when no repair inside it passes.

``default_scope(goal)``: the phases the request names and the pattern fields it names (its
edits). A repair intent moves one field (``gcv.repair.intents.INTENT_FIELD``) on one phase;
``in_scope`` says whether the scope allows that without asking.

``offer_tradeoffs``: when the reviewer's repair would leave the scope, the loop asks the
designer instead. Each option is a complete candidate simulated in the reference simulator
and judged like any candidate:

- ``repair``: each repair the evidence allows (``gcv.repair.policy.allowed_intents``), its
  magnitude searched on its ladder (``gcv.repair.search``), e.g. "slow phase 2's bullets 35%";
  choosing it widens the scope by that (phase, field);
- ``smaller_change``: every number the request changed at a share of its step from the
  baseline (1/2, then 1/4; integers rounded away from the baseline so the direction holds),
  the request's own fields and nothing else; the intent checks still judge it.
- ``raise_target``: the requested change exactly as it is, with the failing targets raised to
  what it measures (``raise_targets``: only when nothing but player hits, alive bullets or low
  FPS fails, the request did not state that target and the baseline's hard limit allows it).
  Choosing it states the raised target as the designer's (``gcv.contract.goal.with_targets``),
  recorded with who chose it; the candidate's own ``targets`` carry the new value.

Options that pass every check come first, then the fewest fields moved outside the request;
at most ``MAX_OPTIONS``. Deterministic: the same inputs give the same options (replay
recomputes them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gcv.contract.goal import TARGET_WORDS, Goal, with_targets
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.evaluate import evaluate
from gcv.evaluation.models import Evaluation
from gcv.repair.calculators import apply_repair
from gcv.repair.intents import INTENT_FIELD
from gcv.repair.models import AllowedIntents, RepairScope
from gcv.repair.search import search_repair
from gcv.validation.diff import FieldChange, diff_configs
from gcv.validation.validate import validate

MAX_OPTIONS = 4
SHARES = ("1/2", "1/4")  # of a relative edit's step away from the baseline
FIGURES = ("player_hits", "peak_alive_bullets", "survival_ticks", "low_fps", "phases_reached")

Simulate = Callable[[BulletHellConfig], dict[str, Any]]


PATTERN_NUMBERS = ("bullets_per_wave", "wave_interval_ms", "bullet_speed", "bullet_lifetime_seconds",
                   "rotation_per_wave_deg", "spread_angle_deg", "layer_count")
INTEGER_FIELDS = ("bullets_per_wave", "wave_interval_ms", "layer_count")


def requested_pairs(baseline: BulletHellConfig, requested: BulletHellConfig) -> frozenset[tuple[str, str]]:
    """The (phase, pattern field) pairs the request changed: where the calculator's candidate
    for the goal (``apply_goal``) differs from the baseline."""
    pairs = set()
    for before, after in zip(baseline.phases, requested.phases):
        for name in type(after.pattern).model_fields:
            if getattr(before.pattern, name) != getattr(after.pattern, name):
                pairs.add((after.phase_id, name))
    return frozenset(pairs)


def default_scope(goal: Goal | None, baseline: BulletHellConfig, requested: BulletHellConfig | None) -> RepairScope:
    """The phases the request names and the fields it changed there (nothing else)."""
    if goal is None:
        return RepairScope()
    fields = sorted({f for _, f in requested_pairs(baseline, requested)}) if requested is not None else []
    return RepairScope(phases=list(goal.target_phase_ids), fields=fields)


def whole_fight(baseline: BulletHellConfig) -> RepairScope:
    """Every phase and every field a repair moves: what an operator authorizes explicitly to let
    repairs move anything (``gcv authorize --repair-scope fight``; the behaviour before scopes)."""
    return RepairScope(phases=[p.phase_id for p in baseline.phases], fields=sorted(set(INTENT_FIELD.values())))


def in_scope(scope: RepairScope, intent: str | None, phase_id: str | None) -> bool:
    return scope.allows(phase_id, INTENT_FIELD.get(intent or ""))


def _figures(telemetry: dict[str, Any], evaluation: Evaluation) -> dict[str, Any]:
    out: dict[str, Any] = {k: telemetry.get(k) for k in FIGURES}
    out["status"] = telemetry.get("status")
    out["failed"] = [c.name for c in evaluation.failed]
    return out


def smaller_change(baseline: BulletHellConfig, requested: BulletHellConfig, share: str) -> BulletHellConfig | None:
    """``requested`` with each numeric field the request changed moved back to ``share`` of its
    step from the baseline (bullets per wave 12 -> 15 at 1/2: 13.5, rounded away from the
    baseline to 14); flags and pattern types stay as requested. None when nothing moves."""
    f = Fraction(share)
    data = requested.model_dump(mode="json")
    moved = False
    for i, (before, after) in enumerate(zip(baseline.phases, requested.phases)):
        for name in PATTERN_NUMBERS:
            a, b = getattr(before.pattern, name), getattr(after.pattern, name)
            if a == b:
                continue
            step = (Fraction(str(b)) - Fraction(str(a))) * f
            value = Fraction(str(a)) + step
            if name in INTEGER_FIELDS:  # away from the baseline, so the direction always holds
                value = Fraction(math.ceil(value) if step > 0 else math.floor(value))
                if value == a:
                    continue
                data["phases"][i]["pattern"][name] = int(value)
            else:
                data["phases"][i]["pattern"][name] = round(float(value), 2)
            moved = True
    return type(requested).model_validate(data) if moved else None


def offer_tradeoffs(*, candidate: BulletHellConfig, evaluation: Evaluation, allowed: AllowedIntents,
                    goal: Goal | None, baseline: BulletHellConfig, baseline_telemetry: dict[str, Any],
                    scope: RepairScope, simulate: Simulate, frame_times_measured: bool,
                    requested: BulletHellConfig | None) -> list[dict[str, Any]]:
    """The options (plain data: candidate, telemetry, evaluation, and what they change), ranked."""
    options: list[dict[str, Any]] = []

    def judge(config: BulletHellConfig) -> tuple[dict[str, Any], Evaluation]:
        telemetry = simulate(config)
        return telemetry, evaluate(baseline=baseline, goal=goal, baseline_telemetry=baseline_telemetry,
                                   candidate=config, candidate_telemetry=telemetry)

    def repairs(start: BulletHellConfig, start_evaluation: Evaluation, kind: str, prefix: str) -> None:
        """Each repair the evidence allows, searched on ``start``, as an option."""
        for intent in [i for i in allowed.intents if i in INTENT_FIELD]:
            for phase_id in allowed.phases.get(intent, []):
                outcome, _ = search_repair(candidate=start, intent=intent, phase_id=phase_id,
                                           evaluation=start_evaluation, goal=goal, baseline=baseline,
                                           baseline_telemetry=baseline_telemetry, simulate=simulate,
                                           frame_times_measured=frame_times_measured)
                if not outcome.ok or outcome.candidate is None:
                    outcome = apply_repair(candidate=start, intent=intent, phase_id=phase_id,
                                           evaluation=start_evaluation, goal=goal, baseline=baseline)
                if not outcome.ok or outcome.candidate is None or not validate(baseline, outcome.candidate, goal).ok:
                    continue
                telemetry, judged = judge(outcome.candidate)
                field = INTENT_FIELD[intent]
                widens = [] if scope.allows(phase_id, field) else [{"phase_id": phase_id, "field": field}]
                moved = "; ".join(f"{c.path} {c.before} -> {c.after}" for c in outcome.changes)
                options.append({"kind": kind, "intent": intent, "phase_id": phase_id, "widens": widens,
                                "title": f"{prefix}{intent} on {phase_id}: {moved}",
                                "candidate": outcome.candidate, "telemetry": telemetry, "evaluation": judged,
                                "changes": diff_configs(candidate, outcome.candidate)})

    repairs(candidate, evaluation, "repair", "keep the requested change; ")
    if requested is not None:
        for share in SHARES:
            config = smaller_change(baseline, requested, share)
            if config is None or config == candidate or not validate(baseline, config, goal).ok:
                continue
            telemetry, judged = judge(config)
            changes: list[FieldChange] = diff_configs(candidate, config)
            options.append({"kind": "smaller_change", "intent": None, "phase_id": None, "widens": [],
                            "title": f"the requested change at {share} of its size (the request's own fields only)",
                            "candidate": config, "telemetry": telemetry, "evaluation": judged, "changes": changes})
            if judged.passed:
                break  # the larger share that passes is the one to offer
            if share == SHARES[0]:  # half the change, and what it still needs
                repairs(config, judged, "smaller_change", f"the requested change at {share} of its size, and ")
    raised = raise_targets(evaluation, goal, baseline)
    if frame_times_measured and "min_low_fps" in raised:
        raised = {}  # the engine measures frame times; the reference could not predict the raised one
    if raised and goal is not None:
        held = with_targets(goal, raised)
        config = candidate.model_copy(update={"targets": candidate.targets.model_copy(update=raised)})
        if validate(baseline, config, held).ok:
            telemetry = simulate(config)
            judged = evaluate(baseline=baseline, goal=held, baseline_telemetry=baseline_telemetry, candidate=config,
                              candidate_telemetry=telemetry)
            moved = "; ".join(f"{TARGET_WORDS[k]} {_num(getattr(evaluation.targets, k))} -> {_num(v)}"
                              for k, v in raised.items())
            options.append({"kind": "raise_target", "intent": None, "phase_id": None, "targets": raised,
                            "widens": [{"target": k, "to": _num(v)} for k, v in raised.items()],
                            "title": f"keep the requested change as it is; raise the target: {moved}",
                            "candidate": config, "telemetry": telemetry, "evaluation": judged,
                            "changes": diff_configs(candidate, config)})
    options.sort(key=lambda o: (not o["evaluation"].passed, len(o["widens"]), len(o["changes"]),
                                o["kind"], o["intent"] or "", o["phase_id"] or ""))
    shown = options[:MAX_OPTIONS]
    # keeping the change and raising the target is always among the options when it passes
    raise_option = next((o for o in options if o["kind"] == "raise_target" and o["evaluation"].passed), None)
    if raise_option is not None and raise_option not in shown:
        shown[-1] = raise_option
    return shown


# the targets a raise_target option may raise: the check that fails -> (target, sense: -1 a maximum)
RAISABLE: dict[str, tuple[str, int]] = {"player_hits": ("max_player_hits", -1),
                                        "peak_alive_bullets": ("max_alive_bullets", -1),
                                        "low_fps": ("min_low_fps", +1)}


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def raise_targets(evaluation: Evaluation, goal: Goal | None, baseline: BulletHellConfig) -> dict[str, int | float]:
    """The targets that would make ``evaluation`` pass if the designer raised them to what the
    candidate measured, or {} when that is not a choice to offer: another check fails too (an
    intent check, survival, coverage...), the request itself stated the target (its words win:
    the designer revises the request instead), or the figure is past the baseline's hard limit
    (no request can move a target past a limit). Low FPS is floored to 2 decimals."""
    if goal is None or evaluation.passed:
        return {}
    raised: dict[str, int | float] = {}
    for check in evaluation.failed:
        if check.name not in RAISABLE or check.actual is None:
            return {}
        name, sense = RAISABLE[check.name]
        if getattr(goal.constraints, name) is not None:
            return {}
        actual = Fraction(str(check.actual))
        value: int | float = (float(Fraction(math.floor(actual * 100), 100)) if name == "min_low_fps"
                              else int(actual))
        if (Fraction(str(value)) - Fraction(str(getattr(baseline.limits, name)))) * sense < 0:
            return {}
        raised[name] = value
    return raised


def option_figures(option: dict[str, Any]) -> dict[str, Any]:
    return _figures(option["telemetry"], option["evaluation"])


__all__ = ["default_scope", "whole_fight", "in_scope", "offer_tradeoffs", "option_figures", "MAX_OPTIONS", "SHARES"]
