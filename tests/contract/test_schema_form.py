"""The committed form of a JSON Schema (gcv.contract.schema_form): pydantic's bounds renamed to
JSON Schema's keywords, empty descriptions dropped, property names left alone."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gcv.contract.schema_form import SCHEMA_BASE_URL, SCHEMA_DIALECT, model_schema, normalize_schema


def test_bounds_become_json_schema_keywords_only_inside_a_schema() -> None:
    node = {"type": "integer", "ge": 1, "le": 9, "gt": 0, "lt": 10, "description": ""}
    assert normalize_schema(node) == {"type": "integer", "minimum": 1, "maximum": 9, "exclusiveMinimum": 0,
                                      "exclusiveMaximum": 10}
    assert normalize_schema({"ge": 1}) == {"ge": 1}  # not a schema node: left as it is
    assert node["ge"] == 1  # pure: the input is not changed


def test_property_names_are_data_not_keywords() -> None:
    node = {"type": "object", "properties": {"ge": {"type": "number", "le": 2}, "description": {"type": "string"}}}
    assert normalize_schema(node)["properties"] == {"ge": {"type": "number", "maximum": 2},
                                                    "description": {"type": "string"}}


class _Doc(BaseModel):
    n: int = Field(default=1, ge=0)


def test_model_schema_names_its_dialect_and_id() -> None:
    schema = model_schema(_Doc, "doc.schema.json")
    assert schema["$schema"] == SCHEMA_DIALECT and schema["$id"] == SCHEMA_BASE_URL + "doc.schema.json"
    assert "required" not in schema  # validation form: a field with a default is optional
    assert schema["properties"]["n"] == {"default": 1, "minimum": 0, "title": "N", "type": "integer"}
