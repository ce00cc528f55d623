"""Turn a structured goal into a candidate config: the calculator behind the Requirement Agent.

Agents propose, code disposes: a goal names *what* to change (a pattern type, a direction,
"more pressure", "bullets per wave x 0.5"); this module writes every number. It is a pure
function of (baseline, goal) with no I/O, no clock and no floats in the arithmetic, so the
same goal gives the same candidate on every machine and a reviewer can recompute it.

Arithmetic and rounding (the rules a reviewer needs to recompute a candidate):

* Every number is read as the decimal a person wrote: ``Fraction(repr(float(x)))``
  (``gcv.sim.fixed.exact``), so ``3.6 * 0.8`` is exactly ``2.88``, never ``2.8800000000000003``.
* Edits of one field are applied in the order the goal lists them, exactly, and the result
  is rounded **once**, at the end: integer fields (``bullets_per_wave``,
  ``wave_interval_ms``, ``layer_count``) to an integer, decimal fields to
  ``DECIMAL_PLACES`` (3) places, both **half away from zero** (``2.5 -> 3``,
  ``-2.5 -> -3``, ``722.5 -> 723``). Python's ``round`` (half to even) is never used.
* A rounded value outside the contract range is **not clamped**: ``apply_goal`` raises
  :class:`GoalRangeError` naming the field, the value it would get and the allowed range,
  and the Requirement Agent reports the request as ``blocked``.

Per target phase, in this order:

1. ``pattern_type`` replaces the type. Switching to ``ring`` sets ``spread_angle_deg`` to
   360 (a ring is a full circle); switching to ``aimed_fan`` with a spread above 180 sets it
   to ``AIMED_FAN_DEFAULT_SPREAD_DEG`` (90); a pattern that ends up ``petal`` gets at least 2
   layers (a petal is layers at different speeds). Explicit edits (step 4) still win.
2. ``bidirectional`` True on a pattern that cannot rotate (ring, aimed_fan, scatter) when the
   goal names no type means the designer wants a rotating pattern: the phase becomes a
   ``spiral``. If the goal *names* a non-rotating type and bidirectional, that is a
   contradiction and a :class:`GoalRangeError`. A phase switched to a non-rotating type
   drops a baseline ``bidirectional`` flag (it would be meaningless there).
3. A phase that *becomes* a rotating pattern (a type change to spiral or petal, or a
   requested ``bidirectional``) while its rotation is 0 gets ``DEFAULT_ROTATION_DEG`` (15)
   degrees per wave, counter-clockwise: a spiral that does not turn is a ring. A phase
   that is not asked to change shape keeps its rotation.
4. Explicit edits: ``set`` replaces, ``scale`` multiplies, ``add`` adds.
5. ``pressure`` (only when no explicit edit touches ``bullets_per_wave`` or
   ``wave_interval_ms``, because then the designer already said how): ``increase`` scales
   bullets per wave by 5/4 and the wave interval by 17/20 (+25 % bullets, -15 % interval);
   ``decrease`` scales them by 4/5 and 23/20. Each moves by at least one unit and stops at
   the contract bound (said in the notes); if neither can move, that is a range error.
6. ``reverse_rotation``: the phase ends up turning the other way from the baseline phase:
   ``rotation = -sign(baseline rotation) * |rotation|`` (so an explicit magnitude, "25
   degrees", is kept). A baseline phase that does not rotate, or a result that does not
   rotate, has nothing to reverse (range error).

Finally a shape that the contract rules forbid is a range error, not a silent fix: a petal
with fewer than 2 layers, an aimed fan wider than 180 degrees, a bidirectional pattern
without rotation.

Targets: designer constraints only ever tighten them: ``max_alive_bullets`` and
``max_player_hits`` become ``min(target, constraint)``, ``min_low_fps`` becomes
``max(target, constraint)``. A constraint looser than the current target changes nothing
(noted). Limits are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from gcv.agents.base import BlockIssue
from gcv.contract.goal import DENSITY_FIELDS, Goal
from gcv.contract.models import BulletHellConfig, Pattern
from gcv.contract.patterns import NON_ROTATING_KINDS, PATTERNS, ROTATING_KINDS
from gcv.contract.ranges import PATTERN_RANGES, TARGET_RANGES
from gcv.sim.fixed import exact, round_half_away

DECIMAL_PLACES = 3
DEFAULT_ROTATION_DEG = 15
AIMED_FAN_MAX_SPREAD_DEG = 180
AIMED_FAN_DEFAULT_SPREAD_DEG = 90
RING_SPREAD_DEG = 360
PETAL_MIN_LAYERS = PATTERNS["petal"].min_layers
ROTATING_TYPES = ROTATING_KINDS
NON_ROTATING_TYPES = NON_ROTATING_KINDS
INTEGER_FIELDS = ("bullets_per_wave", "wave_interval_ms", "layer_count")

# pressure -> {field: factor}; the default step when the designer gives no numbers
PRESSURE_STEPS: dict[str, dict[str, Fraction]] = {
    "increase": {"bullets_per_wave": Fraction(5, 4), "wave_interval_ms": Fraction(17, 20)},
    "decrease": {"bullets_per_wave": Fraction(4, 5), "wave_interval_ms": Fraction(23, 20)},
}


class GoalRangeError(ValueError):
    """The goal cannot be applied inside the contract; ``issues`` say where and why."""

    def __init__(self, issues: list[BlockIssue]) -> None:
        self.issues = issues
        super().__init__("; ".join(issue.message for issue in issues))


@dataclass
class Application:
    """A candidate and the notes that explain every non-obvious choice the applier made."""

    candidate: BulletHellConfig
    notes: list[str] = field(default_factory=list)


def fmt(value: Fraction | int | float) -> str:
    """A number as a person writes it: 15, 2.88, -0.5 (no float noise, no trailing zeros)."""
    frac = value if isinstance(value, Fraction) else exact(value)
    if frac.denominator == 1:
        return str(frac.numerator)
    sign = "-" if frac < 0 else ""
    frac = abs(frac)
    whole, rest = divmod(frac.numerator, frac.denominator)
    digits = ""
    for _ in range(12):
        rest *= 10
        d, rest = divmod(rest, frac.denominator)
        digits += str(d)
        if rest == 0:
            break
    return f"{sign}{whole}.{digits.rstrip('0') or '0'}"


def round_to_places(value: Fraction, places: int = DECIMAL_PLACES) -> Fraction:
    """``value`` rounded to ``places`` decimal places, half away from zero."""
    scale = 10 ** places
    return Fraction(round_half_away(value * scale), scale)


def _rounded(name: str, value: Fraction) -> Fraction:
    if name in INTEGER_FIELDS:
        return Fraction(round_half_away(value))
    return round_to_places(value)


def _range_text(lo: Fraction, hi: Fraction) -> str:
    return f"{fmt(lo)}..{fmt(hi)}"


def _plain(name: str, value: Fraction) -> int | float:
    if name in INTEGER_FIELDS:
        assert value.denominator == 1
        return int(value)
    return float(value)  # <= 3 decimal places: the float's shortest text is that decimal


def _issue(path: str, asked: Any, allowed: str, message: str) -> BlockIssue:
    return BlockIssue(field=path, asked=asked, allowed=allowed, message=message)


def _describe_edits(edits: list[Any]) -> str:
    words = {"set": "set to", "scale": "x", "add": "+"}
    return ", ".join(f"{words[e.operation]} {fmt(e.value)}" for e in edits)


def _apply_phase(index: int, phase_id: str, base: Pattern, goal: Goal,
                 notes: list[str], issues: list[BlockIssue]) -> dict[str, Any]:
    pat: dict[str, Any] = base.model_dump()
    values: dict[str, Fraction] = {name: exact(pat[name]) for name in PATTERN_RANGES}
    path = f"$.phases[{index}].pattern"
    edited = {e.field for e in goal.edits}
    who = f"{phase_id}"

    # 1-2. type and bidirectional
    new_type = goal.pattern_type or base.type
    if goal.bidirectional is True and new_type in NON_ROTATING_TYPES:
        if goal.pattern_type is not None:
            issues.append(_issue(
                f"{path}.bidirectional", True, "bidirectional only on spiral or petal",
                f"{who}: a bidirectional {goal.pattern_type} is not possible: a second direction "
                "needs a rotating pattern (spiral or petal); ask for a bidirectional spiral or petal"))
            return pat
        notes.append(f"{who}: a {new_type} cannot rotate, so 'bidirectional' makes it a spiral "
                     "(the two directions of a spiral turn apart)")
        new_type = "spiral"
    if new_type != base.type:
        pat["type"] = new_type
        if new_type == "ring" and values["spread_angle_deg"] != RING_SPREAD_DEG and "spread_angle_deg" not in edited:
            values["spread_angle_deg"] = Fraction(RING_SPREAD_DEG)
            notes.append(f"{who}: a ring is a full circle, spread_angle_deg set to {RING_SPREAD_DEG}")
        if (new_type == "aimed_fan" and values["spread_angle_deg"] > AIMED_FAN_MAX_SPREAD_DEG
                and "spread_angle_deg" not in edited):
            values["spread_angle_deg"] = Fraction(AIMED_FAN_DEFAULT_SPREAD_DEG)
            notes.append(f"{who}: an aimed fan spreads at most {AIMED_FAN_MAX_SPREAD_DEG} degrees, "
                         f"spread_angle_deg set to {AIMED_FAN_DEFAULT_SPREAD_DEG}")
        if new_type in NON_ROTATING_TYPES and pat["bidirectional"] and goal.bidirectional is not True:
            pat["bidirectional"] = False
            notes.append(f"{who}: a {new_type} does not rotate, so it is no longer bidirectional")
    if goal.bidirectional is not None:
        pat["bidirectional"] = goal.bidirectional
    if new_type == "petal" and values["layer_count"] < PETAL_MIN_LAYERS and "layer_count" not in edited:
        values["layer_count"] = Fraction(PETAL_MIN_LAYERS)
        notes.append(f"{who}: a petal is layers at different speeds, layer_count raised to {PETAL_MIN_LAYERS}")

    # 3. a rotating pattern must rotate
    wants_rotation = new_type != base.type or goal.bidirectional is True
    if (wants_rotation and new_type in ROTATING_TYPES and values["rotation_per_wave_deg"] == 0
            and "rotation_per_wave_deg" not in edited):
        values["rotation_per_wave_deg"] = Fraction(DEFAULT_ROTATION_DEG)
        notes.append(f"{who}: a {new_type} needs rotation; rotation_per_wave_deg set to "
                     f"{DEFAULT_ROTATION_DEG} (the baseline phase did not rotate)")

    # 4. explicit edits, exact, in order
    for name in PATTERN_RANGES:
        mine = [e for e in goal.edits if e.field == name]
        if not mine:
            continue
        value = values[name]
        for edit in mine:
            amount = exact(edit.value)
            if edit.operation == "set":
                value = amount
            elif edit.operation == "scale":
                value = value * amount
            else:
                value = value + amount
        rounded = _rounded(name, value)
        if rounded != value:
            notes.append(f"{who}: {name} {fmt(value)} rounded to {fmt(rounded)} "
                         f"({'an integer' if name in INTEGER_FIELDS else f'{DECIMAL_PLACES} decimal places'}, "
                         "half away from zero)")
        values[name] = rounded
        lo, hi = PATTERN_RANGES[name]
        if not lo <= rounded <= hi:
            issues.append(_issue(
                f"{path}.{name}", _plain(name, rounded), _range_text(lo, hi),
                f"{who}: {name} would be {fmt(rounded)} (baseline {fmt(exact(pat[name]))}, "
                f"edit {_describe_edits(mine)}); the contract allows {_range_text(lo, hi)}"))

    # 5. pressure without numbers: the default step
    if goal.pressure != "keep" and edited & set(DENSITY_FIELDS):
        notes.append(f"{who}: pressure '{goal.pressure}' is taken as described by the explicit edits "
                     "(no default step)")
    elif goal.pressure != "keep":
        moved = False
        for name, factor in PRESSURE_STEPS[goal.pressure].items():
            old = values[name]
            lo, hi = PATTERN_RANGES[name]
            new = _rounded(name, old * factor)
            more = (factor > 1)
            if new == old:  # at least one unit of change
                new = old + (1 if more else -1)
            if new > hi or new < lo:
                bound = hi if new > hi else lo
                if bound != old:
                    notes.append(f"{who}: the default {goal.pressure} step would put {name} at "
                                 f"{fmt(new)}; stopped at the contract bound {fmt(bound)}")
                new = bound
            if new != old:
                moved = True
            values[name] = new
        if not moved:
            issues.append(_issue(
                f"{path}.bullets_per_wave", goal.pressure,
                f"bullets_per_wave {_range_text(*PATTERN_RANGES['bullets_per_wave'])}, "
                f"wave_interval_ms {_range_text(*PATTERN_RANGES['wave_interval_ms'])}",
                f"{who}: cannot {goal.pressure} the pressure: bullets_per_wave and wave_interval_ms "
                "are already at the contract bounds"))

    # pattern-shape rules that an explicit edit may break
    if new_type == "petal" and values["layer_count"] < PETAL_MIN_LAYERS:
        issues.append(_issue(
            f"{path}.layer_count", _plain("layer_count", values["layer_count"]), ">= 2 for petal",
            f"{who}: a petal needs at least {PETAL_MIN_LAYERS} layers (layers at different speeds)"))
    if new_type == "aimed_fan" and values["spread_angle_deg"] > AIMED_FAN_MAX_SPREAD_DEG:
        issues.append(_issue(
            f"{path}.spread_angle_deg", _plain("spread_angle_deg", values["spread_angle_deg"]),
            f"1..{AIMED_FAN_MAX_SPREAD_DEG} for aimed_fan",
            f"{who}: an aimed fan spreads at most {AIMED_FAN_MAX_SPREAD_DEG} degrees; use a ring for a full circle"))

    # 6. reverse the rotation relative to the baseline phase
    if goal.reverse_rotation:
        base_rot = exact(base.rotation_per_wave_deg)
        if base_rot == 0:
            issues.append(_issue(
                f"{path}.rotation_per_wave_deg", "reverse", "a baseline phase that rotates (rotation != 0)",
                f"{who}: the baseline phase does not rotate, so there is no rotation to reverse; "
                "ask for a rotation instead (for example 'rotate 15 degrees per wave clockwise')"))
        elif new_type not in ROTATING_TYPES:
            issues.append(_issue(
                f"{path}.rotation_per_wave_deg", "reverse", "a rotating pattern (spiral or petal)",
                f"{who}: a {new_type} does not rotate, so its rotation cannot be reversed"))
        elif values["rotation_per_wave_deg"] == 0:
            issues.append(_issue(
                f"{path}.rotation_per_wave_deg", 0, "!= 0 to reverse the rotation",
                f"{who}: the edits set the rotation to 0, which cannot also be reversed"))
        else:
            magnitude = abs(values["rotation_per_wave_deg"])
            values["rotation_per_wave_deg"] = -magnitude if base_rot > 0 else magnitude

    if new_type in ROTATING_TYPES and pat["bidirectional"] and values["rotation_per_wave_deg"] == 0:
        issues.append(_issue(
            f"{path}.rotation_per_wave_deg", 0, "!= 0 for a bidirectional pattern",
            f"{who}: a bidirectional {new_type} needs a nonzero rotation, or both directions coincide"))

    for name, value in values.items():
        lo, hi = PATTERN_RANGES[name]
        if lo <= value <= hi:
            pat[name] = _plain(name, value)
    return pat


def _apply_targets(baseline: BulletHellConfig, goal: Goal, notes: list[str],
                   issues: list[BlockIssue]) -> dict[str, Any]:
    targets = baseline.targets.model_dump()
    c = goal.constraints
    for name, asked, tighter in (("max_alive_bullets", c.max_alive_bullets, min),
                                 ("max_player_hits", c.max_player_hits, min),
                                 ("min_low_fps", c.min_low_fps, max)):
        if asked is None:
            continue
        current = exact(targets[name])
        wanted = exact(asked)
        lo, hi = TARGET_RANGES[name]
        new = tighter(current, wanted)
        if not lo <= new <= hi:  # only a constraint stricter than the contract can express
            issues.append(_issue(
                f"$.targets.{name}", asked, _range_text(lo, hi),
                f"the constraint {name} = {fmt(wanted)} is stricter than the contract can express "
                f"(targets.{name} allows {_range_text(lo, hi)})"))
            continue
        if new != wanted:
            limit = getattr(baseline.limits, name)
            why = (f"the baseline's hard limit ({fmt(exact(limit))}) is already stricter"
                   if exact(limit) == current else f"the baseline's target ({fmt(current)}) is already stricter")
            notes.append(f"targets.{name}: the designer asked for {fmt(wanted)}; kept {fmt(current)} "
                         f"because {why}")
        targets[name] = int(new) if name != "min_low_fps" else float(new)
    return targets


def apply_goal_with_notes(baseline: BulletHellConfig, goal: Goal) -> Application:
    """``apply_goal`` plus the notes (defaults chosen, roundings, constraints kept)."""
    notes: list[str] = []
    issues: list[BlockIssue] = []
    ids = [p.phase_id for p in baseline.phases]
    seen: set[str] = set()
    for phase_id in goal.target_phase_ids:
        if phase_id not in ids:
            issues.append(_issue("goal.target_phase_ids", phase_id, ", ".join(ids),
                                 f"the baseline has no phase '{phase_id}' (it has {', '.join(ids)})"))
        elif phase_id in seen:
            issues.append(_issue("goal.target_phase_ids", phase_id, "each phase once",
                                 f"the goal names phase '{phase_id}' more than once"))
        seen.add(phase_id)
    if issues:
        raise GoalRangeError(issues)
    data = baseline.model_dump(mode="python")
    for index, phase in enumerate(baseline.phases):
        if phase.phase_id in seen:
            data["phases"][index]["pattern"] = _apply_phase(index, phase.phase_id, phase.pattern, goal,
                                                            notes, issues)
    data["targets"] = _apply_targets(baseline, goal, notes, issues)
    if issues:
        raise GoalRangeError(issues)
    try:
        candidate = BulletHellConfig.model_validate(data)
    except ValidationError as exc:  # pragma: no cover - every range is checked above
        raise GoalRangeError([_issue(
            ".".join(str(p) for p in err["loc"]), err.get("input"), "the contract's field range",
            f"the candidate is not a valid config: {err['msg']}") for err in exc.errors(include_url=False)]) from None
    return Application(candidate=candidate, notes=notes)


def apply_goal(baseline: BulletHellConfig, goal: Goal) -> BulletHellConfig:
    """The candidate config for ``goal`` on ``baseline`` (see the module docstring).

    Raises :class:`GoalRangeError` when a value would leave the contract; never clamps an
    explicit edit.
    """
    return apply_goal_with_notes(baseline, goal).candidate


__all__ = ["apply_goal", "apply_goal_with_notes", "Application", "GoalRangeError", "PRESSURE_STEPS",
           "DEFAULT_ROTATION_DEG", "DECIMAL_PLACES", "PATTERN_RANGES", "round_to_places", "fmt"]
