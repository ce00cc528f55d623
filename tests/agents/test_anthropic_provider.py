"""Claude as the two agents, against a local fake Messages API (no network).

The SDK talks HTTP to ``tests/support/fake_anthropic.py`` on 127.0.0.1; each test scripts the
replies and asserts exactly what was sent, how many calls and retries were made, what was
counted against the budgets and how the workflow ended.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import typer
from typer.testing import CliRunner

from gcv.agents.anthropic_provider import (DEFAULT_MODEL, REQUIREMENT_TOOL, REVIEW_TOOL, AnthropicRequirementProvider,
                                           AnthropicReviewProvider, AnthropicSettings, ProviderConfigError,
                                           decode_requirement_output, estimate_tokens, requirement_prompt,
                                           requirement_tool, review_tool)
from gcv.agents.base import CallBudget, CallLimits, RequirementDecision
from gcv.agents.errors import AgentOutputInvalid, AgentRefused, AgentTruncated, AgentUnavailable, ReplayMismatch
from gcv.agents.offline_requirement import decide
from gcv.agents.requirement import RequirementAgent, get_requirement_provider
from gcv.agents.review import get_review_provider
from gcv.agents.strict_schema import strict_problems, union_parameters
from gcv.cli.commands import agents_cmds
from gcv.contract.canonical import sha256_hex
from gcv.contract.loading import load_config
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings, WorkflowState
from gcv.workflow.guardrails import Budgets
from gcv.store.catalog import Workspace
from tests.conftest import BASELINE_PATH, NetworkDisabledError
from tests.support.fake_anthropic import TEST_KEY, FakeAnthropic, Reply, fake_anthropic, usage, wire_form  # noqa: F401 - fixture
from tests.support.simutil import Clock

BASELINE = load_config(BASELINE_PATH)
EASY = "make phase 1 bullets 20% slower"  # accepted, passes in round 1
REPAIR = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the "
          "low FPS at 55 or above")  # accepted, player_hits fails in round 1, one speed repair passes


def answer(text: str) -> dict[str, Any]:
    """The tool input a good model would send: the offline parser's decision, in wire form."""
    return wire_form(decide(text, BASELINE))


def verdict(kind: str, intent: str | None = None, phase: str | None = None) -> dict[str, Any]:
    return {"verdict": kind, "intent": intent, "target_phase_id": phase,
            "reason": f"{kind} {intent or ''}".strip(), "evidence_refs": ["evaluation.checks"]}


def run_engine(root: Path, request: str, *, provider: str = "anthropic",
               budgets: Budgets | None = None) -> tuple[WorkflowLoop, dict[str, Any]]:
    engine = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(engine.ws, 0.0)
    wf = engine.create(request, baseline, Settings(provider=provider, budgets=budgets or Budgets()),
                       baseline_source=source)
    state = engine.advance(wf)
    if state.status == "awaiting_authorization":
        engine.authorize(wf, actor="tester")
        state = engine.advance(wf)
    return engine, state


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in body["messages"] if m["role"] == "user" for b in m["content"] if b["type"] == "tool_result"]


# --------------------------------------------------------------------------------------------
# the tool schemas
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tool", [requirement_tool(), review_tool()], ids=["requirement", "review"])
def test_tool_schemas_are_strict_mode_schemas(tool: dict[str, Any]) -> None:
    assert tool["strict"] is True
    assert strict_problems(tool["input_schema"]) == []
    assert union_parameters(tool["input_schema"]) <= 16
    text = json.dumps(tool["input_schema"])
    for keyword in ('"minimum"', '"maximum"', '"maxLength"', '"pattern": "', '"default"', '"x-maxDecimalPlaces"'):
        assert keyword not in text
    assert "range 1..64" in text or tool["name"] == REVIEW_TOOL  # bounds live on in the descriptions


@pytest.mark.parametrize("request_text", [EASY, REPAIR, "make it better", "change the music",
                                          "make the boss health 9000", "keep everything as is"])
def test_requirement_schema_expresses_every_decision(request_text: str) -> None:
    data = answer(request_text)
    jsonschema.Draft202012Validator(requirement_tool()["input_schema"]).validate(data)
    raw = json.dumps([{"type": "tool_use", "id": "t1", "name": REQUIREMENT_TOOL, "input": data}])
    assert decode_requirement_output(raw).decision == decide(request_text, BASELINE).decision


def test_requirement_schema_refuses_extra_fields() -> None:
    data = {**answer(EASY), "confidence": 0.9}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(requirement_tool()["input_schema"]).validate(data)


