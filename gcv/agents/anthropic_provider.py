"""Claude as the Requirement Agent and the Quality Review Agent, through the official SDK.

Each agent is one small conversation with bounded retries:

1. the request: a system prompt (``gcv/agents/prompts/<agent>.md``, rendered with the
   baseline, the contract's ranges and the write scope, or with the intent table), the
   request or the evidence as the user message, and one tool whose ``input_schema`` is the
   output model in the strict-mode subset of JSON Schema (``"strict": true``, see
   ``gcv.agents.strict_schema``). ``tool_choice`` forces that tool where the model accepts
   it and is ``auto`` (with the prompt asking for exactly one tool call) on models that
   reject a forced tool choice;
2. before every call, the budget the workflow handed over (``self.budget``) is checked with
   a local estimate of the request's tokens (``len(request JSON) / 3.5``; the SDK's
   ``count_tokens`` would be one more network call); a call that would cross it raises
   :class:`AgentBudgetExceeded` carrying the calls already made;
3. the answer: ``stop_reason`` first (``refusal`` -> :class:`AgentRefused`, ``max_tokens``
   or ``model_context_window_exceeded`` -> :class:`AgentTruncated`, both recorded outcomes),
   then the tool input is validated with the pydantic model (``extra="forbid"``) and a few
   consistency rules (an ``accepted`` decision carries a goal and a complete candidate);
4. an invalid answer goes back to the model as a ``tool_result`` with ``is_error: true``
   paired with its ``tool_use`` id (every ``tool_use`` gets its result), at most
   ``max_agent_retries`` times (default 1, ``GCV_AGENT_MAX_RETRIES``); then
   :class:`AgentOutputInvalid`.

Every HTTP exchange becomes one :class:`AgentCall` (usage from the response, the raw
content as canonical JSON, the SDK's own transport retries in ``retries``); SDK errors
(rate limit, overload, timeout, connection, 4xx/5xx) become :class:`AgentUnavailable`
after the SDK's own retries. The wrappers (``RequirementAgent``, the workflow's policy
gate) then hold the answer to the same checks as the offline provider's.

The API key is read from ``ANTHROPIC_API_KEY`` when the provider is built, handed to the SDK
client and nowhere else: it is not an attribute, not in a ``repr``, not in an error
message (SDK messages are scrubbed), not in an AgentCall.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Literal, TypedDict, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from gcv.agents import prompts
from gcv.agents.base import (INTENTS, REPAIR_INTENTS, AgentCall, CallBudget, CallLimits, RequirementDecision,
                             ReviewVerdict, Usage)
from gcv.agents.candidate_check import candidate_mismatches, mismatch_feedback
from gcv.agents.errors import AgentBudgetExceeded, AgentOutputInvalid, AgentRefused, AgentTruncated, AgentUnavailable
from gcv.agents.strict_schema import strict_schema
from gcv.contract.canonical import canonical_json, sha256_hex
from gcv.contract.models import BulletHellConfig, Pattern, Targets

PROVIDER_NAME = "anthropic"
# The newest Sonnet-class id in the pinned SDK's model list (anthropic 2.14.0,
# anthropic/types/model_param.py), not in its deprecated list.
DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_SDK_RETRIES = 2
DEFAULT_RETRY_WAIT_CAP_S = 10.0  # the most a retry waits, whatever retry-after asks
DEFAULT_CALL_DEADLINE_S = 180.0  # one exchange, its retries and their waits included
MAX_BACKOFF_S = 8.0
DEFAULT_MAX_TOKENS = 8192
DEFAULT_AGENT_RETRIES = 1
MAX_AGENT_RETRIES = 5  # the workflow's Budgets.max_agent_retries allows 0..5 as well
CHARS_PER_TOKEN = 3.5
REQUIREMENT_TOOL = "submit_requirement_decision"
REVIEW_TOOL = "submit_review_verdict"

ENV_KEY = "ANTHROPIC_API_KEY"
ENV_BASE_URL = "ANTHROPIC_BASE_URL"
ENV_MODEL = "GCV_ANTHROPIC_MODEL"
ENV_TIMEOUT = "GCV_ANTHROPIC_TIMEOUT"
ENV_SDK_RETRIES = "GCV_ANTHROPIC_MAX_RETRIES"
ENV_MAX_TOKENS = "GCV_ANTHROPIC_MAX_TOKENS"
ENV_AGENT_RETRIES = "GCV_AGENT_MAX_RETRIES"
ENV_TOOL_CHOICE = "GCV_ANTHROPIC_TOOL_CHOICE"
ENV_RETRY_WAIT_CAP = "GCV_ANTHROPIC_RETRY_WAIT_CAP"
ENV_CALL_DEADLINE = "GCV_AGENT_CALL_DEADLINE"

# Models documented to accept a forced tool_choice together with their default thinking
# settings (thinking is off by default on these). The 5-generation models think by
# default, and the 5.5 family rejects tool_choice "tool"/"any" with a 400; on every id not
# listed here the tool is offered with tool_choice "auto" and the prompt asks for exactly
# one call (an answer without the call is fed back like any other invalid answer).
# GCV_ANTHROPIC_TOOL_CHOICE=tool|auto overrides this.
FORCED_TOOL_CHOICE_PREFIXES = ("claude-opus-4", "claude-sonnet-4", "claude-haiku-4")

T = TypeVar("T")


class ProviderConfigError(ValueError):
    """The anthropic provider cannot be built: a missing key, a bad setting, no SDK."""


class OutputInvalid(ValueError):
    """The model's answer does not fit the output model; the text is fed back to it."""


