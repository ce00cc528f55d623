"""The policy gate: the reviewer agent proposes, the evidence decides what may happen.

``allowed_intents`` reads the evaluation and returns the intents the evidence allows, each
with its reason, and every other repair intent with the reason it is refused:

1. Each failed hard check calls for the intents of its family (``gcv.repair.intents``):
   ``peak_alive_bullets``/``low_fps`` -> REDUCE_BULLETS_PER_WAVE, INCREASE_WAVE_INTERVAL,
   REDUCE_BULLET_LIFETIME, REDUCE_PATTERN_LAYERS; ``player_hits``/``survival``/``run_status``
   -> REDUCE_BULLET_SPEED, REDUCE_BULLETS_PER_WAVE, INCREASE_WAVE_INTERVAL,
   REDUCE_PATTERN_LAYERS, on the check's culprit phase. ``phase_coverage`` failing while the
   player survived calls for none (the boss never got there: a human must look).
2. A failed intent check (pattern type, bidirectional, rotation, pressure) refuses every
   repair: calculators only lower figures and cannot restore what the designer asked for,
   so more engine runs cannot end in an accept.
3. Each (intent, phase) pair is dry-run through its calculator (``apply_repair``); the pair
   is refused when the calculator refuses: the goal edits that field on that phase, the
   value is already at its bound, layers cannot drop (1 layer, or a petal at 2), or a
   requested pressure increase would not survive any step. The repaired candidate must also
   raise no validation issue (``gcv.validation.validate``, e.g. ``rules.duplicate_bullets``)
   that the current candidate does not already have, so the gate never lets through a
   repair the loop would then have to block.
4. An intent is allowed when at least one of its phases survives; ``phases`` lists them in
   check order, the first being the default. REQUEST_HUMAN and STOP are always allowed.
   ``can_accept`` is true only when every hard and intent check passes.

``gate`` turns a verdict into what the loop does:

| verdict / intent                      | outcome                                           |
|---------------------------------------|---------------------------------------------------|
| accept, every check passes            | accept                                            |
| accept while a check fails            | human_review (never accept a failing candidate)   |
| intent STOP                           | stop                                              |
| intent REQUEST_HUMAN, or human_review | human_review                                      |
| repair with an allowed intent and phase | repair (phase defaults to the intent's first)   |
| repair with a refused intent or phase | human_review, the reason names the refusal        |
"""

from __future__ import annotations

from gcv.contract.intents import REPAIR_INTENTS, REQUEST_HUMAN, STOP
from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.models import Evaluation
from gcv.repair.calculators import apply_repair
from gcv.repair.intents import INTENT_FIELD, intents_for
from gcv.repair.models import AllowedIntents, GateResult, ReviewVerdict
from gcv.validation.report import ValidationReport
from gcv.validation.validate import validate

ALWAYS_ALLOWED: tuple[str, ...] = (REQUEST_HUMAN, STOP)


def allowed_intents(*, evaluation: Evaluation, goal: Goal | None, candidate: BulletHellConfig,
                    baseline: BulletHellConfig,
                    protected: frozenset[tuple[str, str]] | None = None) -> AllowedIntents:
    """The intents the evidence allows, why, and why every other repair intent is refused.

    ``protected``: the (phase, field) pairs the request itself changed (issue 26). A repair of
    such a pair would move the designer's own edit back toward the baseline, so it is refused
    before any run, whatever it would gain."""
    always = {REQUEST_HUMAN: "a human may always be asked", STOP: "the loop may always stop"}
    if evaluation.passed:
        return AllowedIntents(intents=list(ALWAYS_ALLOWED), reasons=always, can_accept=True,
                              refused={i: "every check passes; there is nothing to repair"
                                       for i in REPAIR_INTENTS})

    failed_intent = [c for c in evaluation.intent_checks if not c.passed]
    if failed_intent:
        names = ", ".join(f"{c.name} on {c.phase_id}" for c in failed_intent)
        why = (f"intent check(s) failed ({names}): the candidate does not do what the designer "
               "asked, and no repair calculator can restore it; a human must revise the request "
               "or the candidate")
        return AllowedIntents(intents=list(ALWAYS_ALLOWED), reasons=always, can_accept=False,
                              refused={i: why for i in REPAIR_INTENTS})

    # (intent -> [(phase, why)]) in check order, each phase once per intent
    wanted: dict[str, list[tuple[str, str]]] = {}
    unplaced: list[str] = []
    for check in evaluation.checks:
        if check.passed:
            continue
        called = intents_for(check.name)
        if not called:
            continue
        if check.phase_id is None:
            unplaced.append(check.name)
            continue
        for intent in called:
            pairs = wanted.setdefault(intent, [])
            if all(p != check.phase_id for p, _ in pairs):
                pairs.append((check.phase_id, f"{check.short()}: {check.detail}"))

    intents: list[str] = []
    reasons: dict[str, str] = {}
    refused: dict[str, str] = {}
    phases: dict[str, list[str]] = {}
    known: set[tuple[str, str]] | None = None  # the candidate's own validation issues, if any
    for intent in REPAIR_INTENTS:
        places = wanted.get(intent)
        if not places:
            refused[intent] = _uncalled_reason(evaluation, unplaced)
            continue
        ok_phases: list[str] = []
        why_ok: list[str] = []
        why_not: list[str] = []
        for phase_id, why in places:
            field = INTENT_FIELD.get(intent)
            if protected is not None and (phase_id, field) in protected:
                why_not.append(f"{phase_id}: it would undo the requested edit of {field} on {phase_id}")
                continue
            outcome = apply_repair(candidate=candidate, intent=intent, phase_id=phase_id,
                                   evaluation=evaluation, goal=goal, baseline=baseline)
            if outcome.ok and known is None:
                known = _issue_keys(validate(baseline, candidate, goal))
            invalid = _new_issues(baseline, outcome.candidate, goal, known or set()) if outcome.ok else None
            if outcome.ok and invalid is None:
                ok_phases.append(phase_id)
                why_ok.append(why)
            else:
                why_not.append(f"{phase_id}: {outcome.error or invalid}")
        if ok_phases:
            intents.append(intent)
            phases[intent] = ok_phases
            reasons[intent] = "; ".join(why_ok)
        else:
            refused[intent] = "; ".join(why_not)
    intents.extend(ALWAYS_ALLOWED)
    reasons.update(always)
    return AllowedIntents(intents=intents, reasons=reasons, can_accept=False, refused=refused,
                          phases=phases)


