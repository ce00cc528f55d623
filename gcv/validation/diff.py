"""Field-level difference between two JSON documents (configs, or any JSON data).

Order is stable and readable: fields in the order the first document lists them (a model's
field order), then fields only the second one has. Numbers compare by value (``3`` equals
``3.0``, as in canonical JSON) but a boolean never equals a number. Lists are compared item
by item; when lengths differ, the extra items are reported whole as ``added`` or
``removed`` (``$.phases[3]``) rather than as a cascade of field changes.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from gcv.contract.loading import json_path
from gcv.validation.report import json_safe

ChangeKind = Literal["changed", "added", "removed"]


class FieldChange(BaseModel):
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


def diff_configs(before: Any, after: Any) -> list[FieldChange]:
    """Every field that differs between ``before`` and ``after`` (models or JSON data)."""
    out: list[FieldChange] = []
    _walk(_plain(before), _plain(after), [], out)
    return out