# ---------------------------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------------------------

def _number(environ: Mapping[str, str], name: str, default: float, lo: float, hi: float, *,
            integer: bool, what: str) -> Any:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or not lo <= value <= hi:
        kind = "an integer" if integer else "a number"
        raise ProviderConfigError(f"{name}={text!r} is not valid: expected {kind} of {what} in {lo:g}..{hi:g}")
    return value


def default_tool_choice(model: str) -> str:
    return "tool" if model.startswith(FORCED_TOOL_CHOICE_PREFIXES) else "auto"


@dataclass(frozen=True)
class AnthropicSettings:
    """Everything configurable about the provider except the key (which is never kept)."""

    model: str = DEFAULT_MODEL
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    sdk_max_retries: int = DEFAULT_SDK_RETRIES
    max_tokens: int = DEFAULT_MAX_TOKENS
    agent_retries: int = DEFAULT_AGENT_RETRIES
    tool_choice: str = "auto"
    retry_wait_cap: float = DEFAULT_RETRY_WAIT_CAP_S
    call_deadline: float = DEFAULT_CALL_DEADLINE_S
    key_present: bool = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AnthropicSettings:
        env = os.environ if environ is None else environ
        model = env.get(ENV_MODEL, "").strip() or DEFAULT_MODEL
        base_url = env.get(ENV_BASE_URL, "").strip() or None
        if base_url is not None:
            parts = urlsplit(base_url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ProviderConfigError(f"{ENV_BASE_URL} must be an http(s) URL with a host "
                                          f"(got a value with scheme {parts.scheme or 'none'!r})")
        choice = env.get(ENV_TOOL_CHOICE, "").strip().lower() or default_tool_choice(model)
        if choice not in ("tool", "auto"):
            raise ProviderConfigError(f"{ENV_TOOL_CHOICE}={choice!r} is not valid: expected 'tool' or 'auto'")
        return cls(
            model=model, base_url=base_url,
            timeout=_number(env, ENV_TIMEOUT, DEFAULT_TIMEOUT_S, 0.1, 3600, integer=False, what="seconds"),
            sdk_max_retries=_number(env, ENV_SDK_RETRIES, DEFAULT_SDK_RETRIES, 0, 10, integer=True,
                                    what="SDK retries"),
            max_tokens=_number(env, ENV_MAX_TOKENS, DEFAULT_MAX_TOKENS, 256, 128_000, integer=True,
                               what="output tokens"),
            agent_retries=_number(env, ENV_AGENT_RETRIES, DEFAULT_AGENT_RETRIES, 0, MAX_AGENT_RETRIES,
                                  integer=True, what="retries of an invalid answer"),
            tool_choice=choice,
            retry_wait_cap=_number(env, ENV_RETRY_WAIT_CAP, DEFAULT_RETRY_WAIT_CAP_S, 0, 300, integer=False,
                                   what="seconds"),
            call_deadline=_number(env, ENV_CALL_DEADLINE, DEFAULT_CALL_DEADLINE_S, 1, 3600, integer=False,
                                  what="seconds"),
            key_present=bool(env.get(ENV_KEY, "").strip()),
        )

    def host(self) -> str:
        """Where calls go, host (and port) only: a base URL may carry a path or credentials."""
        if self.base_url is None:
            return "api.anthropic.com (SDK default)"
        parts = urlsplit(self.base_url)
        return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)

    def describe(self) -> dict[str, Any]:
        """The doctor's view (``gcv agents``): never the key, never the full base URL."""
        out = asdict(self)
        out.pop("base_url")
        out["base_url_host"] = self.host()
        return out


