"""The second reading: the designer's words, read again from scratch, against the final diff.

Before a round is shown as ready (issue 26, item 6), a check that holds only what the
designer wrote (the request and the answers they gave to the agent's questions: their words
too) and the final candidate beside the baseline lists each thing asked for and whether the
final candidate does it. It knows nothing of the loop: not the first reading's goal, not the
review, not the repairs and why they were made, so it cannot be talked into the loop's
reasons.

The reader is the offline Requirement Agent, called fresh (``decide``; a pure function of the
words and the baseline). With every provider: with Claude, the second reading still uses the
offline reader (a fresh model call without loop context is the design, not built yet), and a
request the offline reader cannot read is said to be ``unread``, not held to anything.

What is asked, per target phase of the fresh reading (``apply_goal`` of its goal gives the
values the words mean on the baseline):

* the pattern and "both directions" when the words name them: the final value equals;
* every pattern number the words move (or set): a **stated number** (``500 ms``, ``20%
  faster``, ``3 layers``) holds when the final value equals what it means on the baseline;
  a **word without a number** ("denser", "faster", "more bullets": the reader's default step)
  holds when the final value moves the same way from the baseline (strictly);
* "reverse the rotation": the final phase turns, and the other way from the baseline;
* each target the words state ("never more than 350 bullets alive", "low FPS at 55 or above",
  "at most 3 hits", "keep it dodgeable"): the target the final evaluation held the candidate
  to is at least as strict (part of the result, like the diff). Whether the fight measures up
  to it is the checks' job (docs/repair.md section 2); evidence_ready needs every one to pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from gcv.agents.goal_applier import GoalRangeError, apply_goal
from gcv.agents.offline_requirement import MODEL_NAME, RequestReader, decide
from gcv.contract.second_reading import AskedItem, Rule, SecondReading
from gcv.contract.goal import EDITABLE_FIELDS, Goal
from gcv.contract.models import BulletHellConfig
from gcv.contract.names import field_label, value_with_unit
from gcv.evaluation.models import EffectiveTargets

READER = f"offline {MODEL_NAME}"


def _exact(value: Any) -> Fraction:
    return Fraction(repr(float(value))) if isinstance(value, float) else Fraction(value)


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


def _stated_numbers(request: str, answers: Sequence[str], baseline: BulletHellConfig) -> set[str]:
    """The pattern fields the words give a number for (the reader's edits that are not a
    default step for a word), read as ``decide`` reads them (the request, then each answer)."""
    reader = RequestReader(baseline)
    reading = reader.read(request)
    for answer in answers:
        if answer.strip():
            reader.answer(reading, answer)
    return {e.field for e in reading.edits if not e.qualitative}


def _edit_items(goal: Goal, baseline: BulletHellConfig, asked: BulletHellConfig, final: BulletHellConfig,
                stated: set[str]) -> list[AskedItem]:
    ids = [p.phase_id for p in baseline.phases]
    edited = {e.field for e in goal.edits}
    items: list[AskedItem] = []
    for index, phase_id in enumerate(ids):
        if phase_id not in goal.target_phase_ids:
            continue
        before = baseline.phases[index].pattern
        want = asked.phases[index].pattern
        got = final.phases[index].pattern if index < len(final.phases) else None

        def path(name: str) -> str:
            return f"$.phases[{index}].pattern.{name}"

        def found(name: str) -> Any:
            return getattr(got, name) if got is not None else None

        for name, said in (("type", goal.pattern_type), ("bidirectional", goal.bidirectional)):
            if said is None and getattr(want, name) == getattr(before, name):
                continue
            p = path(name)
            items.append(AskedItem(asked=f"{field_label(p, ids)}: {value_with_unit(p, getattr(want, name))}",
                                   path=p, rule="equals", expected=value_with_unit(p, getattr(want, name)),
                                   found=value_with_unit(p, found(name)), holds=found(name) == getattr(want, name)))
        for name in EDITABLE_FIELDS:
            a, b = _exact(getattr(before, name)), _exact(getattr(want, name))
            if a == b and name not in edited:
                continue
            p = path(name)
            label = field_label(p, ids)
            value = found(name)
            now = _exact(value) if value is not None else None
            if name == "rotation_per_wave_deg" and goal.reverse_rotation:
                way = "clockwise" if _sign(a) > 0 else "counter-clockwise"
                items.append(AskedItem(
                    asked=f"{label}: the other way ({way})", path=p, rule="reversed",
                    expected=f"turning {way} (the baseline turns {value_with_unit(p, getattr(before, name))})",
                    found=value_with_unit(p, value), holds=now is not None and _sign(now) == -_sign(a) != 0))
            elif name in stated or a == b:
                items.append(AskedItem(asked=f"{label}: {value_with_unit(p, getattr(want, name))}", path=p,
                                       rule="equals", expected=value_with_unit(p, getattr(want, name)),
                                       found=value_with_unit(p, value), holds=now == b))
            else:
                up = b > a
                word = {"wave_interval_ms": ("longer", "shorter"), "bullet_lifetime_seconds": ("longer", "shorter"),
                        "bullet_speed": ("faster", "slower"), "spread_angle_deg": ("wider", "narrower"),
                        "rotation_per_wave_deg": ("more counter-clockwise", "more clockwise"),
                        }.get(name, ("more", "fewer" if name in ("bullets_per_wave", "layer_count") else "less"))
                than = value_with_unit(p, getattr(before, name))
                items.append(AskedItem(asked=f"{label}: {word[0] if up else word[1]}", path=p, rule="direction",
                                       expected=f"{'above' if up else 'below'} the baseline's {than}",
                                       found=value_with_unit(p, value),
                                       holds=now is not None and _sign(now - a) == _sign(b - a)))
    return items


def _target_items(goal: Goal, final: BulletHellConfig, judged: EffectiveTargets | None) -> list[AskedItem]:
    """What the candidate was held to (the final evaluation's targets when given, else the
    candidate config's own) against each target the words state."""
    items: list[AskedItem] = []
    c = goal.constraints
    held = judged if judged is not None else final.targets
    for name, said, rule in (("max_alive_bullets", c.max_alive_bullets, "at_most"),
                             ("max_player_hits", c.max_player_hits, "at_most"),
                             ("min_low_fps", c.min_low_fps, "at_least")):
        if said is None:
            continue
        p = f"$.targets.{name}"
        value = getattr(held, name)
        holds = _exact(value) <= _exact(said) if rule == "at_most" else _exact(value) >= _exact(said)
        bound = "at most" if rule == "at_most" else "at least"
        items.append(AskedItem(asked=f"{field_label(p)}: {bound} {value_with_unit(p, said)}", path=p, rule=rule,  # type: ignore[arg-type]
                               expected=f"{bound} {value_with_unit(p, said)}", found=value_with_unit(p, value),
                               holds=holds))
    if c.require_dodgeable:
        p = "$.targets.require_dodgeable"
        items.append(AskedItem(asked=f"{field_label(p)}: yes", path=p, rule="equals", expected="yes",
                               found=value_with_unit(p, held.require_dodgeable),
                               holds=held.require_dodgeable is True))
    return items


def second_reading(request: str, answers: Sequence[str], baseline: BulletHellConfig,
                   final: BulletHellConfig, targets: EffectiveTargets | None = None) -> SecondReading:
    """Read ``request`` (and the designer's ``answers``) afresh and check ``final`` against
    ``baseline`` for each thing asked; ``targets``: what the final evaluation held ``final`` to
    (``Evaluation.targets``; the config's own targets when not given). Pure: the same words and
    inputs give the same list."""
    decision = decide(request, baseline, follow_ups=list(answers))
    if decision.decision != "accepted" or decision.goal is None:
        return SecondReading(reader=READER, verdict="unread", note=f"the offline reader does not accept the words on its own "
                                                    f"({decision.decision})")
    goal = decision.goal
    try:
        asked = apply_goal(baseline, goal)
    except GoalRangeError as exc:  # pragma: no cover - an accepted decision applies
        return SecondReading(reader=READER, verdict="unread", note=f"the words do not apply to the baseline ({exc})")
    items = [*_edit_items(goal, baseline, asked, final, _stated_numbers(request, answers, baseline)),
             *_target_items(goal, final, targets)]
    return SecondReading(reader=READER, verdict="holds" if all(i.holds for i in items) else "misses", items=items)


__all__ = ["AskedItem", "SecondReading", "second_reading", "READER"]
