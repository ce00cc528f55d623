"""The console's JSON shapes: the bodies it takes and the answers it gives (the OpenAPI at
``/api/openapi.json`` is made from these).

Answers are the CLI's ``--json`` objects. Each model declares the keys a client may rely on;
``extra="allow"`` passes the rest of the object through unchanged, so the console's answer
stays exactly what ``gcv status WF --json`` prints while the declared part is checked.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel

MAX_REQUEST_CHARS = 4000
MAX_NOTE_CHARS = 4000


class _Body(GcvModel):
    # built at once: FastAPI builds request bodies when it registers the routes anyway, and a
    # deferred model there only makes it warn about the alias it gives the body parameter
    model_config = ConfigDict(extra="forbid", defer_build=False)


class NewWorkflow(_Body):
    request: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS, description="the change, in plain language (EN or ZH)")
    engine: str = Field(default="python-sim", max_length=64, description="an engine `gcv engines` reports available")
    provider: str = Field(default="offline", max_length=64, description="a provider `gcv agents` reports usable")
    seed: int = Field(default=1, ge=0, le=(1 << 63) - 1)
    actor: str | None = Field(default=None, max_length=64, description="loopback console without users only")


class ResubmitBody(_Body):
    request: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS, description="the edited request (gcv resubmit)")
    actor: str | None = Field(default=None, max_length=64, description="loopback console without users only")


class AnswerBody(_Body):
    text: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS, description="the answers, in plain language")
    actor: str | None = Field(default=None, max_length=64)


class ChoiceBody(_Body):
    number: int = Field(ge=1, le=20, description="the trade-off to take (gcv answer WF --choose N)")
    actor: str | None = Field(default=None, max_length=64)


class AuthorizeBody(_Body):
    actor: str | None = Field(default=None, max_length=64, description="required on a loopback console's local API")
    max_runs: int | None = Field(default=None, ge=1, le=50, description="candidate engine runs")
    max_model_calls: int | None = Field(default=None, ge=1, le=100)
    max_tokens: int | None = Field(default=None, ge=0, le=50_000_000)
    deadline: float | None = Field(default=None, ge=1, le=86_400, description="seconds after authorization")


class DecisionBody(_Body):
    decision: str = Field(pattern="^(accept|revise|rollback)$")
    actor: str | None = Field(default=None, max_length=64)
    note: str = Field(default="", max_length=MAX_NOTE_CHARS)
    promote: bool = False


class RollbackBody(_Body):
    to: str | None = Field(default=None, max_length=12, description="v2 or 2 (default: the previous version)")
    actor: str | None = Field(default=None, max_length=64)
    note: str = Field(min_length=1, max_length=MAX_NOTE_CHARS)


# ---------------------------------------------------------------------- answers
class _Out(GcvModel):
    model_config = ConfigDict(extra="allow", defer_build=False)


class Health(_Out):
    ok: bool
    users: bool = Field(description="the console has a users database (--users)")
    workspace: str | None = Field(default=None, description="to a signed-in caller only")
    workflows: int | None = Field(default=None, description="to a signed-in caller only")


class Me(_Out):
    via: str = Field(description="browser | token | local | anonymous")
    user: dict[str, Any] | None


class WorkflowSummary(_Out):
    """``gcv status WF --json``."""

    workflow_id: str
    status: str
    terminal_reason: str | None
    terminal_message: str | None
    runs_used: int
    candidate_runs_used: int
    model_calls_used: int
    tokens_used: int
    decisions: list[str] = Field(description="the decisions a person may take now")
    engine: str
    engines_used: list[str]
    provider: str
    baseline_source: str


class Proposed(WorkflowSummary):
    """A submitted or answered workflow: its summary, the proposal, the CLI's exit code."""

    proposal: dict[str, Any] | None
    exit_code: int


class WorkflowList(_Out):
    workflows: list[dict[str, Any]]
    total: int
    limit: int
    offset: int


class ChosenOut(_Out):
    workflow_id: str
    status: str
    choice: dict[str, Any] | None
    exit_code: int


class AuthorizedOut(_Out):
    workflow_id: str
    status: str
    authorization: dict[str, Any] | None
    exit_code: int


class ResumedOut(_Out):
    workflow_id: str
    status: str
    resumed: bool
    exit_code: int


class DecidedOut(_Out):
    workflow_id: str
    status: str
    human_decision: dict[str, Any]
    evidence: dict[str, Any] = Field(description="the evidence version that records the decision ({} if not written)")
    evidence_written: bool
    exit_code: int


class BaselineList(_Out):
    baselines: list[dict[str, Any]]


class BaselineVersion(_Out):
    """``gcv baselines show V --json``."""

    version: int
    name: str
    active: bool
    config_hash: str
    config: dict[str, Any]
    activations: list[dict[str, Any]]


class RolledBack(_Out):
    from_version: int
    to_version: int
    actor: str
    note: str
    at: float
    exit_code: int


class EngineList(_Out):
    engines: list[dict[str, Any]]


class ProviderList(_Out):
    providers: list[dict[str, Any]]


class ViewerMeta(_Out):
    """What the fight viewer's controls need."""

    tick_hz: int
    sides: dict[str, dict[str, Any]]
    max_tick: int


__all__ = ["NewWorkflow", "ResubmitBody", "AnswerBody", "AuthorizeBody", "DecisionBody", "RollbackBody", "MAX_REQUEST_CHARS",
           "MAX_NOTE_CHARS", "Health", "Me", "WorkflowSummary", "Proposed", "WorkflowList", "AuthorizedOut",
           "ResumedOut", "DecidedOut", "BaselineList", "BaselineVersion", "RolledBack", "EngineList", "ProviderList",
           "ViewerMeta"]