def _api_key(environ: Mapping[str, str]) -> str:
    key = environ.get(ENV_KEY, "").strip()
    if not key:
        raise ProviderConfigError(
            f"{ENV_KEY} is not set: the anthropic provider needs an API key in the environment "
            "(it is never printed or recorded); use --provider offline to run without one")
    return key


def estimate_tokens(payload: bytes | str) -> int:
    """A local, deliberately rough estimate of a request's input tokens (chars / 3.5)."""
    text = payload.decode("utf-8") if isinstance(payload, bytes) else payload
    return math.ceil(len(text) / CHARS_PER_TOKEN)


# ---------------------------------------------------------------------------------------------
# the tools: strict input schemas derived from the output models
# ---------------------------------------------------------------------------------------------

ASKED_SCHEMA = {"type": "string", "description": "what the request asked for, as text ('' if nothing)"}


@lru_cache(maxsize=None)
def requirement_tool() -> dict[str, Any]:
    schema = strict_schema(
        RequirementDecision,
        # a constant, the request GCV already has, and the offline reader's typed questions
        omit={"#Goal": {"goal", "source_text"}, "$": {"asks"}},
        overrides={"#BlockIssue.asked": ASKED_SCHEMA})
    for unused in ("Question", "Choice"):  # only the omitted ``asks`` refers to them
        schema.get("$defs", {}).pop(unused, None)
    return {
        "name": REQUIREMENT_TOOL,
        "description": ("Submit the one decision on the designer's request: accepted (with the goal and the "
                        "COMPLETE candidate config), needs_clarification (with questions), out_of_scope, "
                        "blocked (with issues) or no_change. Call exactly once."),
        "strict": True,
        "input_schema": schema,
    }


@lru_cache(maxsize=None)
def review_tool() -> dict[str, Any]:
    return {
        "name": REVIEW_TOOL,
        "description": ("Submit the one verdict on the evidence: accept, repair with exactly one allowed intent "
                        "on one allowed phase, or human_review. Names an intent, never a number. Call exactly "
                        "once."),
        "strict": True,
        "input_schema": strict_schema(ReviewVerdict),
    }


# ---------------------------------------------------------------------------------------------
# prompts
# ---------------------------------------------------------------------------------------------

def _ranges(model: type[BaseModel]) -> str:
    """One line per field of ``model`` with its type and range, from the contract's schema."""
    schema = model.model_json_schema()
    lines = []
    for name, prop in schema["properties"].items():
        lo = next((prop[k] for k in ("minimum", "ge") if k in prop), None)
        hi = next((prop[k] for k in ("maximum", "le") if k in prop), None)
        kind = prop.get("type", "value")
        if "enum" in prop:
            text = "one of " + ", ".join(map(str, prop["enum"]))
        elif lo is not None and hi is not None:
            text = f"{kind} {_plain(lo)}..{_plain(hi)}"
        else:
            text = kind
        note = f" ({prop['description']})" if prop.get("description") else ""
        lines.append(f"- {name}: {text}{note}")
    return "\n".join(lines)


