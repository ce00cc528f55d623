"""The replay provider: answer every agent call from a recording, without a model.

``--provider replay:PATH`` re-runs a workflow step by step from the agent outputs another
run recorded, so a workflow made with Claude can be reproduced offline, by anyone, with
the same final state and the same candidate hashes. ``PATH`` is either

* a workflow folder in a workspace (``$GCV_HOME/workflows/<wf>/``: ``state.json`` and
  ``activities.jsonl``), or
* an evidence bundle (a ``.zip`` or its unpacked folder with ``index.json``), read with the
  bundle reader's safety checks (``gcv.store.safezip``). The bundle is not verified
  here; ``gcv verify`` does that.

Each call is answered with the recorded raw model output, re-parsed through the same
parser the recording provider used (``decode_recorded_output``): the n-th requirement call
with the recorded requirement activity, a review with the recorded review of the same
round. The recorded :class:`AgentCall` records are returned unchanged (usage included), so
the replayed workflow counts the same model calls and tokens and meets the same budgets.
A recorded failure (refusal, truncation, unavailable, budget) is raised again as the same
error. Retried answers are re-checked too: an answer the recording rejected must still be
rejected, the accepted one must still parse.

A request that does not match the recording raises :class:`ReplayMismatch` and names what
differs: the request text, the baseline, the round, the evaluation the reviewer was shown,
the allowed intents, or the prompt the model was sent (its sha256 over the exact prompt
text; a changed prompt template means the recorded answer was to a different question).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gcv.agents.base import AgentCall, CallLimits, RequirementDecision, ReviewVerdict
from gcv.agents.errors import (AgentBudgetExceeded, AgentError, AgentOutputInvalid, AgentRefused, AgentTruncated,
                               AgentUnavailable, ReplayMismatch)
from gcv.agents.anthropic_provider import (OutputInvalid, decode_requirement_against, decode_requirement_output,
                                           decode_review_output, requirement_prompt, review_prompt, validation_text)
from gcv.agents.offline_requirement.provider import prompt_sha256 as offline_requirement_sha256
from gcv.agents.offline_review import prompt_sha256 as offline_review_sha256
from gcv.contract.activity_keys import requirement_key, review_key
from gcv.contract.canonical import config_hash, content_hash, sha256_hex
from gcv.contract.models import BulletHellConfig
from gcv.store.errors import StoreError
from gcv.store.safezip import BundleReadError, read_bundle
from gcv.store.workflow_dir import WorkflowDir

PROVIDER_NAME = "replay"

_ERRORS: dict[str, type[AgentError]] = {
    "agent_output_invalid": AgentOutputInvalid, "agent_refused": AgentRefused, "agent_max_tokens": AgentTruncated,
    "agent_unavailable": AgentUnavailable, "replay_mismatch": ReplayMismatch,
}


class RecordingError(ValueError):
    """PATH is not a recording the replay provider can read (bad usage, exit code 2)."""


@dataclass
class Recording:
    """The agent activities of one recorded workflow, with what each was asked about."""

    source: str
    request: str
    baseline_hash: str
    answers: list[str] = field(default_factory=list)  # the designer's answers, in order
    requirement: list[dict[str, Any]] = field(default_factory=list)  # activity results: the request, then each answer
    reviews: dict[int, dict[str, Any]] = field(default_factory=dict)  # round -> activity result
    evaluation_hashes: dict[int, str] = field(default_factory=dict)  # round -> content hash
    # False when the bundle had secrets or machine paths scrubbed from what the model was asked:
    # the recorded prompt hashes were taken over the original text, which the bundle no longer holds
    check_prompts: bool = True
    allowed: dict[int, list[str]] = field(default_factory=dict)  # round -> allowed intents


def load_recording(path: str | Path) -> Recording:
    """The recording at ``path``: a workflow folder, or an evidence bundle (zip or folder)."""
    p = Path(path).expanduser()
    if not str(path).strip():
        raise RecordingError("replay needs a path: --provider replay:PATH, where PATH is a workflow folder "
                             "(workflows/<wf>/) or an evidence bundle (.zip or folder)")
    if not p.exists():
        raise RecordingError(f"replay recording {p} does not exist")
    if p.is_dir() and (p / "state.json").is_file():
        return _from_workflow(p)
    if p.is_file() or (p / "index.json").is_file():
        return _from_bundle(p)
    raise RecordingError(f"{p} is neither a workflow folder (with state.json) nor an evidence bundle "
                         "(a .zip, or a folder with index.json)")


def _from_workflow(root: Path) -> Recording:
    d = WorkflowDir(root)
    try:
        state = d.read_state()
        activities = d.activities()
    except (StoreError, OSError, json.JSONDecodeError) as exc:
        raise RecordingError(f"cannot read the workflow at {root}: {exc}") from None
    rec = Recording(source=str(root), request=state.get("request", ""), baseline_hash=state.get("baseline_hash", ""),
                    answers=[a["text"] for a in state.get("answers") or []])
    for attempt in range(1, len(rec.answers) + 2):
        key = requirement_key(attempt)
        if key in activities:
            rec.requirement.append(activities[key])
    for rnd in state.get("rounds", []):
        n = int(rnd["round"])
        if review_key(n) in activities:
            rec.reviews[n] = activities[review_key(n)]
        if rnd.get("evaluation_hash"):
            rec.evaluation_hashes[n] = rnd["evaluation_hash"]
        if rnd.get("allowed"):
            rec.allowed[n] = list(rnd["allowed"].get("intents", []))
    return rec


def _from_bundle(path: Path) -> Recording:
    with tempfile.TemporaryDirectory(prefix="gcv-replay-") as tmp:
        try:
            files = read_bundle(path, workdir=Path(tmp))
        except BundleReadError as exc:
            raise RecordingError(f"cannot read the evidence bundle {path}: {exc}") from None
    return recording_from_files(files, source=str(path))


def recording_from_files(files: dict[str, bytes], *, source: str) -> Recording:
    """The recording held by a bundle's files (already read safely)."""

    def doc(name: str | None) -> Any:
        if not name or name not in files:
            return None
        try:
            return json.loads(files[name])
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RecordingError(f"{source}: {name} is not JSON: {exc}") from None

    index = doc("index.json")
    if not isinstance(index, dict):
        raise RecordingError(f"{source} has no index.json: not an evidence bundle")
    state = doc(index.get("state")) or {}
    baseline = doc((index.get("baseline") or {}).get("config"))
    rec = Recording(source=source, request=state.get("request", ""),
                    baseline_hash=content_hash(baseline) if baseline is not None else "",
                    answers=[a["text"] for a in state.get("answers") or []])
    rec.check_prompts = not (index.get("redactions") or {}).get("kinds")
    requirement = index.get("requirement") or {}
    for name in requirement.get("attempts") or [requirement.get("agent")]:
        record = doc(name)
        if record is not None:
            rec.requirement.append(record)
    for entry in index.get("rounds", []):
        n = int(entry["round"])
        review = doc(entry.get("agent"))
        if review is not None:
            rec.reviews[n] = review
        evaluation = doc(entry.get("evaluation"))
        if evaluation is not None:
            rec.evaluation_hashes[n] = content_hash(evaluation)
        allowed = (doc(entry.get("review")) or {}).get("allowed")
        if allowed:
            rec.allowed[n] = list(allowed.get("intents", []))
    return rec


