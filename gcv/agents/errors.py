"""How an agent call can fail without crashing the loop (the budget a provider respects is
``gcv.agents.base.CallLimits``).

Providers raise these (never SDK exceptions); each carries the calls already made, so the
workflow still counts and records every model call, retries included.
"""

from __future__ import annotations

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