# --------------------------------------------------------------------------------------------
# the Requirement Agent
# --------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_valid_answer_one_call_recorded_in_full(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY), usage_=usage(1200, 300, 40, 60)))
    provider = get_requirement_provider("anthropic")
    budget = CallBudget(remaining_calls=4, remaining_tokens=200_000)
    decision, calls = RequirementAgent(provider).propose(EASY, BASELINE, limits=CallLimits(budget=budget))

    assert decision.decision == "accepted" and decision.candidate is not None
    assert len(fake_anthropic.requests) == 1 and len(calls) == 1
    call = calls[0]
    _, system, user = requirement_prompt(EASY, BASELINE)
    assert call.agent == "requirement" and call.provider == "anthropic" and call.model == DEFAULT_MODEL
    assert call.prompt_id.startswith("requirement/claude-v1@")
    assert call.prompt_sha256 == sha256_hex(f"{system}\n\n{user}".encode())
    assert call.usage.model_dump() == {"input_tokens": 1200, "output_tokens": 300,
                                       "cache_creation_input_tokens": 40, "cache_read_input_tokens": 60}
    assert call.stop_reason == "tool_use" and call.retries == 0 and call.error_type is None
    assert json.loads(call.raw_output)[0]["input"] == answer(EASY)
    assert budget.spent_calls == 1 and budget.spent_tokens == 1600

    sent = fake_anthropic.requests[0]
    assert sent.path == "/v1/messages" and call.request_bytes > len(system)
    assert sent.headers["authorization"] == f"Bearer {TEST_KEY}" and "anthropic-version" in sent.headers
    body = sent.body
    assert body["model"] == DEFAULT_MODEL and body["max_tokens"] == 8192
    assert body["tools"] == [requirement_tool()]
    assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}  # 5.5 rejects forced
    assert body["system"] == [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": user}]}]
    assert "<request>\nmake phase 1 bullets 20% slower\n</request>" == user
    for needle in ("phases[*].pattern.*", "targets.*", "bullets_per_wave: integer 1..64", '"phase_id": "phase_2"'):
        assert needle in system


@pytest.mark.parametrize("model,env,expected", [
    ("claude-sonnet-4-6", None, {"type": "tool", "name": REQUIREMENT_TOOL, "disable_parallel_tool_use": True}),
    ("claude-haiku-4-5", None, {"type": "tool", "name": REQUIREMENT_TOOL, "disable_parallel_tool_use": True}),
    ("claude-opus-5-5", None, {"type": "auto", "disable_parallel_tool_use": True}),
    ("claude-sonnet-5-5", "tool", {"type": "tool", "name": REQUIREMENT_TOOL, "disable_parallel_tool_use": True}),
    ("claude-sonnet-4-6", "auto", {"type": "auto", "disable_parallel_tool_use": True}),
])
@pytest.mark.slow
def test_forced_tool_choice_where_the_model_takes_it(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch,
                                                     model: str, env: str | None, expected: dict[str, Any]) -> None:
    monkeypatch.setenv("GCV_ANTHROPIC_MODEL", model)
    if env:
        monkeypatch.setenv("GCV_ANTHROPIC_TOOL_CHOICE", env)
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert fake_anthropic.requests[0].body["tool_choice"] == expected
    assert fake_anthropic.requests[0].body["model"] == model


def test_malformed_then_valid_feeds_the_error_back_paired_with_the_tool_use(fake_anthropic: FakeAnthropic) -> None:
    bad = answer(EASY)
    bad["candidate"]["phases"][0]["pattern"]["bullets_per_wave"] = "lots"
    first = fake_anthropic.tool(REQUIREMENT_TOOL, bad, usage_=usage(1000, 400))
    fake_anthropic.reply(first, fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY), usage_=usage(1500, 380)))
    provider = AnthropicRequirementProvider()
    budget = CallBudget(remaining_calls=4, remaining_tokens=200_000)
    decision, calls = provider.propose(EASY, BASELINE, limits=CallLimits(budget=budget))

    assert decision.decision == "accepted"
    assert len(fake_anthropic.requests) == 2 and len(calls) == 2
    assert [c.error_type for c in calls] == ["output_invalid", None]
    assert "candidate.phases.0.pattern.bullets_per_wave" in calls[0].error
    assert budget.spent_calls == 2 and budget.spent_tokens == 1400 + 1880
    retry = fake_anthropic.requests[1].body
    first_content = first.body["content"]
    assert retry["messages"][0] == fake_anthropic.requests[0].body["messages"][0]
    assert retry["messages"][1] == {"role": "assistant", "content": first_content}
    results = tool_results(retry)
    assert len(results) == 1 and results[0]["tool_use_id"] == first_content[0]["id"]
    assert results[0]["is_error"] is True
    assert "candidate.phases.0.pattern.bullets_per_wave" in results[0]["content"]
    assert retry["messages"][2] == {"role": "user", "content": results}
    assert calls[0].prompt_sha256 == calls[1].prompt_sha256 and calls[1].request_bytes > calls[0].request_bytes


