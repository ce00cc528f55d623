"""JSON Schemas that strict tool use accepts, derived from the pydantic output models.

Strict tool use (``"strict": true`` on a tool) constrains the model's sampling to the
tool's ``input_schema``, but only for a subset of JSON Schema. This module rewrites
pydantic's schema of an output model into that subset:

* every object gets ``additionalProperties: false`` and lists **every** property as
  required (strict mode allows at most 24 optional properties across a request); a field
  with a default is written out by the model (``""``, ``[]``, ``false``), and only a field
  the model declares ``X | None`` may be null;
* a nullable enum becomes one enum with ``null`` in it, a nullable boolean the enum
  ``[true, false, null]``: strict mode allows at most 16 parameters that use ``anyOf`` or
  type arrays across a request, and enums do not count;
* numeric bounds (``minimum``/``maximum``/...), string lengths and patterns, array sizes
  other than ``minItems`` 0 or 1, defaults and titles are not supported; they are moved
  into the property's ``description`` in words ("range 1..64"), so the model still
  reads them;
* a field of type ``Any`` has no schema strict mode can take; the caller names a
  replacement for it (``overrides``), and fields the model must not write are dropped
  (``omit``) and filled in after parsing.

This schema only shapes what the model writes. The answer is still validated with the
pydantic model itself (``extra="forbid"``, every bound, every validator) and then by
GCV's four validation layers: the strict schema is a convenience, never the check.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

# Keywords strict tool use does not take; their meaning goes into the description.
_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<",
           "ge": ">=", "le": "<=", "gt": ">", "lt": "<"}
_DROP = ("title", "default", "examples", "x-maxDecimalPlaces")
SUPPORTED_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum",
                            "const", "anyOf", "allOf", "$ref", "$defs", "description", "minItems", "format"})


def _describe(schema: dict[str, Any]) -> str:
    """The unsupported constraints of ``schema``, in words."""
    notes: list[str] = []
    lo = [(k, schema[k]) for k in ("minimum", "ge", "exclusiveMinimum", "gt") if k in schema]
    hi = [(k, schema[k]) for k in ("maximum", "le", "exclusiveMaximum", "lt") if k in schema]
    if lo and hi and lo[0][0] in ("minimum", "ge") and hi[0][0] in ("maximum", "le"):
        notes.append(f"range {_num(lo[0][1])}..{_num(hi[0][1])}")
    else:
        notes.extend(f"{_BOUNDS[k]} {_num(v)}" for k, v in lo + hi)
    if "multipleOf" in schema:
        notes.append(f"a multiple of {_num(schema['multipleOf'])}")
    if "x-maxDecimalPlaces" in schema:
        notes.append(f"at most {schema['x-maxDecimalPlaces']} decimal places")
    if "minLength" in schema or "maxLength" in schema:
        notes.append(f"{schema.get('minLength', 0)}..{schema.get('maxLength', 'any')} characters")
    if "pattern" in schema:
        notes.append(f"matches {schema['pattern']}")
    if "minItems" in schema and schema["minItems"] not in (0, 1) or "maxItems" in schema:
        notes.append(f"{schema.get('minItems', 0)}..{schema.get('maxItems', 'any')} items")
    return ", ".join(notes)


def _num(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null, without spending an anyOf where an enum will do."""
    if "enum" in schema:
        with_null = {k: v for k, v in schema.items() if k != "type"}
        with_null["enum"] = [*schema["enum"], None] if None not in schema["enum"] else list(schema["enum"])
        return with_null
    if schema.get("type") == "boolean":
        return {**{k: v for k, v in schema.items() if k != "type"}, "enum": [True, False, None]}
    description = schema.get("description")
    inner = {k: v for k, v in schema.items() if k != "description"}
    out: dict[str, Any] = {"anyOf": [inner, {"type": "null"}]}
    if description:
        out["description"] = description
    return out


