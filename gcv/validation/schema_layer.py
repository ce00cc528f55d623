"""Layer 1, schema: is the candidate a well-formed ``gcv.bullet_hell/1`` document?

Two independent checks run on the raw JSON: the committed JSON Schema (Draft 2020-12 with
our ``x-maxDecimalPlaces`` keyword) and the pydantic model. Issues come from pydantic
(its messages are the more precise), converted to stable rule ids; ``allowed`` is read
from the committed schema so it always states the whole range, not just the violated bound.
The two must reach the same verdict; if they ever do not, that is a bug in the contract
code and is reported as ``schema.disagreement`` rather than hidden.

| rule id                | meaning                                                        |
|------------------------|----------------------------------------------------------------|
| schema.extra_field     | a field the contract does not define                           |
| schema.missing_field   | a required field is absent                                     |
| schema.type            | wrong JSON type (string for a number, 3.5 for an integer, ...) |
| schema.range           | a number outside its field's range                             |
| schema.decimals        | a decimal with more than six decimal places                    |
| schema.not_finite      | NaN or Infinity (only reachable from code, files refuse them)  |
| schema.enum            | a value outside a fixed set (pattern type, contract id)        |
| schema.length          | a string or list too short or too long (e.g. 0 or 7 phases)    |
| schema.pattern         | an id that does not match its pattern                          |
| schema.unicode         | a string that is not valid Unicode (lone surrogate)            |
| schema.invalid         | any other pydantic error (should not happen)                   |
| schema.disagreement    | JSON Schema and pydantic disagree on this document (a bug)     |
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from gcv.contract.jsonschema_check import BoundViolation, bound_violation, config_validator, schema_errors
from gcv.contract.loading import json_path
from gcv.contract.models import BulletHellConfig
from gcv.contract.types import DECIMALS_KEYWORD
from gcv.validation.report import LayerResult, ValidationIssue, layer_result

_TYPE_ERRORS = {
    "int_type", "int_parsing", "int_from_float", "float_type", "float_parsing", "bool_type",
    "bool_parsing", "string_type", "model_type", "model_attributes_type", "list_type",
    "dict_type", "none_required", "is_instance_of", "arguments_type", "union_tag_invalid",
}
_RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}
_LENGTH_ERRORS = {"string_too_short", "string_too_long", "too_short", "too_long"}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- reading the schema to state what is allowed -------------------------------------------

def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            break
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        node = target
    return node


def _non_null(root: dict[str, Any], node: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    node = _resolve(root, node)
    if "anyOf" in node:
        options = [_resolve(root, o) for o in node["anyOf"]]
        real = [o for o in options if o.get("type") != "null"]
        if len(real) == 1:
            return real[0], len(real) < len(options)
    return node, False


def subschema(root: dict[str, Any], parts: list[str | int]) -> dict[str, Any] | None:
    """The schema that governs ``parts`` (a JSON path as a list), or None if undefined."""
    node: Any = _resolve(root, root)
    for part in parts:
        node, _ = _non_null(root, node)
        if isinstance(part, int):
            node = node.get("items")
        else:
            node = node.get("properties", {}).get(part)
        if not isinstance(node, dict):
            return None
    found: dict[str, Any] = node
    return found


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def describe(root: dict[str, Any], node: dict[str, Any] | None) -> str:
    """One phrase for what a schema allows, e.g. ``integer in [1, 64]``."""
    if node is None:
        return "not defined by the contract"
    node, nullable = _non_null(root, node)
    if "const" in node:
        text = f"exactly {json.dumps(node['const'])}"
    elif "enum" in node:
        text = "one of " + ", ".join(json.dumps(v) for v in node["enum"])
    else:
        kind = node.get("type", "any value")
        text = str(kind)
        if kind in ("integer", "number"):
            low = node.get("minimum", node.get("exclusiveMinimum"))
            high = node.get("maximum", node.get("exclusiveMaximum"))
            if low is not None or high is not None:
                left = "(" if "exclusiveMinimum" in node else "["
                right = ")" if "exclusiveMaximum" in node else "]"
                text += f" in {left}{_num(low) if low is not None else '-inf'}, " \
                        f"{_num(high) if high is not None else 'inf'}{right}"
            if DECIMALS_KEYWORD in node:
                text += f", at most {node[DECIMALS_KEYWORD]} decimal places"
        elif kind == "string":
            low, high = node.get("minLength"), node.get("maxLength")
            if low is not None or high is not None:
                text += f" of {low or 0}..{high if high is not None else ''} characters"
            if "pattern" in node:
                text += f" matching {node['pattern']}"
        elif kind == "array":
            low, high = node.get("minItems"), node.get("maxItems")
            text = f"list of {low or 0}..{high if high is not None else ''} items"
        elif kind == "object":
            names = list(node.get("properties", {}))
            text = "object with fields " + ", ".join(names) if names else "object"
        elif kind == "boolean":
            text = "true or false"
    return text + (" or null" if nullable else "")


# --- pydantic errors -> issues ---------------------------------------------------------------

def _clean_loc(data: Any, loc: tuple[Any, ...], error_type: str) -> list[str | int]:
    """Keep the part of pydantic's location that names real keys/indexes of the document.

    Union branches add tags such as ``int`` or ``function-before[...]`` to a location; they
    are not fields, so walking stops where the document stops.
    """
    parts: list[str | int] = []
    current = data
    for i, part in enumerate(loc):
        if isinstance(current, dict) and isinstance(part, str):
            if part not in current:
                if i == len(loc) - 1:
                    parts.append(part)  # a missing field: the key is real, the value absent
                break
            parts.append(part)
            current = current[part]
        elif isinstance(current, (list, tuple)) and isinstance(part, int):
            parts.append(part)
            if not 0 <= part < len(current):
                break
            current = current[part]
        else:
            break
    return parts


def _rule_for(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "schema.extra_field"
    if kind == "missing":
        return "schema.missing_field"
    if kind == "finite_number":
        return "schema.not_finite"
    if kind in _RANGE_ERRORS:
        return "schema.range"
    if kind in _LENGTH_ERRORS:
        return "schema.length"
    if kind in ("literal_error", "enum"):
        return "schema.enum"
    if kind == "string_pattern_mismatch":
        return "schema.pattern"
    if kind == "string_unicode":
        return "schema.unicode"
    if kind == "value_error":
        msg = str(error.get("msg", ""))
        if "decimal places" in msg:
            return "schema.decimals"
        if "finite" in msg:
            return "schema.not_finite"
        return "schema.invalid"
    if kind in _TYPE_ERRORS or kind.endswith("_type"):
        return "schema.type"
    return "schema.invalid"


def _article(phrase: str) -> str:
    first = phrase.split(" ", 1)[0]
    if first in ("integer", "object", "array"):
        return "an " + phrase
    if first in ("number", "string", "list", "boolean"):
        return "a " + phrase
    return phrase


def _message(rule: str, parts: list[str | int], value: Any, allowed: str, root: dict[str, Any],
             error: ErrorDetails) -> str:
    field = json_path(parts)
    if rule == "schema.extra_field":
        parent = subschema(root, parts[:-1])
        names = list((_non_null(root, parent)[0] if parent else {}).get("properties", {}))
        guess = difflib.get_close_matches(str(parts[-1]), names, n=1)
        hint = f"; did you mean '{guess[0]}'?" if guess else "; remove it"
        return f"{field} is not a field of gcv.bullet_hell/1{hint}"
    if rule == "schema.missing_field":
        return f"{field} is required but missing (allowed: {allowed})"
    if rule == "schema.type":
        return f"{field} must be {_article(allowed)}, but is {_json_type(value)} {_short(value)}"
    if rule == "schema.range":
        return f"{field} is {_short(value)}, outside the allowed range ({allowed})"
    if rule == "schema.decimals":
        return f"{field} is {_short(value)}, which {str(error['msg']).removeprefix('Value error, ')}"
    if rule == "schema.not_finite":
        return f"{field} must be a finite number, not {_short(value)}"
    if rule == "schema.enum":
        return f"{field} is {_short(value)}, but must be {allowed}"
    if rule == "schema.length":
        return f"{field} has the wrong length ({error['msg'].lower()}); allowed: {allowed}"
    if rule == "schema.pattern":
        return f"{field} is {_short(value)}, which is not allowed ({allowed})"
    if rule == "schema.unicode":
        return f"{field} is not valid Unicode text (a lone surrogate); use plain characters"
    return f"{field}: {error.get('msg', 'invalid')}"


def _value_at(data: Any, parts: list[str | int]) -> Any:
    current = data
    for part in parts:
        try:
            current = current[part]
        except (KeyError, IndexError, TypeError):
            return None
    return current


def pydantic_issues(data: Any, exc: ValidationError, root: dict[str, Any]) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    seen: dict[tuple[str, str], int] = {}
    for error in exc.errors(include_url=False):
        parts = _clean_loc(data, tuple(error["loc"]), error["type"])
        rule = _rule_for(error)
        path = json_path(parts)
        key = (path, rule)
        if error["type"] == "none_required" and any(p == path for p, _ in seen):
            continue  # the null branch of an optional field: the other branch says more
        if key in seen:
            continue
        if rule == "schema.extra_field":
            allowed = describe(root, subschema(root, parts[:-1]))
        else:
            allowed = describe(root, subschema(root, parts))
        value = None if rule == "schema.missing_field" else _value_at(data, parts)
        seen[key] = len(issues)
        issues.append(ValidationIssue.make(rule, path, value, allowed,
                                           _message(rule, parts, value, allowed, root, error)))
    return issues


def bound_issue(bound: BoundViolation, root: dict[str, Any]) -> ValidationIssue:
    """One issue for a broken size bound: the field, the count and the allowed maximum."""
    path = json_path(bound.parts)
    if bound.what == "unknown fields":
        allowed = describe(root, subschema(root, bound.parts))
        message = (f"{path} has {bound.actual} fields the contract does not define; refused before "
                   f"validation (more than {bound.allowed} unknown fields in one object)")
        return ValidationIssue.make("schema.extra_field", path, bound.actual, allowed, message)
    allowed = describe(root, subschema(root, bound.parts))
    message = (f"{path} has {bound.actual} items; at most {bound.allowed} are allowed (refused before "
               "validating the items)")
    return ValidationIssue.make("schema.length", path, bound.actual, allowed, message)


def check_schema(data: Any) -> tuple[LayerResult, BulletHellConfig | None]:
    """Run both schema checks on raw JSON data. Returns the layer result and the model."""
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json")
    validator = config_validator()
    root = validator.schema
    bound = bound_violation(data, root)
    if bound is not None:  # refused before the item-by-item validators see a huge document
        return layer_result("schema", [bound_issue(bound, root)]), None
    try:
        js_errors = schema_errors(data, validator)
    except Exception as exc:  # noqa: BLE001 - a validator crash is reported, never raised
        js_errors = []
        crash: str | None = f"{type(exc).__name__}: {exc}"
    else:
        crash = None
    issues: list[ValidationIssue] = []
    model: BulletHellConfig | None = None
    try:
        model = BulletHellConfig.model_validate(data)
    except ValidationError as exc:
        issues = pydantic_issues(data, exc, root)
    if crash is not None:
        issues.append(ValidationIssue.make(
            "schema.disagreement", "$", None, "the JSON Schema validator completes",
            f"the JSON Schema validator failed on this document ({crash}); this is a bug in GCV"))
    elif model is not None and js_errors:
        for err in js_errors:
            parts = [p for p in err.absolute_path]
            issues.append(ValidationIssue.make(
                "schema.disagreement", json_path(parts), err.instance,
                describe(root, subschema(root, parts)),
                f"the committed JSON Schema rejects this value ({err.message}) but the pydantic "
                "model accepts it; the schema is out of date (run `gcv schema export`) or buggy"))
        model = None
    elif model is None and not js_errors:
        issues.append(ValidationIssue.make(
            "schema.disagreement", "$", None, "both checks reach the same verdict",
            "the committed JSON Schema accepts this document but the pydantic model rejects it; "
            "the schema is out of date (run `gcv schema export`) or buggy"))
    return layer_result("schema", issues), model
