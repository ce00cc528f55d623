"""Validation: the schema, reference, rules and safety layers, and the report they produce.

Imports only point down (``gcv.contract``, ``gcv.sim``). Entry point: :func:`validate`.
"""

from gcv.validation.diff import FieldChange, diff_configs
from gcv.validation.report import LayerResult, ValidationIssue, ValidationReport
from gcv.validation.validate import validate

__all__ = ["FieldChange", "LayerResult", "ValidationIssue", "ValidationReport", "diff_configs",
           "validate"]