def test_every_tool_use_gets_its_result_and_thinking_goes_back_unchanged(fake_anthropic: FakeAnthropic) -> None:
    content = [{"type": "thinking", "thinking": "phase 1 is the ring", "signature": "sig-123"},
               {"type": "tool_use", "id": "toolu_a", "name": REQUIREMENT_TOOL, "input": answer(EASY)},
               {"type": "tool_use", "id": "toolu_b", "name": REQUIREMENT_TOOL, "input": answer(EASY)}]
    fake_anthropic.reply(fake_anthropic.message(content), fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    decision, calls = AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert decision.decision == "accepted" and len(calls) == 2
    assert "called tools 2 times" in calls[0].error
    retry = fake_anthropic.requests[1].body
    assert retry["messages"][1] == {"role": "assistant", "content": content}
    results = tool_results(retry)
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b"]
    assert all(r["is_error"] for r in results) and "called tools 2 times" in results[0]["content"]


def test_extra_fields_are_rejected_and_retried(fake_anthropic: FakeAnthropic) -> None:
    extra = {**answer(EASY), "confidence": 0.9}
    extra["goal"]["priority"] = "high"
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, extra),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    decision, calls = AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert decision.decision == "accepted" and len(calls) == 2
    assert "confidence: this field does not exist" in calls[0].error
    assert "goal.priority: this field does not exist" in calls[0].error
    assert "confidence" in tool_results(fake_anthropic.requests[1].body)[0]["content"]


def test_still_invalid_after_the_retries_is_agent_output_invalid(fake_anthropic: FakeAnthropic) -> None:
    accepted_without_candidate = {**answer(EASY), "candidate": None}
    fake_anthropic.reply(*[fake_anthropic.tool(REQUIREMENT_TOOL, accepted_without_candidate) for _ in range(2)])
    with pytest.raises(AgentOutputInvalid) as info:
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert len(info.value.calls) == 2 and len(fake_anthropic.requests) == 2
    assert all(c.error_type == "output_invalid" for c in info.value.calls)
    assert "COMPLETE candidate" in str(info.value) and info.value.kind == "agent_output_invalid"


@pytest.mark.parametrize("setting,expected_calls", [("env0", 1), ("arg2", 3)])
def test_retry_count_comes_from_the_environment_or_the_constructor(
        fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, setting: str, expected_calls: int) -> None:
    monkeypatch.setenv("GCV_AGENT_MAX_RETRIES", "0")
    fake_anthropic.reply(*[fake_anthropic.message([{"type": "text", "text": "Sure! Phase 1 slower."}],
                                                  stop_reason="end_turn") for _ in range(3)])
    provider = (AnthropicRequirementProvider() if setting == "env0"
                else AnthropicRequirementProvider(max_agent_retries=2))
    with pytest.raises(AgentOutputInvalid) as info:
        provider.propose(EASY, BASELINE)
    assert len(info.value.calls) == expected_calls == len(fake_anthropic.requests)
    assert "did not call the tool" in info.value.calls[0].error
    if expected_calls > 1:  # no tool_use to pair with: the feedback is plain text
        feedback = fake_anthropic.requests[1].body["messages"][-1]
        assert feedback["role"] == "user" and feedback["content"][0]["type"] == "text"
        assert tool_results(fake_anthropic.requests[1].body) == []


def test_schema_valid_candidate_that_breaks_a_rule_is_blocked_without_retry(fake_anthropic: FakeAnthropic) -> None:
    data = answer("make the last phase a bidirectional petal with 3 layers")
    data["candidate"]["phases"][2]["pattern"]["layer_count"] = 1  # a petal needs 2 layers
    data["goal"]["edits"][0]["value"] = 1.0  # ... and the goal says so too: the candidate is the goal's
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, data))
    decision, calls = RequirementAgent(AnthropicRequirementProvider()).propose(
        "make the last phase a bidirectional petal with 3 layers", BASELINE)
    assert decision.decision == "blocked" and len(calls) == 1 and len(fake_anthropic.requests) == 1
    assert calls[0].error_type is None  # a valid answer of a bad config: nothing to retry
    # the goal itself is out of range: blocked with the range (the calculator refuses a 1-layer petal)
    assert any(i.field == "$.phases[2].pattern.layer_count" and "petal" in i.allowed for i in decision.issues)