def _issue_keys(report: ValidationReport) -> set[tuple[str, str]]:
    return {(i.rule_id, i.path) for i in report.errors}


def _new_issues(baseline: BulletHellConfig, repaired: BulletHellConfig | None, goal: Goal | None,
                known: set[tuple[str, str]]) -> str | None:
    """Why the repaired candidate would fail validation where the current one does not."""
    report = validate(baseline, repaired, goal)
    new = [i for i in report.errors if (i.rule_id, i.path) not in known]
    if not new:
        return None
    issues = "; ".join(f"{i.rule_id} at {i.path}: {i.message}" for i in new[:3])
    return f"the repaired candidate would fail validation ({issues})"


def _uncalled_reason(evaluation: Evaluation, unplaced: list[str]) -> str:
    failed = [c for c in evaluation.checks if not c.passed]
    if unplaced:
        return f"the failed check(s) {', '.join(unplaced)} name no phase to repair"
    if failed and all(not intents_for(c.name) for c in failed):
        names = ", ".join(c.name for c in failed)
        return (f"only {names} failed, which no repair intent addresses (e.g. the boss never "
                "reached a phase while the player survived); a human must look")
    return "no failed check calls for it"


def gate(verdict: ReviewVerdict, allowed: AllowedIntents) -> GateResult:
    """What the loop does with the reviewer's verdict, given what the evidence allows."""
    if verdict.verdict == "accept":
        if allowed.can_accept:
            return GateResult(outcome="accept", accepted_as_proposed=True,
                              reason="every hard and intent check passes")
        return GateResult(outcome="human_review", accepted_as_proposed=False,
                          reason="accept refused: a hard or intent check fails; a failing "
                                 "candidate is never accepted")
    if verdict.intent == STOP:
        return GateResult(outcome="stop", intent=STOP, accepted_as_proposed=True,
                          reason=verdict.reason or "the reviewer asked to stop")
    if verdict.intent == REQUEST_HUMAN or verdict.verdict == "human_review":
        return GateResult(outcome="human_review", intent=verdict.intent,
                          phase_id=verdict.target_phase_id, accepted_as_proposed=True,
                          reason=verdict.reason or "the reviewer asked for a human")
    intent = verdict.intent
    if intent is None:
        return GateResult(outcome="human_review", accepted_as_proposed=False,
                          reason="repair refused: the verdict names no intent")
    if intent not in allowed.intents:
        why = allowed.refused.get(intent, "not allowed by the evidence")
        return GateResult(outcome="human_review", intent=intent, phase_id=verdict.target_phase_id,
                          accepted_as_proposed=False,
                          reason=f"repair refused: {intent} is not allowed: {why}")
    options = allowed.phases.get(intent, [])
    phase_id = verdict.target_phase_id
    if phase_id is None:
        if not options:
            return GateResult(outcome="human_review", intent=intent, accepted_as_proposed=False,
                              reason=f"repair refused: {intent} has no phase to act on")
        phase_id = options[0]
    elif phase_id not in options:
        return GateResult(outcome="human_review", intent=intent, phase_id=phase_id,
                          accepted_as_proposed=False,
                          reason=(f"repair refused: {intent} is not allowed on {phase_id}; the "
                                  f"evidence allows it on {', '.join(options) or 'no phase'}"))
    return GateResult(outcome="repair", intent=intent, phase_id=phase_id, accepted_as_proposed=True,
                      reason=f"{intent} on {phase_id}: {allowed.reasons.get(intent, '')}")
