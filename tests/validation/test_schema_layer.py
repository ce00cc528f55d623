"""Layer 1, schema (gcv.validation.schema_layer): the committed JSON Schema and pydantic agree,
and each problem gets a stable rule id with the whole allowed range."""

from __future__ import annotations

from typing import Any

import pytest

from gcv.validation.schema_layer import check_schema
from tests.support.evalutil import base


def _doc(**edits: Any) -> dict[str, Any]:
    data = base().model_dump(mode="json")
    for key, value in edits.items():
        if key == "bpw":
            data["phases"][0]["pattern"]["bullets_per_wave"] = value
        elif key == "drop":
            del data[value]
        else:
            data[key] = value
    return data


def test_a_valid_document_passes_and_is_parsed() -> None:
    result, config = check_schema(_doc())
    assert result.status == "passed" and config == base()


@pytest.mark.parametrize("doc,rules", [
    (_doc(bpw=0), ["schema.range"]), (_doc(bpw="many"), ["schema.type"]), (_doc(bpw=3.5), ["schema.type"]),
    (_doc(colour="red"), ["schema.extra_field"]), (_doc(drop="boss"), ["schema.missing_field"]),
    (_doc(phases=[]), ["schema.length"]), (_doc(contract="gcv.other/9"), ["schema.enum"]),
], ids=["range", "type", "fraction", "extra", "missing", "length", "enum"])
def test_each_problem_has_its_rule_id(doc: dict[str, Any], rules: list[str]) -> None:
    result, config = check_schema(doc)
    assert result.status == "failed" and config is None and result.rule_ids() == rules


def test_a_range_issue_names_the_path_and_the_whole_range() -> None:
    result, _ = check_schema(_doc(bpw=0))
    issue = result.errors[0]
    assert issue.path == "$.phases[0].pattern.bullets_per_wave" and issue.actual == 0
    assert "1" in str(issue.allowed) and issue.message


def test_not_a_document_at_all() -> None:
    result, config = check_schema([1, 2])
    assert result.status == "failed" and config is None and result.errors