# ---------------------------------------------------------------------------------------------
# decoding recorded outputs (shared with anything that re-derives from a recording)
# ---------------------------------------------------------------------------------------------

def decode_recorded_output(agent: str, provider: str, raw_output: str, *,
                           baseline: BulletHellConfig | None = None) -> RequirementDecision | ReviewVerdict:
    """The decision or verdict in a recorded raw output, parsed as its provider parsed it.

    ``anthropic`` outputs are the response content blocks (the tool call's input is the
    answer); ``offline`` outputs are the answer's JSON itself. Raises ``OutputInvalid``
    (a ``ValueError``) when the output does not parse, and ``ValueError`` for a provider
    whose outputs it does not know.
    """
    if agent not in ("requirement", "review"):
        raise ValueError(f"unknown agent {agent!r}")
    if provider == "anthropic":
        if agent == "review":
            return decode_review_output(raw_output)
        # with the baseline, as the provider decoded it: a candidate off its own goal was fed back
        return (decode_requirement_against(raw_output, baseline) if baseline is not None
                else decode_requirement_output(raw_output))
    if provider == "offline":
        model = RequirementDecision if agent == "requirement" else ReviewVerdict
        try:
            return model.model_validate_json(raw_output)
        except ValidationError as exc:
            raise OutputInvalid(validation_text(exc)) from None
    raise ValueError(f"cannot decode raw output recorded by provider {provider!r}")


def prompt_fingerprint(call: AgentCall, *, requirement: tuple[str, BulletHellConfig, list[str]] | None = None,
                 review: tuple[dict[str, Any], list[str]] | None = None) -> str | None:
    """The prompt sha256 the recording provider would record for this question now (None: a provider
    whose prompts this code does not know). A recorded answer is valid only for its own question."""
    if call.provider == "anthropic":
        _, system, user = requirement_prompt(*requirement) if requirement else review_prompt(*review)  # type: ignore[misc]
        return sha256_hex(f"{system}\n\n{user}".encode("utf-8"))
    if call.provider == "offline":
        if requirement is not None:
            return offline_requirement_sha256(*requirement)
        assert review is not None
        return offline_review_sha256(*review)
    return None


