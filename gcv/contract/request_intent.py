"""The request's intent as typed data (issue 26 item 1): each thing the designer asked for.

Both Requirement Agent providers answer with a :class:`~gcv.contract.goal.Goal` (the offline
reader builds it; the Claude provider writes it through the strict tool schema and the
calculator builds its candidate), so one pure function of the goal and the baseline gives the
intent for both: :func:`request_intent`. The loop records it when the request is accepted
(``RequirementOutcome.intent_hash``), authorization shows it, the bundle carries it and
``gcv verify --replay`` recomputes it with the loop.

One :class:`RequestedEdit` per thing asked:

| kind      | from the goal                         | field                   | direction                | exact                         | held by                      |
|-----------|---------------------------------------|-------------------------|--------------------------|-------------------------------|------------------------------|
| edit      | each ``edits[i]``                     | the pattern field       | up / down / set          | not ``edits[i].qualitative``  | scope (a repair never moves it) and the second reading |
| pressure  | ``pressure`` increase / decrease      | spawn_rate (a figure)   | up / down                | a density field has a number  | intent.spawn_rate, intent.mean_alive |
| pattern   | ``pattern_type``, ``bidirectional``   | type / bidirectional    | set                      | always                        | intent.pattern_type / intent.bidirectional |
| rotation  | ``reverse_rotation``                  | rotation_per_wave_deg   | reverse                  | always                        | intent.reverse_rotation      |
| target    | each stated ``constraints`` value     | the figure's target     | at_most / at_least       | always                        | the hard check of that figure |

``size`` is the size as asked, in words a person reads ("x0.8 (20% less)", "+3", "to 4.5",
"the default step", "at least +10% of the baseline's spawn rate"). Pure: no I/O.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final, Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.goal import DENSITY_FIELDS, QUALITATIVE_MIN_SHARE, Goal, ParameterEdit

INTENT_ID: Final = "gcv.intent/1"

Kind = Literal["edit", "pressure", "pattern", "rotation", "target"]
Direction = Literal["up", "down", "set", "reverse", "at_most", "at_least"]

# each target the designer can state: (constraint, the figure it bounds, direction, the check)
TARGETS: tuple[tuple[str, str, Direction, str], ...] = (
    ("max_player_hits", "player_hits", "at_most", "player_hits"),
    ("max_alive_bullets", "peak_alive_bullets", "at_most", "peak_alive_bullets"),
    ("min_low_fps", "low_fps", "at_least", "low_fps"),
)


# how a line reads each direction before the size ("set to 4.5", "at most 2", "up, x1.2 (20% more)")
LEAD: dict[str, str] = {"up": "up, ", "down": "down, ", "set": "set to ", "reverse": "", "at_most": "at most ",
                        "at_least": "at least "}


class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid")


class RequestedEdit(_Strict):
    """One thing the request asks for: where, which way, how much, and what holds it."""

    kind: Kind
    phases: list[str] = Field(description="the phases it is about (empty for a target of the whole fight)")
    field: str = Field(description="a pattern field (bullet_speed), or the figure a target or pressure is about")
    direction: Direction
    size: str = Field(description="the size as asked, as a person reads it")
    exact: bool = Field(description="a number was named (true) or a word without one (false)")
    held_by: list[str] = Field(description="what holds it on every candidate: checks by name, "
                                           "'scope' (no repair moves it), 'second_reading'")


class RequestIntent(_Strict):
    intent: Literal["gcv.intent/1"] = INTENT_ID
    edits: list[RequestedEdit] = Field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per thing asked, for the CLI and the report."""
        out = []
        for e in self.edits:
            where = ", ".join(e.phases) if e.phases else "the whole fight"
            out.append(f"{where} · {e.field}: {LEAD[e.direction]}{e.size} ({'exact' if e.exact else 'qualitative'})")
        return out


def _number(value: float) -> str:
    return f"{float(value):g}"


def _edit(goal: Goal, e: ParameterEdit) -> RequestedEdit:
    exact = not e.qualitative
    if e.operation == "scale":
        direction: Direction = "up" if e.value > 1 else "down" if e.value < 1 else "set"
        pct = (Fraction(repr(float(e.value))) - 1) * 100
        size = f"x{_number(e.value)} ({abs(float(pct)):g}% {'more' if pct > 0 else 'less'})"
    elif e.operation == "add":
        direction = "up" if e.value > 0 else "down" if e.value < 0 else "set"
        size = f"{'+' if e.value >= 0 else ''}{_number(e.value)}"
    else:
        direction, size = "set", _number(e.value)
    if not exact:
        size += ", the default step for a word without a number"
    return RequestedEdit(kind="edit", phases=list(goal.target_phase_ids), field=e.field, direction=direction,
                         size=size, exact=exact, held_by=["scope", "second_reading"])


def request_intent(goal: Goal) -> RequestIntent:
    """Every thing ``goal`` asks for, in a fixed order (edits, pressure, pattern, rotation, targets)."""
    phases = list(goal.target_phase_ids)
    edits = [_edit(goal, e) for e in goal.edits]
    if goal.pressure != "keep":
        numbered = [e for e in goal.edits if e.field in DENSITY_FIELDS and not e.qualitative]
        up = goal.pressure == "increase"
        if numbered:
            size = "as the numbered " + " and ".join(sorted({e.field for e in numbered})) + " edit gives it"
        else:
            size = (f"at least {'+' if up else '-'}{float(QUALITATIVE_MIN_SHARE * 100):g}% of the baseline's "
                    "spawn rate")
        edits.append(RequestedEdit(kind="pressure", phases=phases, field="spawn_rate", direction="up" if up else "down",
                                   size=size, exact=bool(numbered),
                                   held_by=["intent.spawn_rate", "intent.mean_alive", "second_reading"]))
    if goal.pattern_type is not None:
        edits.append(RequestedEdit(kind="pattern", phases=phases, field="type", direction="set",
                                   size=str(goal.pattern_type), exact=True,
                                   held_by=["intent.pattern_type", "second_reading"]))
    if goal.bidirectional is not None:
        edits.append(RequestedEdit(kind="pattern", phases=phases, field="bidirectional", direction="set",
                                   size=str(goal.bidirectional).lower(), exact=True,
                                   held_by=["intent.bidirectional", "second_reading"]))
    if goal.reverse_rotation:
        edits.append(RequestedEdit(kind="rotation", phases=phases, field="rotation_per_wave_deg",
                                   direction="reverse", size="the other way from the baseline", exact=True,
                                   held_by=["intent.reverse_rotation", "second_reading"]))
    c = goal.constraints
    for name, figure, direction, check in TARGETS:
        value = getattr(c, name)
        if value is not None:
            edits.append(RequestedEdit(kind="target", phases=[], field=figure, direction=direction,
                                       size=_number(value),
                                       exact=True, held_by=[check, "second_reading"]))
    if c.require_dodgeable:
        edits.append(RequestedEdit(kind="target", phases=[], field="dodgeable", direction="set", size="true",
                                   exact=True, held_by=["fairness", "second_reading"]))
    return RequestIntent(edits=edits)


__all__ = ["RequestIntent", "RequestedEdit", "request_intent", "INTENT_ID", "TARGETS"]