def _transform(schema: dict[str, Any], *, here: str, omit: dict[str, set[str]],
               overrides: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if here in overrides:
        return copy.deepcopy(overrides[here])
    if not schema:
        raise ValueError(f"{here}: a field without a schema (Any) needs an override")
    words = _describe(schema)
    description = _join(schema.get("description", "") or "", words)

    if "anyOf" in schema:
        variants = schema["anyOf"]
        non_null = [v for v in variants if v.get("type") != "null"]
        if len(non_null) == 1 and len(variants) == 2:
            inner = _transform(non_null[0], here=here, omit=omit, overrides=overrides)
            if description:
                inner["description"] = _join(inner.get("description", ""), description)
            return _nullable(inner)
        out: dict[str, Any] = {"anyOf": [_transform(v, here=here, omit=omit, overrides=overrides) for v in variants]}
        if description:
            out["description"] = description
        return out
    if "$ref" in schema:
        out = {"$ref": schema["$ref"]}
        if description:  # a $ref with siblings: wrap so the description survives
            return {"allOf": [out], "description": description}
        return out

    out = {}
    if "enum" in schema:
        out["enum"] = list(schema["enum"])
    elif "const" in schema:
        out["const"] = schema["const"]
    else:
        out["type"] = schema["type"]
    if description:
        out["description"] = description
    kind = schema.get("type")
    if kind == "object":
        dropped = omit.get(here, set())
        props = {name: _transform(sub, here=f"{here}.{name}", omit=omit, overrides=overrides)
                 for name, sub in schema.get("properties", {}).items() if name not in dropped}
        # A field with a default is required here too: the model writes the empty value
        # ("", [], false, null for a field that is nullable anyway), which keeps strict
        # mode's small budget of optional and union parameters for real choices.
        out["properties"] = props
        out["required"] = list(props)
        out["additionalProperties"] = False
    elif kind == "array":
        out["items"] = _transform(schema.get("items", {}), here=f"{here}[]", omit=omit, overrides=overrides)
        if schema.get("minItems") in (0, 1):
            out["minItems"] = schema["minItems"]
    return out


def strict_schema(model: type[BaseModel], *, omit: dict[str, set[str]] | None = None,
                  overrides: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The strict-mode ``input_schema`` for ``model``.

    Paths name a place in the schema: ``"$"`` is the root object, ``"#Goal"`` the ``Goal``
    definition, ``"#BlockIssue.asked"`` a property of a definition. ``omit`` maps an object
    path to the properties to leave out; ``overrides`` maps a property path to the schema
    to use instead of the derived one.
    """
    source = model.model_json_schema()
    omit = omit or {}
    overrides = overrides or {}
    defs = source.pop("$defs", {})
    root = _transform(source, here="$", omit=omit, overrides=overrides)
    root.pop("description", None)  # the tool's description says it
    if defs:
        root["$defs"] = {name: _transform(sub, here=f"#{name}", omit=omit, overrides=overrides)
                         for name, sub in defs.items()}
    return root


def strict_problems(schema: Any, path: str = "$") -> list[str]:
    """Why ``schema`` would not be accepted in strict mode (empty when it would)."""
    problems: list[str] = []
    if isinstance(schema, dict):
        for key in schema:
            if key not in SUPPORTED_KEYS and path.rsplit(".", 1)[-1] not in ("properties", "$defs"):
                problems.append(f"{path}: unsupported keyword {key!r}")
        if schema.get("type") == "object":
            props = schema.get("properties", {})
            if schema.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties must be false")
            if sorted(schema.get("required", [])) != sorted(props):
                problems.append(f"{path}: every property must be required")
        if "minItems" in schema and schema["minItems"] not in (0, 1):
            problems.append(f"{path}: minItems must be 0 or 1")
        for key, value in schema.items():
            if key in ("enum", "const", "required", "description"):
                continue
            problems.extend(strict_problems(value, f"{path}.{key}"))
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            problems.extend(strict_problems(item, f"{path}[{i}]"))
    return problems


def union_parameters(schema: Any) -> int:
    """How many parameters use ``anyOf`` or a type array (strict mode allows 16 a request)."""
    count = 0
    if isinstance(schema, dict):
        if "anyOf" in schema or isinstance(schema.get("type"), list):
            count += 1
        for key, value in schema.items():
            if key not in ("enum", "const", "required"):
                count += union_parameters(value)
    elif isinstance(schema, list):
        count += sum(union_parameters(item) for item in schema)
    return count


__all__ = ["strict_schema", "strict_problems", "union_parameters"]
