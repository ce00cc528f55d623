"""What the use cases return: typed results, so an interface prints or serializes them
without knowing how they were made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gcv.contract.status import Status
from gcv.workflow.state import Authorization, Budgets, HumanDecision, WorkflowState

EvidenceFailureKind = Literal["damaged", "environment", "internal"]


@dataclass(frozen=True)
class EvidenceFailure:
    """Why the evidence was not written. ``damaged``: a record of the workflow is missing or
    damaged (the CLI's exit 2); ``environment``: the disk or the export refused (exit 70);
    ``internal``: a bug in GCV (exit 70). The workflow's own result stands either way."""

    kind: EvidenceFailureKind
    message: str


@dataclass(frozen=True)
class EvidenceOutcome:
    """The evidence version a use case wrote (report and bundle), or why none was written.

    ``skipped``: nothing to write yet (the workflow waits for authorization or is running)."""

    paths: dict[str, str] = field(default_factory=dict)
    version: int | None = None
    failure: EvidenceFailure | None = None
    skipped: bool = False

    @property
    def written(self) -> bool:
        return self.failure is None and not self.skipped

    def as_dict(self) -> dict[str, Any]:
        """``{"report", "bundle", ..., "version"}`` when written, else ``{}`` (the JSON both doors print)."""
        return {**self.paths, "version": self.version} if self.written else {}


@dataclass(frozen=True)
class Outcome:
    """A use case's result: the workflow's state once it was done."""

    state: WorkflowState

    @property
    def wf_id(self) -> str:
        return self.state.id

    @property
    def status(self) -> Status:
        return self.state.status


@dataclass(frozen=True)
class Submitted(Outcome):
    """A new workflow, proposed as far as the loop goes without a person."""

    baseline_source: str = ""


@dataclass(frozen=True)
class Resubmitted(Submitted):
    """A new workflow that edits and resubmits ``old`` (its state records ``resubmitted_from``)."""

    old: WorkflowState | None = None


@dataclass(frozen=True)
class Rerun(Outcome):
    """A ``budget_exhausted`` workflow's request, resubmitted and authorized with ``budgets``."""

    old: WorkflowState | None = None
    budgets: Budgets | None = None


@dataclass(frozen=True)
class Answered(Outcome):
    """The answers are recorded and the same request went back to the requirement agent."""

    text: str = ""


@dataclass(frozen=True)
class Chosen(Outcome):
    """The designer picked a trade-off; its candidate ran next."""

    number: int = 0


@dataclass(frozen=True)
class Authorized(Outcome):
    """The runs are authorized (nothing ran yet)."""

    @property
    def authorization(self) -> Authorization:
        assert self.state.authorization is not None
        return self.state.authorization


@dataclass(frozen=True)
class Resumed(Outcome):
    """The loop ran until the workflow waits for a person or is final."""


@dataclass(frozen=True)
class Decided(Outcome):
    """The human decision is recorded, and the evidence version that records it."""

    evidence: EvidenceOutcome = field(default_factory=EvidenceOutcome)

    @property
    def decision(self) -> HumanDecision:
        assert self.state.human_decision is not None
        return self.state.human_decision


@dataclass(frozen=True)
class WorkflowComparison:
    """Two workflows side by side (``gcv.service.compare``).

    ``result``: what ``gcv compare A B --json`` prints; ``sides``: each workflow's records a
    page draws from (configs, telemetry, safe-area curves); ``own_changes``: each workflow's
    own change, its baseline -> its candidate (``path``, ``before``, ``after``, ``percent``)."""

    result: dict[str, Any]
    sides: tuple[dict[str, Any], dict[str, Any]]
    own_changes: tuple[list[dict[str, Any]], list[dict[str, Any]]]


@dataclass(frozen=True)
class BatchComparison:
    """Two batch results side by side (``gcv.service.compare``).

    ``result``: what ``gcv compare A B --json`` prints; ``sides``: each batch as read (``path``,
    ``summary``, and for a batch of the workspace its ``listing``); ``config_changes``: per
    config label in both whose config changed, the field diff A's config -> B's (``path``,
    ``kind``, ``a``, ``b``, ``percent``), or why it cannot be read (``config_unknown``)."""

    result: dict[str, Any]
    sides: tuple[dict[str, Any], dict[str, Any]]
    config_changes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    config_unknown: dict[str, str] = field(default_factory=dict)


__all__ = ["EvidenceFailure", "EvidenceOutcome", "Outcome", "Submitted", "Answered", "Authorized", "Resumed",
           "Decided", "EvidenceFailureKind", "Resubmitted", "Rerun", "WorkflowComparison", "BatchComparison"]