def _plain(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def requirement_prompt(request_text: str, baseline: BulletHellConfig,
                       follow_ups: Sequence[str] = ()) -> tuple[prompts.Prompt, str, str]:
    """(prompt, system text, user text) for the Requirement Agent. ``follow_ups`` are the
    designer's answers to earlier questions; they refine the request (later ones win)."""
    prompt = prompts.load("requirement")
    phases = "; ".join(f"{p.phase_id} ({p.pattern.type}, '{p.title}')" for p in baseline.phases)
    system = prompt.render(
        pattern_ranges=_ranges(Pattern), target_ranges=_ranges(Targets), phase_summary=phases,
        baseline_json=json.dumps(baseline.model_dump(mode="json"), indent=1, ensure_ascii=False))
    answers = "".join(f"\n<answer n=\"{i}\">\n{text}\n</answer>" for i, text in enumerate(follow_ups, start=1))
    return prompt, system, f"<request>\n{request_text}\n</request>{answers}"


INTENT_MEANING = {
    "REDUCE_BULLETS_PER_WAVE": "fewer bullets per wave on one phase (load and danger failures)",
    "INCREASE_WAVE_INTERVAL": "a longer wave interval on one phase (load and danger failures)",
    "REDUCE_BULLET_SPEED": "slower bullets on one phase (danger failures)",
    "REDUCE_BULLET_LIFETIME": "shorter-lived bullets on one phase (load failures)",
    "REDUCE_PATTERN_LAYERS": "one layer fewer on one phase (load and danger failures)",
    "REQUEST_HUMAN": "stop and ask a person",
    "STOP": "stop: continuing cannot change the result",
}


def review_prompt(evidence: Mapping[str, Any], allowed_intents: list[str]) -> tuple[prompts.Prompt, str, str]:
    """(prompt, system text, user text) for the Quality Review Agent."""
    prompt = prompts.load("review")
    system = prompt.render(intent_table="\n".join(f"- `{i}`: {INTENT_MEANING[i]}" for i in INTENTS))
    phases = evidence.get("allowed_phases") or {}
    allowed = "\n".join(f"- {i}" + (f" (allowed phases: {', '.join(phases[i])})" if phases.get(i) else "")
                        for i in allowed_intents)
    user = (f"<evidence>\n{json.dumps(evidence, indent=1, ensure_ascii=False, sort_keys=True)}\n</evidence>\n"
            f"<allowed_intents>\n{allowed}\n</allowed_intents>\n"
            "Any intent or phase not listed here will be refused by the policy gate.")
    return prompt, system, user


# ---------------------------------------------------------------------------------------------
# parsing: raw output (the response content as JSON text) -> output model
# ---------------------------------------------------------------------------------------------

def tool_input(raw_output: str, tool_name: str) -> dict[str, Any]:
    """The input of the one ``tool_name`` call in the raw content, or OutputInvalid."""
    try:
        content = json.loads(raw_output)
    except json.JSONDecodeError as exc:
        raise OutputInvalid(f"the answer is not JSON content blocks: {exc}") from None
    if not isinstance(content, list):
        raise OutputInvalid("the answer is not a list of content blocks")
    uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    if not uses:
        raise OutputInvalid(f"the answer did not call the tool {tool_name}; answer only by calling "
                            f"{tool_name} exactly once")
    if len(uses) > 1:
        raise OutputInvalid(f"the answer called tools {len(uses)} times; call {tool_name} exactly once")
    use = uses[0]
    if use.get("name") != tool_name:
        raise OutputInvalid(f"the answer called {use.get('name')!r}; the only tool is {tool_name}")
    if not isinstance(use.get("input"), dict):
        raise OutputInvalid(f"the {tool_name} input is not a JSON object")
    return use["input"]


def validation_text(exc: ValidationError, limit: int = 20) -> str:
    """A pydantic error as lines a model (and a person) can act on."""
    lines = []
    for err in exc.errors(include_url=False)[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "(the whole answer)"
        if err["type"] == "extra_forbidden":
            lines.append(f"{where}: this field does not exist; remove it")
            continue
        shown = json.dumps(err.get("input"), ensure_ascii=False, default=str)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        lines.append(f"{where}: {err['msg']} (got {shown})")
    more = len(exc.errors()) - limit
    if more > 0:
        lines.append(f"... and {more} more")
    return "; ".join(lines)


def _validate(model: type[T], data: dict[str, Any]) -> T:
    try:
        return model.model_validate(data)  # type: ignore[attr-defined, no-any-return]
    except ValidationError as exc:
        raise OutputInvalid(validation_text(exc)) from None


def decode_requirement_output(raw_output: str) -> RequirementDecision:
    """The Requirement Agent's decision in a recorded raw output (the replay uses this too)."""
    decision = _validate(RequirementDecision, tool_input(raw_output, REQUIREMENT_TOOL))
    problems = []
    if decision.decision == "accepted":
        if decision.goal is None:
            problems.append("an accepted decision carries the goal (goal is null)")
        if decision.candidate is None:
            problems.append("an accepted decision carries the COMPLETE candidate config (candidate is null)")
    if decision.decision == "needs_clarification" and not decision.questions:
        problems.append("needs_clarification carries at least one concrete question")
    if decision.decision == "blocked" and not decision.issues:
        problems.append("blocked carries at least one issue naming the field and what is allowed")
    if problems:
        raise OutputInvalid("; ".join(problems))
    return decision


def decode_requirement_against(raw_output: str, baseline: BulletHellConfig) -> RequirementDecision:
    """``decode_requirement_output``, and an accepted candidate must be what its goal computes
    to (``gcv.agents.candidate_check``): otherwise OutputInvalid, fed back to the model."""
    decision = decode_requirement_output(raw_output)
    wrong = candidate_mismatches(decision, baseline)
    if wrong:
        raise OutputInvalid(mismatch_feedback(wrong))
    return decision


def decode_review_output(raw_output: str) -> ReviewVerdict:
    """The Quality Review Agent's verdict in a recorded raw output (the replay uses this too)."""
    verdict = _validate(ReviewVerdict, tool_input(raw_output, REVIEW_TOOL))
    if verdict.verdict == "repair" and verdict.intent not in REPAIR_INTENTS:
        raise OutputInvalid(f"a repair verdict names exactly one repair intent ({', '.join(REPAIR_INTENTS)}); "
                            f"got {verdict.intent!r}")
    return verdict


# ---------------------------------------------------------------------------------------------
# the conversation
# ---------------------------------------------------------------------------------------------

_KEEP = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
         "thinking": ("type", "thinking", "signature"), "redacted_thinking": ("type", "data")}


def _clean_block(block: Any) -> Any:
    """A response block as it may be sent back in the next request (thinking unchanged)."""
    if isinstance(block, dict) and block.get("type") in _KEEP:
        return {k: block[k] for k in _KEEP[block["type"]] if k in block}
    return block


def _feedback(content: list[Any], error: str, tool_name: str) -> list[dict[str, Any]]:
    """The user turn answering an invalid assistant turn: a result for every tool_use in it."""
    text = (f"Your answer was rejected: {error}. Call {tool_name} again with a corrected, complete answer.")
    uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    if not uses:
        return [{"type": "text", "text": text}]
    return [{"type": "tool_result", "tool_use_id": use.get("id", ""), "is_error": True,
             "content": text if i == 0 else f"Not used: call {tool_name} exactly once."}
            for i, use in enumerate(uses)]


class _CallFields(TypedDict):
    """What every recorded call of one exchange shares (an ``AgentCall``'s first fields)."""

    agent: Literal["requirement", "review"]
    provider: str
    model: str
    prompt_id: str
    prompt_sha256: str
    request_bytes: int


class _AnthropicAgent:
    """Shared by both agents: the SDK client, the budget and the bounded-retry loop."""

    agent: Literal["requirement", "review"]  # set by each agent's class
    name = PROVIDER_NAME

    def __init__(self, settings: AnthropicSettings | None = None, *, environ: Mapping[str, str] | None = None,
                 max_agent_retries: int | None = None) -> None:
        env = os.environ if environ is None else environ
        self.settings = settings if settings is not None else AnthropicSettings.from_env(env)
        retries = self.settings.agent_retries if max_agent_retries is None else max_agent_retries
        if not 0 <= retries <= MAX_AGENT_RETRIES:
            raise ProviderConfigError(f"max_agent_retries must be in 0..{MAX_AGENT_RETRIES} (got {retries})")
        self.max_agent_retries = retries  # unless the workflow's limits name another number
        self.model = self.settings.model
        self._requests = 0  # HTTP attempts so far (the SDK's retries included)
        key = _api_key(env)
        self._redact: Callable[[str], str] = lambda text: text.replace(key, f"[redacted:{ENV_KEY}]")
        self._client = self._make_client(key)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, host={self.settings.host()!r})"

    def _make_client(self, key: str) -> Any:
        try:
            import anthropic
        except ImportError:
            raise ProviderConfigError("the anthropic provider needs the 'anthropic' package: install GCV with "
                                      "its 'anthropic' extra (pip install 'gcv[anthropic]')") from None

        def count(request: Any) -> None:
            self._requests += 1

        # GCV makes the retries itself (``_send``): the SDK obeys any retry-after, however long,
        # and has no deadline for an exchange as a whole
        return anthropic.Anthropic(
            api_key=key, base_url=self.settings.base_url, timeout=self.settings.timeout,
            max_retries=0,
            http_client=anthropic.DefaultHttpxClient(timeout=self.settings.timeout,
                                                     event_hooks={"request": [count]}))

    def _body(self, system: str, messages: list[dict[str, Any]], tool: dict[str, Any]) -> dict[str, Any]:
        choice: dict[str, Any] = ({"type": "tool", "name": tool["name"]} if self.settings.tool_choice == "tool"
                                  else {"type": "auto"})
        choice["disable_parallel_tool_use"] = True
        return {"model": self.settings.model, "max_tokens": self.settings.max_tokens,
                "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                "messages": messages, "tools": [tool], "tool_choice": choice}

    def _converse(self, prompt: prompts.Prompt, system: str, user: str, tool: dict[str, Any],
                  decode: Callable[[str], T], limits: CallLimits | None) -> tuple[T, list[AgentCall]]:
        prompt_sha = sha256_hex(f"{system}\n\n{user}".encode("utf-8"))
        messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": user}]}]
        calls: list[AgentCall] = []
        last_error = ""
        budget = limits.budget if limits is not None else None
        retries = (limits.max_retries if limits is not None and limits.max_retries is not None
                   else self.max_agent_retries)
        for attempt in range(retries + 1):
            body = self._body(system, messages, tool)
            payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            estimate = estimate_tokens(payload)
            if budget is not None:
                rule = budget.check(estimate)
                if rule is not None:
                    raise AgentBudgetExceeded(self._budget_message(budget, rule, attempt, estimate), calls,
                                              rule=rule)
            call, content = self._call(body, payload, prompt.prompt_id, prompt_sha, calls)
            if budget is not None:
                budget.spend(call.usage.total)
            if call.stop_reason == "refusal":
                detail = self._refusal_detail(content)
                calls.append(call.model_copy(update={"error_type": "refusal", "error": detail}))
                raise AgentRefused(f"Claude declined the {self.agent} request (stop_reason refusal){detail and ': '}"
                                   f"{detail}; a person must look", calls)
            if call.stop_reason in ("max_tokens", "model_context_window_exceeded"):
                why = (f"the answer hit max_tokens ({self.settings.max_tokens}, {ENV_MAX_TOKENS})"
                       if call.stop_reason == "max_tokens" else "the request exceeded the model's context window")
                calls.append(call.model_copy(update={"error_type": call.stop_reason, "error": why}))
                raise AgentTruncated(f"the {self.agent} answer was cut off: {why}", calls)
            try:
                result = decode(call.raw_output)
            except OutputInvalid as exc:
                last_error = str(exc)
                calls.append(call.model_copy(update={"error_type": "output_invalid", "error": last_error}))
                if content:
                    messages.append({"role": "assistant", "content": content})
                messages.append({"role": "user", "content": _feedback(content, last_error, tool["name"])})
                continue
            calls.append(call)
            return result, calls
        raise AgentOutputInvalid(
            f"the {self.agent} answer was still invalid after {retries} "
            f"retr{'y' if retries == 1 else 'ies'}: {last_error}", calls)

    def _call(self, body: dict[str, Any], payload: bytes, prompt_id: str, prompt_sha: str,
              calls: list[AgentCall]) -> tuple[AgentCall, list[Any]]:
        import anthropic

        before = self._requests
        started = time.monotonic()
        base: _CallFields = {"agent": self.agent, "provider": PROVIDER_NAME, "model": self.settings.model,
                             "prompt_id": prompt_id, "prompt_sha256": prompt_sha, "request_bytes": len(payload)}
        try:
            raw = self._send(body, started)
            message = raw.parse()
            data = raw.http_response.json()
        except _GaveUp as stop:
            message_text = self._redact(self._sdk_error_text(stop.exc, self._requests - before) + stop.why)
            failed = AgentCall(**base, latency_ms=_ms(started), retries=max(0, self._requests - before - 1),
                               error_type=type(stop.exc).__name__, error=message_text)
            raise AgentUnavailable(message_text, [*calls, failed]) from None
        except anthropic.AnthropicError as exc:
            message_text = self._redact(self._sdk_error_text(exc, self._requests - before))
            failed = AgentCall(**base, latency_ms=_ms(started), retries=max(0, self._requests - before - 1),
                               error_type=type(exc).__name__, error=message_text)
            raise AgentUnavailable(message_text, [*calls, failed]) from None
        except ValueError as exc:  # a 2xx body that is not JSON
            failed = AgentCall(**base, latency_ms=_ms(started), retries=max(0, self._requests - before - 1),
                               error_type="invalid_response", error=self._redact(str(exc))[:500])
            raise AgentUnavailable(f"the API answered with an unreadable body: {failed.error}",
                                   [*calls, failed]) from None
        content = [_clean_block(b) for b in (data.get("content") or [])]
        u = message.usage
        usage = Usage(input_tokens=u.input_tokens or 0, output_tokens=u.output_tokens or 0,
                      cache_creation_input_tokens=u.cache_creation_input_tokens or 0,
                      cache_read_input_tokens=u.cache_read_input_tokens or 0)
        base["model"] = message.model or self.settings.model  # the model that answered
        call = AgentCall(**base, latency_ms=_ms(started),
                         usage=usage, stop_reason=message.stop_reason, retries=max(0, self._requests - before - 1),
                         raw_output=self._redact(canonical_json(content)))
        return call, content

    def _send(self, body: dict[str, Any], started: float) -> Any:
        """One exchange: the first attempt and up to ``sdk_max_retries`` retries of a 408, 409,
        429, 5xx or 529 answer, a timeout or a lost connection (``x-should-retry`` decides where
        the server sends it). A retry waits what ``retry-after-ms`` / ``retry-after`` ask, at most
        ``retry_wait_cap`` seconds, else 0.5 s doubling up to 8 s; no attempt or wait goes past
        ``call_deadline`` seconds from the start of the exchange."""
        import anthropic

        s = self.settings
        deadline = started + s.call_deadline
        for attempt in range(s.sdk_max_retries + 1):
            left = deadline - time.monotonic()
            try:
                return self._client.messages.with_raw_response.create(
                    **body, timeout=max(0.05, min(s.timeout, left)),
                    extra_headers={"x-stainless-retry-count": str(attempt)})  # which retry this is, as the SDK says
            except anthropic.AnthropicError as exc:
                if not _retryable(exc) or attempt == s.sdk_max_retries:
                    raise
                wait = _retry_wait(exc, attempt, s.retry_wait_cap)
                if time.monotonic() + wait >= deadline:
                    raise _GaveUp(exc, f"; not retried: the next attempt (after {wait:g} s) would pass the "
                                       f"exchange's deadline of {s.call_deadline:g} s ({ENV_CALL_DEADLINE})") from None
                time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _sdk_error_text(self, exc: Exception, attempts: int) -> str:
        import anthropic

        s = self.settings
        host = s.host()
        after = f" after {attempts} attempt{'s' if attempts != 1 else ''}" if attempts else ""
        if isinstance(exc, anthropic.APITimeoutError):
            return f"no answer from {host} within {s.timeout:g} s ({ENV_TIMEOUT}){after}"
        if isinstance(exc, anthropic.APIConnectionError):
            cause = exc.__cause__ or exc
            return f"cannot reach {host}{after}: {type(cause).__name__}: {cause}"
        if isinstance(exc, anthropic.APIStatusError):
            code = exc.status_code
            api = f": {exc.api_message}" if getattr(exc, "api_message", None) else ""
            if isinstance(exc, anthropic.RateLimitError):
                what = "rate limited (429)"
            elif code == 529:
                what = "overloaded (529)"
            elif isinstance(exc, anthropic.AuthenticationError):
                what = f"the API key was not accepted (401); check {ENV_KEY}"
            elif isinstance(exc, anthropic.PermissionDeniedError):
                what = "the API key may not use this (403)"
            elif isinstance(exc, anthropic.NotFoundError):
                what = f"not found (404): is {s.model!r} a model this key can use? ({ENV_MODEL})"
            elif code >= 500:
                what = f"server error ({code})"
            else:
                what = f"request refused ({code})"
                if "tool_choice" in (exc.api_message or ""):
                    what += f"; this model may not take a forced tool choice: set {ENV_TOOL_CHOICE}=auto"
            return f"{host}: {what}{after}{api}"
        return f"{type(exc).__name__}: {exc}"

    @staticmethod
    def _refusal_detail(content: list[Any]) -> str:
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return " ".join(t.strip() for t in texts if t.strip())[:300]

    def _budget_message(self, b: CallBudget, rule: str, attempt: int, estimate: int) -> str:
        which = "call" if attempt == 0 else f"retry {attempt}"
        if rule == "model_call_budget":
            return (f"the {self.agent} {which} would exceed the model-call budget "
                    f"({b.spent_calls} of {b.remaining_calls} calls left for this step already used)")
        return (f"the {self.agent} {which} (about {estimate} tokens by the local estimate) would cross the "
                f"token budget ({b.spent_tokens} of {b.remaining_tokens} tokens left for this step already used)")


class _GaveUp(Exception):
    """A retryable error not retried, because the deadline of the exchange would pass."""

    def __init__(self, exc: Exception, why: str) -> None:
        super().__init__(why)
        self.exc, self.why = exc, why


def _retryable(exc: Exception) -> bool:
    import anthropic

    if isinstance(exc, (anthropic.APITimeoutError, anthropic.APIConnectionError)):
        return True
    if not isinstance(exc, anthropic.APIStatusError):
        return False
    said = exc.response.headers.get("x-should-retry")
    if said in ("true", "false"):
        return said == "true"
    return exc.status_code in (408, 409, 429) or exc.status_code >= 500


def _asked_wait(headers: Any) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, else ``retry-after`` as seconds or
    an HTTP date; ``None`` when neither is there or readable."""
    import email.utils

    text = headers.get("retry-after-ms")
    if text is not None:
        try:
            value = float(text) / 1000
            return value if value >= 0 else None  # NaN is not >= 0
        except ValueError:
            pass
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
        return value if value >= 0 else None
    except ValueError:
        pass
    try:
        return max(0.0, email.utils.parsedate_to_datetime(text).timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _retry_wait(exc: Exception, attempt: int, cap: float) -> float:
    """What the server asks, never more than ``cap``; without it 0.5 s doubling up to 8 s."""
    response = getattr(exc, "response", None)
    asked = _asked_wait(response.headers) if response is not None else None
    if asked is None:
        asked = min(0.5 * 2 ** attempt, MAX_BACKOFF_S)
    return min(asked, cap)


def _ms(started: float) -> int:
    return int(round((time.monotonic() - started) * 1000))


class AnthropicRequirementProvider(_AnthropicAgent):
    """Claude as the Requirement Agent: request text + baseline -> RequirementDecision."""

    agent = "requirement"

    def propose(self, request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                limits: CallLimits | None = None) -> tuple[RequirementDecision, list[AgentCall]]:
        prompt, system, user = requirement_prompt(request_text, baseline, follow_ups)
        return self._converse(prompt, system, user, requirement_tool(),
                              lambda raw: decode_requirement_against(raw, baseline), limits)


class AnthropicReviewProvider(_AnthropicAgent):
    """Claude as the Quality Review Agent: evidence -> ReviewVerdict (an intent, never a number)."""

    agent = "review"

    def review(self, evidence: dict[str, Any], allowed_intents: list[str], *,
               limits: CallLimits | None = None) -> tuple[ReviewVerdict, list[AgentCall]]:
        prompt, system, user = review_prompt(evidence, list(allowed_intents))
        return self._converse(prompt, system, user, review_tool(), decode_review_output, limits)


__all__ = ["AnthropicRequirementProvider", "AnthropicReviewProvider", "AnthropicSettings", "ProviderConfigError",
           "OutputInvalid", "decode_requirement_output", "decode_requirement_against", "decode_review_output", "requirement_tool", "review_tool",
           "requirement_prompt", "review_prompt", "estimate_tokens", "DEFAULT_MODEL", "PROVIDER_NAME"]
