"""The decision: a ``Reading`` (a request and its answers) -> a ``RequirementDecision``.

* ``blocked``: the request asks for something a change request may not do; every issue
  names the field, what was asked, what is allowed and what can be changed instead;
* ``out_of_scope``: only about things GCV does not change (music, art, UI);
* ``no_change``: asks for nothing, or for what the baseline already is;
* ``needs_clarification``: something is missing (which phase, which field, more or less);
  every question starts with what is already understood, and never asks what the request
  states;
* ``accepted``: everything maps onto one goal; the candidate comes from the calculator
  (``goal_applier``), never from the rules.

Instructions injected into the request are never obeyed; the decision says they were ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from pydantic import ValidationError

from gcv.agents.base import BlockIssue, RequirementDecision
from gcv.agents.goal_applier import DEFAULT_ROTATION_DEG, GoalRangeError, apply_goal_with_notes, fmt
from gcv.contract.ranges import PATTERN_RANGES
from gcv.agents.offline_requirement.handlers.scope import INSTEAD
from gcv.agents.offline_requirement.reader import RequestReader
from gcv.agents.offline_requirement.state import Edit, Pending, Reading, phase_summary
from gcv.contract.goal import DesignerConstraints, Goal, ParameterEdit
from gcv.contract.models import BulletHellConfig

MAX_REQUEST_CHARS = 4000
FIELD_EXAMPLES = ("'bullets per wave to 20', 'every 0.5 s', 'speed 4.5', 'lifetime 4 s', "
                  "'rotate 25 degrees per wave', '3 layers'")


def _vague_questions(baseline: BulletHellConfig, phase_known: bool) -> list[str]:
    questions = []
    if not phase_known and len(baseline.phases) > 1:
        questions.append(f"Which phase should change? The fight has {phase_summary(baseline)}; or say 'all phases'.")
    questions.append("What should change: more pressure (denser, harder) or less (sparser, easier)? A different "
                     "pattern (ring, spiral, aimed fan, petal, scatter)? Bidirectional or reversed rotation? "
                     "Or an explicit value such as 'bullets per wave to 20' or 'every 0.5 s'?")
    return questions


def pending_question(p: Pending) -> str:
    """The question that asks for what ``p`` is missing (and only that)."""
    if p.kind == "direction":
        where = f" (of {p.field})" if p.field else ""
        return f"'{p.said}'{where}: more or less? Say e.g. '20% slower' or 'bullets per wave +20%'."
    if p.kind == "time_field":
        return (f"Is '{p.said}' the wave interval (e.g. 'every {fmt(p.value)} s') or the bullet lifetime "
                f"(e.g. 'lifetime {fmt(p.value)} s')?")
    if p.kind == "angle_field":
        return f"Is '{p.said}' the rotation per wave or the spread angle?"
    if p.kind == "unit":
        return (f"Is the interval '{fmt(p.value)}' in seconds or milliseconds? Say e.g. 'every {fmt(p.value)} s' "
                f"or '{fmt(p.value)} ms'.")
    if p.kind == "range":
        return f"'{p.said}' gives two values ({fmt(p.options[0])} and {fmt(p.options[1])}); which one should GCV verify?"
    if p.kind == "multiplier":
        return (f"'{p.said}' of what? Name the field, e.g. 'double the bullets per wave' or 'halve the wave "
                "interval'.")
    return f"What does '{p.said}' refer to? Name the field, e.g. {FIELD_EXAMPLES}."


def summary(r: Reading) -> str:
    """What is understood so far, in the words of the goal: 'bullet_speed x0.8 on phase_2'."""
    parts = []
    if r.pattern_type:
        parts.append(f"pattern {r.pattern_type}")
    if r.bidirectional is not None:
        parts.append("bidirectional" if r.bidirectional else "one direction")
    if r.direction:
        parts.append("counter-clockwise" if r.direction > 0 else "clockwise")
    if r.reverse:
        parts.append("reverse rotation")
    if r.pressure != "keep":
        parts.append(f"{'more' if r.pressure == 'increase' else 'less'} pressure")
    signs = {"set": "=", "scale": "x", "add": "+"}
    for e in r.edits:
        value = fmt(e.value)
        parts.append(f"{e.field} {signs[e.operation]}{value}" if not (e.operation == "add" and e.value < 0)
                     else f"{e.field} {value}")
    for name, value in r.constraints.items():
        parts.append("keep it dodgeable" if name == "require_dodgeable" else f"{name} {fmt(value)}")
    if r.preserve_visual:
        parts.append("keep the look")
    text = ", ".join(parts)
    named = r.phase_positions or r.all_phases or r.whole_fight or r.referenced_by_pattern
    if r.phase_ids and (text or named):
        where = ", ".join(r.phase_ids) if len(r.phase_ids) < 3 else "all phases"
        text = f"{text} on {where}" if text else f"the change is on {where}"
    return text


def _understood(r: Reading) -> str:
    return summary(r)


def _clarify(r: Reading, questions: list[str], rationale: str) -> RequirementDecision:
    understood = _understood(r)
    if understood and questions:
        questions = [f"Understood: {understood}. {questions[0]}", *questions[1:]]
    return RequirementDecision(decision="needs_clarification", questions=questions,
                               rationale=rationale + (f" (understood so far: {understood})" if understood else "")
                               + _ignored(r))


def _ignored(r: Reading) -> str:
    if not r.ignored:
        return ""
    said = "; ".join(f"'{text}'" for text in r.ignored)
    return (f". Ignored (an instruction to the agent, not a change request; it never changes the boss, the "
            f"player, the limits or the targets): {said}")


def decide(request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = ()) -> RequirementDecision:
    """The offline provider's whole answer for one request and the designer's answers (pure)."""
    total = len(request_text) + sum(len(a) for a in follow_ups)
    if total > MAX_REQUEST_CHARS:
        return RequirementDecision(
            decision="needs_clarification",
            questions=[f"The request is {total} characters long; GCV reads at most "
                       f"{MAX_REQUEST_CHARS}. Please state the change in a few sentences."],
            rationale="request too long")
    if not request_text.strip() and not any(a.strip() for a in follow_ups):
        return RequirementDecision(decision="needs_clarification",
                                   questions=_vague_questions(baseline, False),
                                   rationale="the request is empty")
    reader = RequestReader(baseline)
    r = reader.read(request_text)
    for answer in follow_ups:
        if answer.strip():
            reader.answer(r, answer)
    return _decide(r, baseline, request_text)


def _decide(r: Reading, baseline: BulletHellConfig, request_text: str) -> RequirementDecision:
    understood = "; ".join(r.understood)
    for e in r.edits:  # a value no phase could take is refused whatever phase was meant
        lo, hi = PATTERN_RANGES[e.field]
        if e.operation == "set" and not lo <= e.value <= hi:
            unit = {"wave_interval_ms": " ms", "bullet_lifetime_seconds": " s", "rotation_per_wave_deg": " deg",
                    "spread_angle_deg": " deg"}.get(e.field, "")
            r.blocks.append(BlockIssue(
                field=f"$.phases[*].pattern.{e.field}", asked=_goal_number(e.value), allowed=f"{fmt(lo)}..{fmt(hi)}",
                message=f"{e.field} = {fmt(e.value)}{unit} ('{e.said}') is outside the contract range "
                        f"{fmt(lo)}..{fmt(hi)}{unit}"))
    if r.blocks:
        return RequirementDecision(
            decision="blocked", issues=r.blocks,
            rationale="the request asks for something a change request may not do"
                      + (f" (understood: {understood})" if understood else "") + _ignored(r))
    if r.off_topic and not r.has_change:
        return RequirementDecision(
            decision="out_of_scope",
            rationale=f"the request is about {', '.join(r.off_topic)}, which GCV does not change. {INSTEAD}"
                      + _ignored(r))
    if r.off_topic and not r.off_topic_confirmed:
        r.ask(f"The request also asks about {', '.join(r.off_topic)}, which GCV does not change. Should GCV verify "
              "only the pattern change? If so, answer 'yes' (nothing is dropped silently).")
    if not r.has_change:
        if r.pending:
            return _clarify(r, [pending_question(p) for p in r.pending] + _phase_question(r, baseline),
                            "the request cannot be mapped without guessing")
        if (r.no_change or r.pressure_negated or r.preserve_visual) and not r.questions:
            return RequirementDecision(decision="no_change",
                                       rationale="the request asks to keep the fight as it is" + _ignored(r))
        phase_known = bool(r.phase_positions or r.all_phases or r.referenced_by_pattern or r.whole_fight)
        questions = list(r.questions)
        if questions and not phase_known and len(baseline.phases) > 1:
            questions.append(_vague_questions(baseline, False)[0])
        return _clarify(r, questions or _vague_questions(baseline, phase_known),
                        "the request does not say what should change")
    if r.pressure_negated and r.pressure != "keep":
        r.ask("The request asks for more or less pressure but also says 'not denser/harder'; the default pressure "
              "step changes bullets per wave and the wave interval. Say how instead (e.g. 'faster bullets', "
              "'3 layers').")
    for p in r.pending:
        r.ask(pending_question(p))
    if not r.phase_ids:
        if r.bad_phase:
            pass  # already asked which phase was meant
        elif r.edits or r.pattern_type or r.bidirectional is not None or r.reverse or r.direction or r.pressure != "keep":
            r.ask(_phase_question(r, baseline)[0])
        else:  # constraints only: they are fight-wide
            r.phase_ids = [p.phase_id for p in baseline.phases]
    reverse, edits, notes = _rotation(r, baseline)
    fields_set: dict[str, Fraction] = {}
    for e in edits:
        if e.operation == "set":
            if e.field in fields_set and fields_set[e.field] != e.value:
                r.ask(f"The request sets {e.field} to both {fmt(fields_set[e.field])} and {fmt(e.value)}; which one?")
            fields_set[e.field] = e.value
    if r.questions:
        return _clarify(r, list(r.questions), "the request cannot be mapped without guessing")
    try:
        goal = Goal(
            target_phase_ids=r.phase_ids,
            pattern_type=r.pattern_type,  # type: ignore[arg-type]
            bidirectional=r.bidirectional,
            reverse_rotation=reverse,
            pressure=r.pressure,  # type: ignore[arg-type]
            edits=[ParameterEdit(field=e.field, operation=e.operation, value=_goal_number(e.value))  # type: ignore[arg-type]
                   for e in edits],
            constraints=DesignerConstraints(**{k: (True if k == "require_dodgeable" else
                                                   int(v) if k != "min_low_fps" else _goal_number(v))
                                               for k, v in r.constraints.items()}),
            preserve_visual_style=r.preserve_visual,
            source_text=request_text[:4000],
        )
    except (ValidationError, ValueError) as exc:
        return RequirementDecision(decision="blocked", issues=_goal_issues(exc, r),
                                   rationale="the request cannot be written as a valid goal" + _ignored(r))
    try:
        applied = apply_goal_with_notes(baseline, goal)
    except GoalRangeError as exc:
        return RequirementDecision(decision="blocked", goal=goal, issues=exc.issues,
                                   rationale=f"understood: {understood}; but a value leaves the contract range"
                                             + _ignored(r))
    rationale = "understood: " + understood + (f" on {', '.join(r.phase_ids)}" if r.phase_ids else "")
    all_notes = notes + applied.notes
    if all_notes:
        rationale += ". Notes: " + "; ".join(all_notes)
    rationale += _ignored(r)
    if applied.candidate == baseline:
        return RequirementDecision(decision="no_change", goal=goal,
                                   rationale=rationale + ". The baseline already is what the request asks for.")
    return RequirementDecision(decision="accepted", goal=goal, candidate=applied.candidate, rationale=rationale)


def _phase_question(r: Reading, baseline: BulletHellConfig) -> list[str]:
    if r.phase_ids or r.bad_phase or len(baseline.phases) == 1:
        return []
    return [f"Which phase should change? The fight has {phase_summary(baseline)}; or say 'all phases'."]


def _rotation(r: Reading, baseline: BulletHellConfig) -> tuple[bool, list[Edit], list[str]]:
    """Rotation direction words, against the baseline of each target phase."""
    reverse = r.reverse
    edits = list(r.edits)
    notes: list[str] = []
    if r.direction:  # "rotate 25 degrees per wave clockwise": the sign comes from the direction word
        edits = [Edit(e.field, e.operation, r.direction * abs(e.value), e.said)
                 if e.field == "rotation_per_wave_deg" and e.operation == "set" else e for e in edits]
    if r.direction and r.phase_ids:
        explicit = [e for e in edits if e.field == "rotation_per_wave_deg" and e.operation == "set"]
        if not explicit:
            signs = set()
            for pid in r.phase_ids:
                phase = baseline.phase(pid)
                assert phase is not None
                rot = Fraction(repr(phase.pattern.rotation_per_wave_deg))
                signs.add((rot > 0) - (rot < 0))
            want = r.direction
            word = "counter-clockwise" if want > 0 else "clockwise"
            if signs == {-want}:
                reverse = True
            elif signs == {want}:
                notes.append(f"{', '.join(r.phase_ids)} already turn{'s' if len(r.phase_ids) == 1 else ''} {word}")
            elif signs == {0}:
                edits.append(Edit("rotation_per_wave_deg", "set", Fraction(want * DEFAULT_ROTATION_DEG), word))
                notes.append(f"the phase does not rotate yet: {word} means {fmt(want * DEFAULT_ROTATION_DEG)} "
                             "degrees per wave (the default rotation)")
            else:
                r.ask(f"The target phases turn in different directions now; which should turn {word}? "
                      "Name one phase.")
    if reverse and r.phase_ids and not r.direction:
        still = [pid for pid in r.phase_ids if baseline.phase(pid).pattern.rotation_per_wave_deg == 0]  # type: ignore[union-attr]
        if still and not (r.pattern_type in ("spiral", "petal")):
            r.ask(f"{', '.join(still)} does not rotate, so there is nothing to reverse. Should it become a "
                  "rotating pattern (e.g. 'make it a clockwise spiral')?")
    rotating = ("spiral", "petal")
    if any(e.field == "rotation_per_wave_deg" for e in edits) and r.phase_ids and not (
            r.pattern_type in rotating or r.bidirectional):
        flat = [pid for pid in r.phase_ids if baseline.phase(pid).pattern.type not in rotating]  # type: ignore[union-attr]
        if flat:
            kinds = ", ".join(f"{pid} is a {baseline.phase(pid).pattern.type}" for pid in flat)  # type: ignore[union-attr]
            r.ask(f"{kinds}, which does not rotate per wave, so a rotation would change nothing. Should it "
                  "become a spiral or petal (e.g. 'make it a spiral rotating 25 degrees per wave')?")
    return reverse, edits, notes


def _goal_number(value: Fraction) -> int | float:
    if value.denominator == 1:
        return int(value)
    return float(value)


def _goal_issues(exc: Exception, r: Reading) -> list[BlockIssue]:
    if isinstance(exc, ValidationError):
        issues = []
        for err in exc.errors(include_url=False):
            loc = ".".join(str(p) for p in err["loc"])
            issues.append(BlockIssue(field=f"goal.{loc}", asked=err.get("input"), allowed=str(err.get("ctx", "")) or
                                     "a value the goal can carry", message=f"goal.{loc}: {err['msg']}"))
        return issues
    return [BlockIssue(field="goal", asked=r.text, allowed="a valid gcv.goal/1", message=str(exc))]


__all__ = ["decide", "pending_question", "MAX_REQUEST_CHARS", "DEFAULT_ROTATION_DEG"]
