"""The committed form of a model's JSON Schema, without a validator.

Building a schema from a pydantic model needs no JSON Schema library; checking with one does
(``gcv.contract.jsonschema_check``, which re-exports these). Kept apart so that a module that
only declares where its schema comes from (``gcv.workflow.state``) does not import jsonschema,
and ``gcv status`` starts without it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_BASE_URL = "https://gcv.dev/schemas/"

_BOUNDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def normalize_schema(node: Any) -> Any:
    """Pydantic output -> standard JSON Schema (see ``gcv.contract.jsonschema_check``). Pure; returns a copy."""
    if isinstance(node, list):
        return [normalize_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    is_schema = any(k in node for k in ("type", "$ref", "anyOf", "enum", "const"))
    for key, value in node.items():
        if is_schema and key in _BOUNDS and isinstance(value, (int, float)):
            out[_BOUNDS[key]] = value
        elif key == "description" and value == "":
            continue
        elif key == "properties" and isinstance(value, dict):
            # property names are data, not keywords: normalize the values only
            out[key] = {name: normalize_schema(sub) for name, sub in value.items()}
        else:
            out[key] = normalize_schema(value)
    return out


def model_schema(model: type[BaseModel], file_name: str,
                 mode: Literal["validation", "serialization"] = "validation") -> dict[str, Any]:
    """The committed form of a model's JSON Schema: normalized, with ``$schema`` and ``$id``.

    Inputs use the validation form (fields with defaults are optional); outputs that GCV
    writes use the serialization form (every field is always present).
    """
    schema = normalize_schema(model.model_json_schema(mode=mode))
    return {"$schema": SCHEMA_DIALECT, "$id": SCHEMA_BASE_URL + file_name, **schema}
