"""The agents' records (gcv.agents.base): decisions, questions, calls and usage, strict."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gcv.agents.base import DECISIONS, AgentCall, BlockIssue, Question, RequirementDecision, Usage


def test_usage_totals_every_kind_of_token() -> None:
    assert Usage(input_tokens=10, output_tokens=5, cache_creation_input_tokens=2, cache_read_input_tokens=3).total == 20
    assert Usage().total == 0


def test_a_decision_without_typed_questions_keeps_its_bytes() -> None:
    plain = RequirementDecision(decision="needs_clarification", questions=["which phase?"])
    assert "asks" not in plain.model_dump()  # recorded decisions keep their hashes
    typed = plain.model_copy(update={"asks": [Question(kind="phase", text="which phase?")]})
    assert typed.model_dump()["asks"][0] == {"kind": "phase", "text": "which phase?", "choices": []}
    assert set(DECISIONS) == {"accepted", "needs_clarification", "out_of_scope", "blocked", "no_change"}


def test_records_are_strict() -> None:
    with pytest.raises(ValidationError):
        RequirementDecision(decision="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        AgentCall(agent="planner", provider="p", model="m", prompt_id="x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        BlockIssue(field="$.boss", allowed="x", message="m", colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Question(kind="mood", text="?")  # type: ignore[arg-type]
    call = AgentCall(agent="review", provider="p", model="m", prompt_id="x")
    assert (call.retries, call.usage.total, call.error_type) == (0, 0, None)
