"""The validation report (gcv.validation.report): JSON-safe echoes of user input, layer results
and the report's views."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from gcv.validation.report import LayerResult, ValidationIssue, ValidationReport, json_safe, layer_result, skipped


def test_json_safe_renders_what_strict_json_cannot_carry() -> None:
    assert json_safe(float("nan")) == "NaN" and json_safe(float("inf")) == "Infinity"
    assert json_safe(float("-inf")) == "-Infinity" and json_safe(1.5) == 1.5
    assert json_safe("\ud800") == "\\ud800"
    assert json_safe({1: (2, None)}) == {"1": [2, None]} and json_safe(object()).startswith("<object")
    deep: list = []  # type: ignore[type-arg]
    node = deep
    for _ in range(40):
        node.append([])
        node = node[0]
    assert "..." in json.dumps(json_safe(deep))


def test_an_issue_made_from_user_input_is_always_json() -> None:
    issue = ValidationIssue.make("schema.range", "$.x", float("nan"), {"max": float("inf")}, "too big")
    assert (issue.actual, issue.allowed) == ("NaN", {"max": "Infinity"})
    json.dumps(issue.model_dump(mode="json"))


def test_layer_results_and_the_report_views() -> None:
    issue = ValidationIssue.make("rules.x", "$.a", 1, 0, "m")
    failed, passed, skip = layer_result("rules", [issue]), layer_result("schema", []), skipped("reference", "no goal")
    assert (failed.status, passed.status, skip.status, skip.reason) == ("failed", "passed", "skipped", "no goal")
    assert failed.rule_ids() == ["rules.x"]
    report = ValidationReport(ok=False, contract="gcv.bullet_hell/1", candidate_hash=None, baseline_hash="b",
                              layers=[passed, skip, failed])
    assert report.layer("rules") is failed and report.errors == [issue] and report.rule_ids() == ["rules.x"]
    assert report.report == "gcv.validation_report/1"
    with pytest.raises(ValidationError):
        LayerResult(layer="style", status="passed")  # type: ignore[arg-type]