class _ReplayProvider:
    name = PROVIDER_NAME

    def __init__(self, path: str | Path | Recording) -> None:
        self.recording = path if isinstance(path, Recording) else load_recording(path)
        self.path = self.recording.source

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r})"

    def _answer(self, agent: str, record: dict[str, Any], what: str, fingerprint_of: Any,
                baseline: BulletHellConfig | None = None) -> Any:
        calls = [AgentCall.model_validate(c) for c in record.get("calls", [])]
        if calls and self.recording.check_prompts:
            want = fingerprint_of(calls[0])
            if want is not None and calls[0].prompt_sha256 and want != calls[0].prompt_sha256:
                raise ReplayMismatch(
                    f"{what}: the prompt differs from the recorded one (recorded prompt {calls[0].prompt_id}, "
                    f"sha256 {calls[0].prompt_sha256[:12]}; now {want[:12]}): the recorded answer was to a "
                    "different question")
        error = record.get("error")
        if error:
            kind = error.get("kind", "")
            message = error.get("message", kind)  # the recorded failure, word for word
            if kind in ("model_call_budget", "token_budget"):
                raise AgentBudgetExceeded(message, calls, rule=kind)
            raise _ERRORS.get(kind, AgentUnavailable)(message, calls)
        answer = None
        for i, call in enumerate(calls):
            if not call.raw_output or call.error_type not in (None, "output_invalid"):
                continue
            try:
                decoded = decode_recorded_output(agent, call.provider, call.raw_output, baseline=baseline)
            except ValueError as exc:
                if call.error_type == "output_invalid":
                    continue  # rejected then, rejected now
                raise ReplayMismatch(f"{what}: recorded call {i + 1} no longer parses: {exc}", calls) from None
            if call.error_type == "output_invalid":
                raise ReplayMismatch(f"{what}: recorded call {i + 1} was rejected when recorded but parses now "
                                     "(the parser changed)", calls)
            answer = decoded
        if answer is None:
            raise ReplayMismatch(f"{what}: the recording holds no answer that parses", calls)
        return answer, calls


class ReplayRequirementProvider(_ReplayProvider):
    def propose(self, request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                limits: CallLimits | None = None) -> tuple[RequirementDecision, list[AgentCall]]:
        """The recorded answer (``limits`` accepted and unused: the recorded calls carry their usage)."""
        n = len(follow_ups)  # the request, then once after each answer
        rec = self.recording
        what = f"requirement call {n + 1} (replay of {self.path})"
        if n >= len(rec.requirement):
            raise ReplayMismatch(f"{what}: the recording holds {len(rec.requirement)} requirement call(s)")
        if request_text != rec.request:
            raise ReplayMismatch(f"{what}: the request text differs from the recorded one "
                                 f"(recorded {rec.request[:80]!r}, asked {request_text[:80]!r})")
        if list(follow_ups) != rec.answers[:n]:
            raise ReplayMismatch(f"{what}: the designer's answers differ from the recorded ones")
        if config_hash(baseline) != rec.baseline_hash:
            raise ReplayMismatch(f"{what}: the baseline differs from the recorded one "
                                 f"(recorded {rec.baseline_hash[:12]}, now {config_hash(baseline)[:12]})")
        return self._answer("requirement", rec.requirement[n], what,
                            lambda call: prompt_fingerprint(call, requirement=(request_text, baseline, list(follow_ups))),
                            baseline=baseline)


class ReplayReviewProvider(_ReplayProvider):
    def review(self, evidence: dict[str, Any], allowed_intents: list[str], *,
               limits: CallLimits | None = None) -> tuple[ReviewVerdict, list[AgentCall]]:
        rec = self.recording
        n = int(evidence.get("round", 0))
        what = f"review of round {n} (replay of {self.path})"
        if n not in rec.reviews:
            rounds = ", ".join(map(str, sorted(rec.reviews))) or "none"
            raise ReplayMismatch(f"{what}: the recording holds no review for round {n} (recorded rounds: {rounds})")
        recorded = rec.evaluation_hashes.get(n)
        shown = content_hash(evidence.get("evaluation"))
        if recorded is not None and shown != recorded:
            raise ReplayMismatch(f"{what}: the evidence differs from the recording (evaluation hash "
                                 f"{shown[:12]}, recorded {recorded[:12]})")
        if n in rec.allowed and list(allowed_intents) != rec.allowed[n]:
            raise ReplayMismatch(f"{what}: the allowed intents differ from the recording "
                                 f"({', '.join(allowed_intents)} vs recorded {', '.join(rec.allowed[n])})")
        return self._answer("review", rec.reviews[n], what,
                            lambda call: prompt_fingerprint(call, review=(evidence, list(allowed_intents))))


__all__ = ["ReplayRequirementProvider", "ReplayReviewProvider", "Recording", "RecordingError", "load_recording",
           "recording_from_files", "decode_recorded_output", "prompt_fingerprint"]
