"""The narrow interfaces every agent provider implements, and the record of each call.

A provider is one small object per agent kind: the Requirement Agent turns a request into
a decision (``propose``), the Quality Review Agent turns evidence into a verdict
(``review``). Providers: ``offline`` (deterministic rules, the embedded default),
``anthropic`` (Claude through the official SDK) and ``replay`` (answers from a recording).
Whatever a provider returns is validated and then checked by deterministic code; a
provider never applies a number or runs an engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.goal import Goal
from gcv.contract.intents import INTENTS, REPAIR_INTENTS, Intent
from gcv.contract.models import BulletHellConfig
from gcv.repair.models import ReviewVerdict

Decision = Literal["accepted", "needs_clarification", "out_of_scope", "blocked", "no_change"]
DECISIONS: tuple[str, ...] = ("accepted", "needs_clarification", "out_of_scope", "blocked", "no_change")



class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid")


class BlockIssue(_Strict):
    """Why a request cannot be done: the field, what was asked, what is allowed."""

    field: str
    asked: Any = None
    allowed: str
    message: str
    rule_id: str = ""


QuestionKind = Literal["phase", "field", "unit", "direction", "value", "pattern", "confirm", "contradiction",
                       "restate", "other"]


class Choice(_Strict):
    """One answer a designer can give with one click: what is shown, and the answer text sent."""

    label: str
    answer: str


class Question(_Strict):
    """A question with its kind and, where they exist, the choices that answer it.

    ``text`` equals the matching entry of ``RequirementDecision.questions`` (the plain list stays
    the contract every reader already parses); the choices are what the CLI numbers and the
    console shows as buttons, each carrying the answer text ``gcv answer`` sends.
    """

    kind: QuestionKind
    text: str
    choices: list[Choice] = Field(default_factory=list)


class RequirementDecision(_Strict):
    decision: Decision
    goal: Goal | None = None
    candidate: BulletHellConfig | None = None
    questions: list[str] = Field(default_factory=list)
    # typed questions (kind and choices), in the order of ``questions``; left out of the JSON when
    # empty, so recorded decisions keep their bytes and hashes
    asks: list[Question] = Field(default_factory=list, exclude_if=lambda v: not v)
    issues: list[BlockIssue] = Field(default_factory=list)
    rationale: str = ""


class Usage(_Strict):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def total(self) -> int:
        return (self.input_tokens + self.output_tokens + self.cache_creation_input_tokens
                + self.cache_read_input_tokens)


class AgentCall(_Strict):
    """One recorded model (or rule-engine) call: enough to audit it and to replay it."""

    agent: Literal["requirement", "review"]
    provider: str
    model: str
    prompt_id: str
    prompt_sha256: str = ""
    request_bytes: int = 0
    latency_ms: int = 0
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str | None = None
    retries: int = 0
    raw_output: str = ""
    error_type: str | None = None
    error: str | None = None


@dataclass
class CallBudget:
    """What is left for this agent call (retries included). The workflow hands it over in ``CallLimits``."""

    remaining_calls: int
    remaining_tokens: int
    spent_calls: int = field(default=0)
    spent_tokens: int = field(default=0)

    def check(self, estimate: int) -> str | None:
        """None if one more call of about ``estimate`` tokens fits; else the rule it breaks."""
        if self.spent_calls >= self.remaining_calls:
            return "model_call_budget"
        if self.spent_tokens + estimate > self.remaining_tokens:
            return "token_budget"
        return None

    def spend(self, tokens: int) -> None:
        self.spent_calls += 1
        self.spent_tokens += tokens


@dataclass(frozen=True)
class CallLimits:
    """What the workflow allows one agent step, passed to the provider with the call: the calls
    and tokens left (``budget``, retries included) and how many times malformed output may be
    retried (``max_retries``; None: the provider's own setting). A provider that makes exactly
    one call (offline, replay) takes them and needs neither."""

    budget: CallBudget | None = None
    max_retries: int | None = None


class RequirementProvider(Protocol):
    name: str

    def propose(self, request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                limits: CallLimits | None = None) -> tuple[RequirementDecision, list[AgentCall]]:
        """Decide what the request asks, refined by the designer's answers to earlier questions
        (``follow_ups``, in order), within ``limits`` (the workflow's budgets for this step).
        May return several calls (retries)."""


class ReviewProvider(Protocol):
    name: str

    def review(self, evidence: dict[str, Any], allowed_intents: list[str], *,
               limits: CallLimits | None = None) -> tuple[ReviewVerdict, list[AgentCall]]:
        """Pick accept / repair-with-one-intent / human_review from the evidence, within ``limits``."""


__all__ = ["AgentCall", "BlockIssue", "CallBudget", "CallLimits", "Choice", "DECISIONS", "Question", "QuestionKind", "Decision", "INTENTS", "Intent", "REPAIR_INTENTS",
           "RequirementDecision", "RequirementProvider", "ReviewProvider", "ReviewVerdict", "Usage"]