def test_refusal_is_a_recorded_outcome(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.reply(fake_anthropic.message([{"type": "text", "text": "I can't help with that."}],
                                                stop_reason="refusal", usage_=usage(900, 12)))
    provider = AnthropicRequirementProvider()
    budget = CallBudget(remaining_calls=4, remaining_tokens=200_000)
    with pytest.raises(AgentRefused) as info:
        provider.propose(EASY, BASELINE, limits=CallLimits(budget=budget))
    (call,) = info.value.calls
    assert call.stop_reason == "refusal" and call.error_type == "refusal" and "can't help" in call.error
    assert info.value.kind == "agent_refused" and info.value.status == "blocked"
    assert len(fake_anthropic.requests) == 1 and budget.spent_tokens == 912


def test_max_tokens_is_truncated(fake_anthropic: FakeAnthropic) -> None:
    partial = [{"type": "tool_use", "id": "toolu_cut", "name": REQUIREMENT_TOOL, "input": {"decision": "accepted"}}]
    fake_anthropic.reply(fake_anthropic.message(partial, stop_reason="max_tokens", usage_=usage(900, 8192)))
    with pytest.raises(AgentTruncated) as info:
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    (call,) = info.value.calls
    assert call.stop_reason == "max_tokens" and call.error_type == "max_tokens"
    assert info.value.kind == "agent_max_tokens" and "GCV_ANTHROPIC_MAX_TOKENS" in str(info.value)
    assert len(fake_anthropic.requests) == 1


# --------------------------------------------------------------------------------------------
# transport: the SDK's retries, errors and timeouts
# --------------------------------------------------------------------------------------------

def test_rate_limit_then_success_is_one_call_with_one_sdk_retry(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.reply(fake_anthropic.error(429, "rate_limit_error", "slow down"),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    started = time.monotonic()
    decision, calls = AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert time.monotonic() - started < 5
    assert decision.decision == "accepted"
    assert len(fake_anthropic.requests) == 2 and len(calls) == 1 and calls[0].retries == 1
    assert [r.headers["x-stainless-retry-count"] for r in fake_anthropic.requests] == ["0", "1"]


@pytest.mark.parametrize("status,kind,error_type,words", [
    (529, "overloaded_error", "OverloadedError", "overloaded (529)"),
    (500, "api_error", "InternalServerError", "server error (500)"),
    (429, "rate_limit_error", "RateLimitError", "rate limited (429)"),
])
def test_server_errors_after_the_sdk_retries_are_unavailable(
        fake_anthropic: FakeAnthropic, status: int, kind: str, error_type: str, words: str) -> None:
    fake_anthropic.reply(*[fake_anthropic.error(status, kind, "try later") for _ in range(2)])
    with pytest.raises(AgentUnavailable) as info:
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert len(fake_anthropic.requests) == 2  # the first try and GCV_ANTHROPIC_MAX_RETRIES=1 retry
    (call,) = info.value.calls
    assert call.error_type == error_type and call.retries == 1 and call.usage.total == 0
    assert words in str(info.value) and "after 2 attempts" in str(info.value)
    assert info.value.kind == "agent_unavailable" and info.value.status == "failed"


def _rate_limited(fake: FakeAnthropic, headers: dict[str, str]) -> Reply:
    reply = fake.error(429, "rate_limit_error", "slow down", retry_after_ms=None)
    reply.headers.update(headers)
    return reply


@pytest.mark.parametrize("headers", [{"retry-after": "75"}, {"retry-after-ms": "75000"},
                                     {"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"}])
def test_a_long_retry_after_is_capped(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch,
                                      headers: dict[str, str]) -> None:
    """The pinned SDK waited 77 s on ``retry-after: 75`` (it obeys any value); GCV waits at
    most GCV_ANTHROPIC_RETRY_WAIT_CAP (10 s by default; 0.3 s here)."""
    monkeypatch.setenv("GCV_ANTHROPIC_RETRY_WAIT_CAP", "0.3")
    fake_anthropic.reply(_rate_limited(fake_anthropic, headers), fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    started = time.monotonic()
    decision, calls = AnthropicRequirementProvider().propose(EASY, BASELINE)
    elapsed = time.monotonic() - started
    assert decision.decision == "accepted" and calls[0].retries == 1
    assert 0.3 <= elapsed < 5, elapsed


def test_a_retry_that_would_pass_the_exchange_deadline_is_not_made(fake_anthropic: FakeAnthropic,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_AGENT_CALL_DEADLINE", "1")
    fake_anthropic.reply(_rate_limited(fake_anthropic, {"retry-after": "5"}),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    started = time.monotonic()
    with pytest.raises(AgentUnavailable) as info:
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert time.monotonic() - started < 1
    assert len(fake_anthropic.requests) == 1
    assert "rate limited (429)" in str(info.value) and "GCV_AGENT_CALL_DEADLINE" in str(info.value)


def test_each_attempt_ends_by_the_exchange_deadline(fake_anthropic: FakeAnthropic,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A per-attempt timeout of 10 s, one retry, and a deadline of 1 s: the exchange ends near 1 s."""
    monkeypatch.setenv("GCV_AGENT_CALL_DEADLINE", "1")
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY), delay=5),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY), delay=5))
    started = time.monotonic()
    with pytest.raises(AgentUnavailable):
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert time.monotonic() - started < 3


def test_x_should_retry_false_is_obeyed(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.reply(_rate_limited(fake_anthropic, {"x-should-retry": "false"}),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    with pytest.raises(AgentUnavailable):
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert len(fake_anthropic.requests) == 1


def test_client_errors_are_not_retried_and_never_echo_the_key(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.reply(fake_anthropic.error(401, "authentication_error", f"invalid x-api-key {TEST_KEY}"))
    with pytest.raises(AgentUnavailable) as info:
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert len(fake_anthropic.requests) == 1
    assert "(401)" in str(info.value) and "ANTHROPIC_API_KEY" in str(info.value)
    assert TEST_KEY not in str(info.value) and TEST_KEY not in info.value.calls[0].model_dump_json()


def test_a_slow_answer_times_out(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_ANTHROPIC_TIMEOUT", "0.5")
    monkeypatch.setenv("GCV_ANTHROPIC_MAX_RETRIES", "0")
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY), delay=5))
    started = time.monotonic()
    with pytest.raises(AgentUnavailable) as info:
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert time.monotonic() - started < 3
    (call,) = info.value.calls
    assert call.error_type == "APITimeoutError" and "within 0.5 s" in str(info.value)
    assert len(fake_anthropic.requests) == 1


def test_no_connection_beyond_this_machine(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(NetworkDisabledError):
        socket.create_connection(("203.0.113.7", 443), timeout=1)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://203.0.113.7:9")
    monkeypatch.setenv("GCV_ANTHROPIC_MAX_RETRIES", "0")
    with pytest.raises(AgentUnavailable) as info:
        AnthropicRequirementProvider().propose(EASY, BASELINE)
    assert info.value.calls[0].error_type == "APIConnectionError" and "cannot reach 203.0.113.7:9" in str(info.value)
    assert fake_anthropic.requests == []


# --------------------------------------------------------------------------------------------
# configuration
# --------------------------------------------------------------------------------------------

def test_missing_key_is_a_clear_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderConfigError, match="ANTHROPIC_API_KEY is not set"):
        get_requirement_provider("anthropic")
    with pytest.raises(ProviderConfigError, match="ANTHROPIC_API_KEY is not set"):
        get_review_provider("anthropic")


@pytest.mark.parametrize("name,value,words", [
    ("GCV_ANTHROPIC_TIMEOUT", "0", "0.1..3600"), ("GCV_ANTHROPIC_TIMEOUT", "soon", "seconds"),
    ("GCV_ANTHROPIC_MAX_RETRIES", "11", "0..10"), ("GCV_ANTHROPIC_MAX_TOKENS", "10", "256..128000"),
    ("GCV_AGENT_MAX_RETRIES", "6", "0..5"), ("GCV_ANTHROPIC_TOOL_CHOICE", "any", "'tool' or 'auto'"),
    ("ANTHROPIC_BASE_URL", "ftp://example.invalid", "http(s) URL"),
])
def test_bad_settings_name_the_variable_and_the_range(name: str, value: str, words: str) -> None:
    with pytest.raises(ProviderConfigError) as info:
        AnthropicSettings.from_env({"ANTHROPIC_API_KEY": TEST_KEY, name: value})
    assert name in str(info.value) and words in str(info.value) and TEST_KEY not in str(info.value)


def test_settings_defaults_and_host_only() -> None:
    s = AnthropicSettings.from_env({"ANTHROPIC_BASE_URL": "https://user:pw@proxy.example.test:8443/anthropic/v9"})
    assert (s.model, s.timeout, s.sdk_max_retries, s.agent_retries, s.max_tokens, s.tool_choice, s.key_present) == (
        "claude-sonnet-5-5", 60.0, 2, 1, 8192, "auto", False)
    assert s.describe()["base_url_host"] == "proxy.example.test:8443" and "base_url" not in s.describe()


def test_default_model_is_in_the_pinned_sdk_and_not_deprecated() -> None:
    import typing

    from anthropic._data import DEPRECATED_MODELS
    from anthropic.types.model_param import ModelParam

    known = typing.get_args(typing.get_args(ModelParam)[0])
    assert DEFAULT_MODEL in known and DEFAULT_MODEL not in DEPRECATED_MODELS


def test_estimate_is_local_and_rough() -> None:
    assert estimate_tokens("x" * 35) == 10 and estimate_tokens(b"x" * 36) == 11


# --------------------------------------------------------------------------------------------
# the workflow with Claude: budgets, the policy gate, terminal reasons
# --------------------------------------------------------------------------------------------

def test_review_intent_the_gate_refuses_goes_to_human_review(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(REPAIR), usage_=usage(5000, 1500)),
                         # player_hits fails (a danger failure): shorter lifetimes are not allowed for it
                         fake_anthropic.tool(REVIEW_TOOL, verdict("repair", "REDUCE_BULLET_LIFETIME", "phase_2"),
                                             usage_=usage(4000, 200)))
    _, state = run_engine(tmp_path, REPAIR)
    assert state.status == "blocked" and state.terminal_reason == "human_review"
    (rnd,) = state.rounds
    assert "REDUCE_BULLET_LIFETIME" not in rnd.allowed.intents
    assert rnd.gate.outcome == "human_review" and rnd.gate.accepted_as_proposed is False
    assert rnd.gate.reason.startswith("repair refused: REDUCE_BULLET_LIFETIME is not allowed")
    assert state.usage.model_calls == 2 and state.usage.tokens == 6500 + 4200
    review_request = fake_anthropic.requests[1].body
    assert review_request["tools"] == [review_tool()]
    user = review_request["messages"][0]["content"][0]["text"]
    assert "<allowed_intents>" in user and "REDUCE_BULLET_SPEED (allowed phases: phase_2)" in user
    assert '"player_hits"' in user and "REDUCE_BULLET_LIFETIME (allowed" not in user


def test_refusal_ends_the_workflow_as_a_recorded_outcome(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.reply(fake_anthropic.message([{"type": "text", "text": "No."}], stop_reason="refusal",
                                                usage_=usage(800, 3)))
    engine, state = run_engine(tmp_path, EASY)
    assert state.status == "blocked" and state.terminal_reason == "agent_refused"
    assert state.usage.model_dump() == {"candidate_runs": 0, "baseline_runs": 0, "model_calls": 1, "tokens": 803,
                                         "population_runs": 0, "prescreen_runs": 0}
    recorded = engine.ws.workflow_dir(state.id).activities()["requirement"]
    assert recorded["error"]["kind"] == "agent_refused" and recorded["calls"][0]["stop_reason"] == "refusal"


def test_token_budget_crossed_by_a_call_ends_the_loop(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(REPAIR), usage_=usage(8000, 2000)),
                         fake_anthropic.tool(REVIEW_TOOL, verdict("repair", "REDUCE_BULLET_SPEED", "phase_2"),
                                             usage_=usage(38_000, 2_000, 3_000, 2_000)))
    _, state = run_engine(tmp_path, REPAIR, budgets=Budgets(max_tokens=50_000))
    assert state.status == "budget_exhausted" and state.terminal_reason == "token_budget"
    assert state.usage.model_dump() == {"candidate_runs": 1, "baseline_runs": 1, "model_calls": 2, "tokens": 55_000,
                                         "population_runs": 0, "prescreen_runs": 0}
    assert state.best_round == 1 and state.final_candidate_hash == state.rounds[0].candidate_hash
    assert len(fake_anthropic.requests) == 2
    assert "cumulative tokens reached 55000 > budget 50000" in state.terminal_message


def test_token_budget_stops_a_retry_before_it_is_sent(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(REPAIR), usage_=usage(8000, 2000)),
                         # a malformed verdict whose usage leaves too little for the retry
                         fake_anthropic.tool(REVIEW_TOOL, verdict("repair", None, "phase_2"),
                                             usage_=usage(38_500, 1_000)))
    _, state = run_engine(tmp_path, REPAIR, budgets=Budgets(max_tokens=50_000))
    assert state.status == "budget_exhausted" and state.terminal_reason == "token_budget"
    assert state.usage.model_dump() == {"candidate_runs": 1, "baseline_runs": 1, "model_calls": 2, "tokens": 49_500,
                                         "population_runs": 0, "prescreen_runs": 0}
    assert len(fake_anthropic.requests) == 2  # the retry was never sent
    assert "retry 1" in state.terminal_message and "token budget" in state.terminal_message


def test_model_call_budget_stops_a_retry_before_it_is_sent(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(REPAIR), usage_=usage(8000, 2000)),
                         fake_anthropic.tool(REVIEW_TOOL, {**verdict("accept"), "score": 3}, usage_=usage(7000, 100)))
    _, state = run_engine(tmp_path, REPAIR, budgets=Budgets(max_model_calls=2))
    assert state.status == "budget_exhausted" and state.terminal_reason == "model_call_budget"
    assert state.usage.model_calls == 2 and state.usage.tokens == 10_000 + 7_100
    assert len(fake_anthropic.requests) == 2


# --------------------------------------------------------------------------------------------
# the command line: gcv propose / gcv run with Claude, then replay; gcv agents
# --------------------------------------------------------------------------------------------

def cli(args: list[str], app: typer.Typer | None = None) -> tuple[int, dict[str, Any]]:
    from gcv.cli.app import app as gcv_app

    result = CliRunner().invoke(app or gcv_app, [*args, "--json"])
    assert "Traceback" not in result.output, result.output
    assert TEST_KEY not in result.output
    return result.exit_code, json.loads(result.stdout)


def test_gcv_propose_with_claude(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    code, out = cli(["propose", EASY, "--provider", "anthropic"])
    assert code == 0 and out["decision"] == "accepted" and out["validation"]["ok"] is True
    assert [c["provider"] for c in out["agent_calls"]] == ["anthropic"]


def test_gcv_propose_without_a_key_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, out = cli(["propose", EASY, "--provider", "anthropic"])
    assert code == 2 and "ANTHROPIC_API_KEY is not set" in out["error"]
    code, out = cli(["run", EASY, "--provider", "anthropic", "--yes", "--repair-scope", "fight"])
    assert code == 2 and "ANTHROPIC_API_KEY is not set" in out["error"]


def test_gcv_run_honours_gcv_agent_max_retries(fake_anthropic: FakeAnthropic, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """main: the workflow's budgets (max_agent_retries 1 by default) replaced the documented
    variable, so a second invalid answer blocked the request although 2 retries were asked for."""
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("GCV_AGENT_MAX_RETRIES", "2")
    bad = {**answer(EASY), "confidence": 0.9}  # a field the output model does not have
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, bad), fake_anthropic.tool(REQUIREMENT_TOOL, bad),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    code, out = cli(["run", EASY, "--provider", "anthropic", "--max-runs", "1"])
    assert len(fake_anthropic.requests) == 3, out
    assert out["status"] != "blocked", out
    state = WorkflowState.model_validate_json((tmp_path / "ws" / "workflows" / out["workflow_id"] / "state.json")
                                              .read_text())
    assert state.settings.budgets.max_agent_retries == 2


def _essence(ws: Path, wf_id: str) -> dict[str, Any]:
    state = WorkflowState.model_validate_json((ws / "workflows" / wf_id / "state.json").read_text())
    return {"status": state.status, "reason": state.terminal_reason, "final": state.final_candidate_hash,
            "usage": state.usage, "trace": state.trace, "goal": state.goal_hash,
            "rounds": [(r.candidate_hash, r.evaluation_hash, r.gate) for r in state.rounds],
            "calls": state.agent_calls}


@pytest.mark.slow
def test_gcv_run_with_claude_then_replay_without_any_request(fake_anthropic: FakeAnthropic, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    ws = tmp_path / "ws"
    monkeypatch.setenv("GCV_HOME", str(ws))
    caplog.set_level(logging.DEBUG)
    fake_anthropic.reply(
        fake_anthropic.tool(REQUIREMENT_TOOL, answer(REPAIR), usage_=usage(6000, 1800, 0, 0)),
        fake_anthropic.error(529, "overloaded_error", "busy"),  # the SDK retries; still one model call
        fake_anthropic.tool(REVIEW_TOOL, verdict("repair", "REDUCE_BULLET_SPEED", "phase_2"),
                            usage_=usage(5000, 150, 4000, 0)),
        fake_anthropic.tool(REVIEW_TOOL, {**verdict("accept"), "extra": 1}, usage_=usage(5200, 90)),  # retried
        fake_anthropic.tool(REVIEW_TOOL, verdict("accept"), usage_=usage(300, 80, 0, 5000)))
    code, out = cli(["run", REPAIR, "--provider", "anthropic", "--yes", "--repair-scope", "fight", "--max-model-calls", "6"])
    assert code == 0 and out["status"] == "evidence_ready" and out["terminal_reason"] == "accepted_by_review"
    assert out["model_calls_used"] == 4 and out["tokens_used"] == 7800 + 9150 + 5290 + 5380
    assert len(fake_anthropic.requests) == 5
    recorded = _essence(ws, out["workflow_id"])
    assert [g.intent for _, _, g in recorded["rounds"]] == ["REDUCE_BULLET_SPEED", None]

    # the key never reaches the workspace, the logs or a bundle
    from gcv.evidence.bundle import export_bundle

    bundle = export_bundle(ws, out["workflow_id"], tmp_path / "evidence.zip", signer=False)
    for path in [*ws.rglob("*"), bundle]:
        if path.is_file():
            assert TEST_KEY.encode() not in path.read_bytes(), path
    assert any(r.name.startswith("anthropic") for r in caplog.records)  # the SDK's debug log was captured
    assert TEST_KEY not in caplog.text

    # replay from the workflow folder and from the bundle: same result, no HTTP request
    seen = len(fake_anthropic.requests)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://203.0.113.7:9")  # any request would now fail loudly
    for source in (ws / "workflows" / out["workflow_id"], bundle):
        code, again = cli(["run", REPAIR, "--provider", f"replay:{source}", "--yes", "--repair-scope", "fight", "--max-model-calls", "6"])
        assert code == 0, again
        replayed = _essence(ws, again["workflow_id"])
        assert replayed == recorded
        assert again["final_candidate_hash"] == out["final_candidate_hash"]
    assert len(fake_anthropic.requests) == seen


def test_replay_refuses_a_different_request_or_evidence(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)),
                         fake_anthropic.tool(REVIEW_TOOL, verdict("accept")))
    engine, state = run_engine(tmp_path / "a", EASY)
    assert state.status == "evidence_ready"
    d = engine.ws.workflow_dir(state.id)
    _, other = run_engine(tmp_path / "b", EASY + " please", provider=f"replay:{d.root}")
    assert other.status == "failed" and other.terminal_reason == "replay_mismatch"
    assert "request text differs" in other.terminal_message and other.usage.model_calls == 0

    evaluation = d.get(state.rounds[0].evaluation_hash)
    allowed = state.rounds[0].allowed.intents
    reviewer = get_review_provider(f"replay:{d.root}")
    with pytest.raises(ReplayMismatch, match="prompt differs"):  # same round and evaluation, other evidence
        reviewer.review({"round": 1, "evaluation": evaluation}, allowed)
    changed = {**evaluation, "miss_score": evaluation["miss_score"] + 1}
    with pytest.raises(ReplayMismatch, match="evidence differs"):
        reviewer.review({"round": 1, "evaluation": changed}, allowed)
    with pytest.raises(ReplayMismatch, match="no review for round 2"):
        reviewer.review({"round": 2, "evaluation": evaluation}, allowed)
    with pytest.raises(ReplayMismatch, match="allowed intents differ"):
        reviewer.review({"round": 1, "evaluation": evaluation}, ["STOP"])
    assert len(fake_anthropic.requests) == 2


@pytest.mark.slow
def test_replay_of_an_offline_workflow(tmp_path: Path) -> None:
    engine, state = run_engine(tmp_path / "a", REPAIR, provider="offline")
    source = engine.ws.workflow_dir(state.id).root
    _, again = run_engine(tmp_path / "b", REPAIR, provider=f"replay:{source}")
    assert (again.status, again.final_candidate_hash, again.usage) == (
        state.status, state.final_candidate_hash, state.usage)


def test_replay_needs_a_readable_recording(tmp_path: Path) -> None:
    for arg, words in (("", "replay needs a path"), (str(tmp_path / "missing"), "does not exist"),
                       (str(tmp_path), "neither a workflow folder")):
        with pytest.raises(ValueError, match=words):
            get_requirement_provider(f"replay:{arg}")


def _agents_app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """gcv (test app)."""

    app.add_typer(agents_cmds.app)
    return app


def test_gcv_agents_reports_without_revealing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://user:secret-pw@127.0.0.1:9/some/prefix")
    monkeypatch.setenv("GCV_ANTHROPIC_TIMEOUT", "30")
    code, out = cli(["agents"], _agents_app())
    a = next(p for p in out["providers"] if p["name"] == "anthropic")
    assert code == 0 and a["key_present"] is True and a["usable"] is True
    assert a["base_url_host"] == "127.0.0.1:9" and a["timeout"] == 30 and a["model"] == DEFAULT_MODEL
    assert a["sdk_max_retries"] == 2 and a["agent_retries"] == 1 and a["prompts"]["review"]["prompt_id"]
    assert "secret-pw" not in json.dumps(out) and "replay" in out["review_providers"]
    human = CliRunner().invoke(_agents_app(), ["agents"])
    assert "present" in human.output and TEST_KEY not in human.output and "secret-pw" not in human.output
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    _, out = cli(["agents"], _agents_app())
    a = next(p for p in out["providers"] if p["name"] == "anthropic")
    assert a["key_present"] is False and a["usable"] is False and "ANTHROPIC_API_KEY is not set" in a["problems"]


def test_provider_repr_and_state_hold_no_key(fake_anthropic: FakeAnthropic) -> None:
    provider = AnthropicReviewProvider()
    assert TEST_KEY not in repr(provider)
    assert all(TEST_KEY not in repr(v) for k, v in vars(provider).items() if k != "_client")


def test_decoder_is_what_the_replay_uses() -> None:
    raw = json.dumps([{"type": "thinking", "thinking": "...", "signature": "s"},
                      {"type": "tool_use", "id": "t", "name": REQUIREMENT_TOOL, "input": answer("make it better")}])
    decision = decode_requirement_output(raw)
    assert isinstance(decision, RequirementDecision) and decision.decision == "needs_clarification"


def _off_goal(text: str, speed: float) -> dict[str, Any]:
    """A model's answer whose candidate is not what its own goal computes to."""
    wrong = answer(text)
    wrong["candidate"]["phases"][0]["pattern"]["bullet_speed"] = speed
    return wrong


def test_a_candidate_off_its_own_goal_goes_back_to_claude_and_the_corrected_one_is_accepted(
        fake_anthropic: FakeAnthropic) -> None:
    """main: the agent blocked it at once (agent.candidate_mismatch); the model never heard why.
    Now the difference goes back as an invalid answer, within the retries."""
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, _off_goal(EASY, 1.0)),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)))
    decision, calls = RequirementAgent(AnthropicRequirementProvider()).propose(EASY, BASELINE)
    assert decision.decision == "accepted" and decision.candidate is not None
    assert decision.candidate.phases[0].pattern.bullet_speed == 2.4
    assert [c.error_type for c in calls] == ["output_invalid", None]
    (fed_back,) = tool_results(fake_anthropic.requests[1].body)
    said = json.dumps(fed_back)
    assert fed_back["is_error"] is True and "$.phases[0].pattern.bullet_speed is 1.0 in your candidate" in said
    assert "2.4 from your goal" in said


def test_a_candidate_still_off_its_goal_after_the_retries_is_never_accepted(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, _off_goal(EASY, 1.0)),
                         fake_anthropic.tool(REQUIREMENT_TOOL, _off_goal(EASY, 1.1)))
    with pytest.raises(AgentOutputInvalid, match="not what your own goal computes to"):
        AnthropicRequirementProvider().propose(EASY, BASELINE)


@pytest.mark.slow
def test_the_corrected_candidate_replays_without_a_request(fake_anthropic: FakeAnthropic, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay decodes recorded answers as the provider did (with the baseline): the rejected
    first answer is rejected again, the corrected one is the answer."""
    from gcv.evidence.bundle import export_bundle
    from gcv.evidence.verify import verify_bundle

    ws = tmp_path / "ws"
    monkeypatch.setenv("GCV_HOME", str(ws))
    fake_anthropic.reply(fake_anthropic.tool(REQUIREMENT_TOOL, _off_goal(EASY, 1.0)),
                         fake_anthropic.tool(REQUIREMENT_TOOL, answer(EASY)),
                         fake_anthropic.tool(REVIEW_TOOL, verdict("accept")))
    code, out = cli(["run", EASY, "--provider", "anthropic", "--yes", "--repair-scope", "fight"])
    assert code == 0 and out["status"] == "evidence_ready", out
    bundle = export_bundle(ws, out["workflow_id"], tmp_path / "e.zip", signer=False)
    served = len(fake_anthropic.requests)
    report = verify_bundle(bundle, replay=True)
    assert report.ok, (report.first_failure, report.failed())
    assert len(fake_anthropic.requests) == served  # the replay sent nothing
