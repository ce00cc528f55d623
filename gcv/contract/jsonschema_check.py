"""JSON Schema side of the contract: building schemas from the models and checking with them.

The committed schemas in ``schemas/`` are what other tools (engines, reviewers' scripts,
a web form) validate with, so they must accept exactly what the pydantic models accept.
Three things make the stock Draft 2020-12 validator and pydantic differ; each is closed here:

* ``x-maxDecimalPlaces`` is our extension keyword (at most six decimal places, counted with
  :func:`gcv.contract.types.decimal_places` exactly as pydantic counts them).
* ``pattern``: Python's ``re`` lets ``$`` match before a trailing newline, ECMA-262 (and
  pydantic's Rust regex) do not, so ``"phase_1\\n"`` would pass one and fail the other.
  Unescaped ``$`` outside a character class is translated to ``\\Z``.
* ``string``: a lone UTF-16 surrogate is not Unicode text; pydantic refuses it, so the
  ``string`` type does too.

Pydantic writes integer bounds of ``Int(...)`` fields as ``ge``/``le`` (the constraint sits
after a ``BeforeValidator``), which JSON Schema ignores; :func:`normalize_schema` rewrites
them to ``minimum``/``maximum`` so the committed schema really enforces them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as JsonSchemaError

from gcv.contract.goal import Goal
from gcv.contract.loading import find_repo_root
from gcv.contract.models import BulletHellConfig
# built without a validator (gcv.contract.schema_form), re-exported here with the checks
from gcv.contract.schema_form import SCHEMA_BASE_URL, SCHEMA_DIALECT, model_schema, normalize_schema
from gcv.contract.types import DECIMALS_KEYWORD, decimal_places

CONFIG_SCHEMA_FILE = "bullet_hell.schema.json"
GOAL_SCHEMA_FILE = "goal.schema.json"


def config_schema() -> dict[str, Any]:
    return model_schema(BulletHellConfig, CONFIG_SCHEMA_FILE)


def goal_schema() -> dict[str, Any]:
    return model_schema(Goal, GOAL_SCHEMA_FILE)


# --- the extended validator ---------------------------------------------------------------

def _max_decimal_places(validator: Any, limit: int, instance: Any, schema: dict[str, Any]) -> Iterator[JsonSchemaError]:
    if isinstance(instance, bool) or not isinstance(instance, (int, float)):
        return
    if isinstance(instance, int):
        return  # an integer literal has no decimal places (and may exceed a double)
    if instance != instance or instance in (float("inf"), float("-inf")):
        yield JsonSchemaError(f"{instance!r} is not a finite number")
        return
    places = decimal_places(instance)
    if places > limit:
        yield JsonSchemaError(f"{instance!r} has {places} decimal places; at most {limit} are allowed")


def ecma_pattern(pattern: str) -> str:
    """Translate an ECMA-262 pattern so that Python's ``re`` gives the same answer.

    Only ``$`` differs for the patterns we use: outside a character class and unescaped,
    it becomes ``\\Z`` (end of input, no trailing-newline exception).
    """
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
        elif ch == "$":
            out.append(r"\Z")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_pattern(pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[JsonSchemaError]:
    if validator.is_type(instance, "string") and not _compiled(pattern).search(instance):
        yield JsonSchemaError(f"{instance!r} does not match {pattern!r}")


def _is_unicode_string(checker: Any, instance: Any) -> bool:
    if not isinstance(instance, str):
        return False
    try:
        instance.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


GcvValidator = jsonschema.validators.extend(
    Draft202012Validator,
    validators={DECIMALS_KEYWORD: _max_decimal_places, "pattern": _pattern},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("string", _is_unicode_string),
)


def schemas_dir() -> Path | None:
    root = find_repo_root()
    if root is None or not (root / "schemas").is_dir():
        return None
    return root / "schemas"


def committed_schema(file_name: str,
                     fallback: Callable[[], dict[str, Any]] | None = None) -> dict[str, Any]:
    """The schema file committed in ``schemas/``; the freshly built one if it is absent.

    Validating with the committed file (not the in-memory model) is deliberate: it is what
    other tools use, and the schema layer reports if it ever disagrees with pydantic.
    """
    directory = schemas_dir()
    if directory is not None and (directory / file_name).is_file():
        schema: dict[str, Any] = json.loads((directory / file_name).read_text(encoding="utf-8"))
        return schema
    if fallback is None:
        raise FileNotFoundError(f"schemas/{file_name} not found and no builder given")
    return fallback()


@lru_cache(maxsize=8)
def validator_for(file_name: str) -> Any:
    builders = {CONFIG_SCHEMA_FILE: config_schema, GOAL_SCHEMA_FILE: goal_schema}
    schema = committed_schema(file_name, builders.get(file_name))
    return GcvValidator(schema)


def config_validator() -> Any:
    """A cached validator for ``gcv.bullet_hell/1`` documents (the committed schema)."""
    return validator_for(CONFIG_SCHEMA_FILE)


def schema_errors(instance: Any, validator: Any | None = None) -> list[JsonSchemaError]:
    """All JSON Schema errors of ``instance``, in a stable order (by path, then message)."""
    v = validator if validator is not None else config_validator()
    errors = list(v.iter_errors(instance))
    return sorted(errors, key=lambda e: ([str(p) for p in e.absolute_path], e.message))


# --- bounds before expensive work ----------------------------------------------------------

MAX_UNKNOWN_FIELDS = 64  # more unknown keys than this in one object is refused before validation


@dataclass(frozen=True)
class BoundViolation:
    """The first size bound a document breaks: where, what is counted, how many, the maximum."""

    parts: list[str | int]
    what: str  # "items" or "unknown fields"
    actual: int
    allowed: int


def _deref(root: dict[str, Any], node: Any) -> Any:
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/") \
            and seen < 32:
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        node, seen = target, seen + 1
    return node


def bound_violation(instance: Any, schema: dict[str, Any]) -> BoundViolation | None:
    """The first array over its ``maxItems``, or object with more than ``MAX_UNKNOWN_FIELDS``
    keys its schema does not define, walking ``instance`` along ``schema``; None if every
    bound holds. (A long string costs the validators little; the input's size cap bounds it.)

    Cheap by construction: an array over its bound is reported without looking inside, so a
    10 MB config with 40,000 phases is refused in milliseconds instead of being validated
    item by item (and an object with 200,000 unknown keys does not become 200,000 errors).
    Only the bounds are checked here; everything else is the validators' job.
    """
    stack: list[tuple[Any, Any, list[str | int]]] = [(instance, schema, [])]
    while stack:
        value, node, parts = stack.pop()
        node = _deref(schema, node)
        if not isinstance(node, dict):
            continue
        for option in node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", []):
            option = _deref(schema, option)
            if isinstance(option, dict) and _is_container(value, option.get("type")):
                stack.append((value, option, parts))
        if isinstance(value, list):
            limit = node.get("maxItems")
            if isinstance(limit, int) and len(value) > limit:
                return BoundViolation(parts, "items", len(value), limit)
            items = node.get("items")
            prefix = node.get("prefixItems") or []
            for i in range(len(value) - 1, -1, -1):
                sub = prefix[i] if i < len(prefix) else items
                if isinstance(sub, dict):
                    stack.append((value[i], sub, parts + [i]))
        elif isinstance(value, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                if node.get("additionalProperties") is False:
                    unknown = sum(1 for key in value if key not in props)
                    if unknown > MAX_UNKNOWN_FIELDS:
                        return BoundViolation(parts, "unknown fields", unknown, MAX_UNKNOWN_FIELDS)
                for key in reversed(list(props)):
                    if key in value:
                        stack.append((value[key], props[key], parts + [key]))
    return None


def _is_container(value: Any, kind: Any) -> bool:
    names = kind if isinstance(kind, list) else [kind]
    return "array" in names and isinstance(value, list) or "object" in names and isinstance(value, dict)
