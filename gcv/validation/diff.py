"""Field-level difference between two JSON documents (configs, or any JSON data).

Order is stable and readable: fields in the order the first document lists them (a model's
field order), then fields only the second one has. Numbers compare by value (``3`` equals
``3.0``, as in canonical JSON) but a boolean never equals a number. Lists are compared item
by item; when lengths differ, the extra items are reported whole as ``added`` or
``removed`` (``$.phases[3]``) rather than as a cascade of field changes.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from gcv.contract.base import GcvModel
from gcv.contract.loading import json_path
from gcv.validation.report import json_safe

ChangeKind = Literal["changed", "added", "removed"]


class FieldChange(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_serialization_defaults_required=True)

    path: str
    before: Any = None
    after: Any = None
    kind: ChangeKind = "changed"


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def _same_leaf(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _walk(a: Any, b: Any, parts: list[str | int], out: list[FieldChange]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key in b:
                _walk(a[key], b[key], [*parts, key], out)
            else:
                out.append(FieldChange(path=json_path([*parts, key]), before=json_safe(a[key]),
                                       kind="removed"))
        for key in b:
            if key not in a:
                out.append(FieldChange(path=json_path([*parts, key]), after=json_safe(b[key]),
                                       kind="added"))
        return
    if isinstance(a, list) and isinstance(b, list):
        for i in range(min(len(a), len(b))):
            _walk(a[i], b[i], [*parts, i], out)
        for i in range(len(b), len(a)):
            out.append(FieldChange(path=json_path([*parts, i]), before=json_safe(a[i]), kind="removed"))
        for i in range(len(a), len(b)):
            out.append(FieldChange(path=json_path([*parts, i]), after=json_safe(b[i]), kind="added"))
        return
    if not _same_leaf(a, b):
        out.append(FieldChange(path=json_path(parts), before=json_safe(a), after=json_safe(b)))


REQUESTED = "requested"


def percent_change(before: Any, after: Any) -> float | None:
    """(after - before) / before in percent, rounded to 0.1 (None when not two numbers, or from 0)."""
    numbers = (int, float)
    if isinstance(before, bool) or isinstance(after, bool) or not isinstance(before, numbers) \
            or not isinstance(after, numbers) or before == 0:
        return None
    pct = (Fraction(str(after)) - Fraction(str(before))) * 100 / Fraction(str(before))
    return float(round(pct, 1))


def change_with_origins(baseline: Any, rounds: list[tuple[int, str, Any]], upto: int | None = None
                        ) -> list[dict[str, Any]]:
    """The change of round ``upto`` (default: the last) against the baseline, field by field, with
    where each edit came from. ``rounds`` = [(round, origin, config)] in order, round 1 being the
    requirement agent's candidate (origin ``requirement``) and each later one a repair's
    (origin ``repair:INTENT``). An edit is ``requested`` when round 1 made it (the designer asked
    for it); otherwise the origin of the repair that last moved the field: a repair's edit is
    never shown as requested."""
    if not rounds:
        return []
    upto = rounds[-1][0] if upto is None else upto
    requested = {c.path: c for c in diff_configs(baseline, rounds[0][2])}
    origin_of: dict[str, str] = {}
    for (_, _, earlier), (n, origin, later) in zip(rounds, rounds[1:]):
        if n > upto:
            break
        for c in diff_configs(earlier, later):
            origin_of[c.path] = origin
    final = next(cfg for n, _, cfg in rounds if n == upto)
    out = []
    for c in diff_configs(baseline, final):
        origin = origin_of.get(c.path, REQUESTED if c.path in requested else "repair")
        out.append({"path": c.path, "before": c.before, "after": c.after, "kind": c.kind,
                    "percent": percent_change(c.before, c.after), "origin": origin, "requested": origin == REQUESTED,
                    "requested_value": requested[c.path].after if c.path in requested else None})
    return out


def diff_configs(before: Any, after: Any) -> list[FieldChange]:
    """Every field that differs between ``before`` and ``after`` (models or JSON data)."""
    out: list[FieldChange] = []
    _walk(_plain(before), _plain(after), [], out)
    return out
