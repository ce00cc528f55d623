"""How an agent call fails without crashing the loop (gcv.agents.errors): each failure names the
workflow's terminal reason and status and keeps the calls made; the call budget."""

from __future__ import annotations

import pytest

from gcv.agents.base import AgentCall, CallBudget
from gcv.agents.errors import (AgentBudgetExceeded, AgentError, AgentOutputInvalid, AgentRefused, AgentTruncated,
                               AgentUnavailable, ReplayMismatch)
from gcv.contract.status import Reason, Status

CALL = AgentCall(agent="review", provider="p", model="m", prompt_id="x")


@pytest.mark.parametrize("error,reason", [
    (AgentError, Reason.AGENT_ERROR), (AgentOutputInvalid, Reason.AGENT_OUTPUT_INVALID),
    (AgentRefused, Reason.AGENT_REFUSED), (AgentTruncated, Reason.AGENT_MAX_TOKENS),
    (AgentUnavailable, Reason.AGENT_UNAVAILABLE), (ReplayMismatch, Reason.REPLAY_MISMATCH),
])
def test_each_failure_names_its_reason_and_status(error: type[AgentError], reason: Reason) -> None:
    exc = error("it failed", [CALL, CALL])
    assert exc.kind == reason and exc.status == reason.status and str(exc) == "it failed"
    assert exc.calls == [CALL, CALL] and error("x").calls == []


def test_a_budget_failure_names_which_budget() -> None:
    assert AgentBudgetExceeded("x").kind == Reason.MODEL_CALL_BUDGET
    tokens = AgentBudgetExceeded("x", rule=Reason.TOKEN_BUDGET)
    assert tokens.kind == Reason.TOKEN_BUDGET and tokens.status == Status.BUDGET_EXHAUSTED


def test_the_call_budget() -> None:
    budget = CallBudget(remaining_calls=2, remaining_tokens=1000)
    assert budget.check(600) is None
    budget.spend(600)
    assert budget.check(500) == "token_budget" and budget.check(400) is None
    budget.spend(100)
    assert budget.check(0) == "model_call_budget"
    assert (budget.spent_calls, budget.spent_tokens) == (2, 700)
