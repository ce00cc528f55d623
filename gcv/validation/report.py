"""The validation report: what every layer found, in a form both people and machines read.

An issue always names a stable ``rule_id`` (tables in each layer's module docstring), the
JSON path of the offending field, the value found (``actual``), what is allowed, and one
sentence a designer can act on. ``detail`` carries structured extras (ticks, slot indices)
for tools such as the repair calculator.
"""

from __future__ import annotations

import math
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from gcv.contract.base import GcvModel

REPORT_ID: Final = "gcv.validation_report/1"
LayerName = Literal["schema", "reference", "rules", "safety"]
LAYERS: tuple[str, ...] = ("schema", "reference", "rules", "safety")
LayerStatus = Literal["passed", "failed", "skipped"]


def json_safe(value: Any, _depth: int = 0) -> Any:
    """A JSON-encodable copy of ``value`` for ``actual``: no NaN/Infinity, no lone surrogates.

    Reports echo user input, and user input (from code rather than a file) can hold values
    that strict JSON cannot carry; they are rendered as strings instead of breaking output.
    """
    if _depth > 32:
        return "..."
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {str(json_safe(k, _depth + 1)): json_safe(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, _depth + 1) for v in value]
    if isinstance(value, BaseModel):
        return json_safe(value.model_dump(mode="json"), _depth + 1)
    return repr(value)


class _Frozen(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_serialization_defaults_required=True)


class ValidationIssue(_Frozen):
    rule_id: str = Field(description="stable rule identifier, e.g. rules.trigger_order")
    path: str = Field(description="JSON path of the offending field, e.g. $.phases[1].pattern")
    actual: Any = Field(default=None, description="the value found (null when absent)")
    allowed: Any = Field(default=None, description="what is allowed: a range, a set or a sentence")
    message: str = Field(description="one sentence a designer can act on")
    detail: dict[str, Any] | None = Field(default=None, description="structured extras")

    @classmethod
    def make(cls, rule_id: str, path: str, actual: Any, allowed: Any, message: str,
             detail: dict[str, Any] | None = None) -> "ValidationIssue":
        return cls(rule_id=rule_id, path=path, actual=json_safe(actual), allowed=json_safe(allowed),
                   message=message, detail=json_safe(detail) if detail is not None else None)


class LayerResult(_Frozen):
    layer: LayerName
    status: LayerStatus
    reason: str | None = Field(default=None, description="why the layer was skipped")
    errors: list[ValidationIssue] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="what was not checked and why")

    def rule_ids(self) -> list[str]:
        return [issue.rule_id for issue in self.errors]


class ValidationReport(_Frozen):
    report: Literal["gcv.validation_report/1"] = REPORT_ID
    ok: bool
    contract: str
    candidate_hash: str | None = Field(description="config_hash of the candidate (null if it has none)")
    baseline_hash: str
    goal_given: bool = False
    layers: list[LayerResult]

    def layer(self, name: str) -> LayerResult:
        return next(layer for layer in self.layers if layer.layer == name)

    @property
    def errors(self) -> list[ValidationIssue]:
        return [issue for layer in self.layers for issue in layer.errors]

    def rule_ids(self) -> list[str]:
        return [issue.rule_id for issue in self.errors]


def layer_result(layer: str, errors: list[ValidationIssue], notes: list[str] | None = None) -> LayerResult:
    return LayerResult(layer=layer, status="failed" if errors else "passed",  # type: ignore[arg-type]
                       errors=errors, notes=notes or [])


def skipped(layer: str, reason: str) -> LayerResult:
    return LayerResult(layer=layer, status="skipped", reason=reason)  # type: ignore[arg-type]
