"""Schemas strict tool use accepts (gcv.agents.strict_schema): every property required, no extra
ones, bounds moved into words, nullable enums as one enum."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gcv.agents.base import ReviewVerdict
from gcv.agents.strict_schema import strict_problems, strict_schema, union_parameters


def test_pydantics_schema_is_not_strict_and_the_rewrite_is() -> None:
    assert "$: every property must be required" in strict_problems(ReviewVerdict.model_json_schema())
    schema = strict_schema(ReviewVerdict)
    assert strict_problems(schema) == []
    assert schema["additionalProperties"] is False and sorted(schema["required"]) == sorted(schema["properties"])
    assert schema["properties"]["intent"]["enum"][-1] is None  # a nullable enum: one enum with null
    assert union_parameters(schema) == 1  # only target_phase_id is an anyOf


class _Bounded(BaseModel):
    count: int = Field(ge=1, le=64, description="how many")
    note: str = ""
    internal: str = ""


def test_bounds_go_into_words_and_omitted_fields_are_left_out() -> None:
    schema = strict_schema(_Bounded, omit={"$": {"internal"}})
    count = schema["properties"]["count"]
    assert "minimum" not in count and "maximum" not in count and "how many" in count["description"]
    assert "1" in count["description"] and "64" in count["description"]
    assert "internal" not in schema["properties"] and schema["required"] == ["count", "note"]
    assert strict_problems(schema) == []


def test_strict_problems_names_each_problem() -> None:
    problems = strict_problems({"type": "object", "properties": {"a": {"type": "string", "minLength": 2}},
                                "required": []})
    assert "$: additionalProperties must be false" in problems and "$: every property must be required" in problems
    assert "$.properties.a: unsupported keyword 'minLength'" in problems
    assert strict_problems({"type": "array", "minItems": 2}) == ["$: minItems must be 0 or 1"]
