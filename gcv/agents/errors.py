"""How an agent call can fail without crashing the loop, and the budget a provider must respect.

Providers raise these (never SDK exceptions); each carries the calls already made, so the
workflow still counts and records every model call, retries included.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gcv.agents.base import AgentCall
from gcv.contract.status import Reason, Status


class AgentError(Exception):
    """Base: ``kind`` becomes the workflow's terminal reason, ``calls`` are recorded."""

    kind: str = Reason.AGENT_ERROR
    status: Status = Reason.AGENT_ERROR.status  # the workflow status this failure leads to

    def __init__(self, message: str, calls: list[AgentCall] | None = None) -> None:
        super().__init__(message)
        self.calls = list(calls or [])


class AgentOutputInvalid(AgentError):
    """The model's output stayed malformed after the bounded retries."""

    kind = Reason.AGENT_OUTPUT_INVALID
    status = Reason.AGENT_OUTPUT_INVALID.status


class AgentRefused(AgentError):
    """stop_reason == refusal: a recorded outcome, a person must look."""

    kind = Reason.AGENT_REFUSED
    status = Reason.AGENT_REFUSED.status


class AgentTruncated(AgentError):
    """stop_reason == max_tokens: the answer was cut off."""

    kind = Reason.AGENT_MAX_TOKENS
    status = Reason.AGENT_MAX_TOKENS.status


class AgentUnavailable(AgentError):
    """Rate limit, overload, timeout, connection or 4xx/5xx errors after the SDK's retries."""

    kind = Reason.AGENT_UNAVAILABLE
    status = Reason.AGENT_UNAVAILABLE.status


class AgentBudgetExceeded(AgentError):
    """A retry would cross the model-call or token budget; ``rule`` names which."""

    status = Status.BUDGET_EXHAUSTED

    def __init__(self, message: str, calls: list[AgentCall] | None = None, *,
                 rule: str = Reason.MODEL_CALL_BUDGET) -> None:
        super().__init__(message, calls)
        self.kind = rule


class ReplayMismatch(AgentError):
    """The replay provider was asked something the recording does not hold."""

    kind = Reason.REPLAY_MISMATCH
    status = Reason.REPLAY_MISMATCH.status


@dataclass
class CallBudget:
    """What is left for this agent call (retries included). The workflow sets it."""

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
