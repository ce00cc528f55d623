"""Score a Requirement Agent provider on a labeled request set.

A designer judges GCV by its first step, so the reader's accuracy is measured, not assumed:
``artifacts/requests/*.jsonl`` holds requests written by people, each labeled with the
decision it must get and what the candidate must (and must not) change. This module loads
such a set, runs a provider on every request through :class:`RequirementAgent` (so an
accepted answer is held to the four validation layers exactly as in ``gcv propose``), and
compares each result with its label. A request counts as right only if every part of the
label holds; the first part that does not is the miss's reason.

What a label can say (``Expectation``):

* ``decision``: the one decision the request must get;
* ``fields``: candidate values, ``"phase_2.bullet_speed": 3.24`` (a phase id and a pattern
  field, or ``targets.<field>``), exact or a comparison (``{">": 3.6}``,
  ``{"between": [900, 960]}``) where the request does not fix one number;
* ``unchanged``: parts of the config that must equal the baseline: a phase id, ``targets``,
  ``limits``, ``boss``, ``player``, ``scenario``, or ``rest`` (every part that no ``fields``
  entry and no ``density`` entry names);
* ``density``: ``"up"`` / ``"down"`` per phase: bullets per second (bullets per wave x
  layers x 2 if bidirectional, per wave interval) strictly higher / lower than the
  baseline's; this is how "denser" is labeled without fixing the size of the step;
* ``issues``: for ``blocked``, strings each found in some issue's field;
* ``mentions``: strings (case-insensitive) found in what the decision says (rationale,
  questions, issue messages), e.g. that an injected instruction was ignored.

Follow-up answers (``follow_ups``) are passed to a provider whose ``propose`` takes
``follow_ups``; for any other provider they are folded into the request text
(:func:`fold_answers`), the same way every time, so a recording replays.

Recording and replay: :class:`Recorder` writes one JSON line per request (the text sent,
the baseline hash, every :class:`AgentCall`, or the error) as it goes, so an interrupted run
keeps what it did; :class:`ReplayRunner` answers each request from such a file, re-parsing
the recorded raw outputs, and so reproduces the score without a network.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import (ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, ValidationError,
                      model_validator)

from gcv.contract.base import GcvModel
from gcv.agents.base import DECISIONS, AgentCall, CallLimits, Decision, RequirementDecision, RequirementProvider
from gcv.agents.errors import AgentError, ReplayMismatch
from gcv.agents.replay_provider import decode_recorded_output, prompt_fingerprint
from gcv.agents.requirement import Proposal, RequirementAgent
from gcv.contract.canonical import config_hash
from gcv.contract.loading import GcvInputError, read_input_text
from gcv.contract.schema_form import model_schema
from gcv.contract.models import BulletHellConfig, Pattern, Targets
from gcv.sim.fixed import exact
from gcv.validation.diff import diff_configs
from gcv.store.logs import jsonl_lines

SET_FORMAT = "gcv.request_set/1"
SET_SCHEMA_FILE = "request_set.schema.json"
RECORDING_FORMAT = "gcv.request_eval_recording/1"

RequestClass = Literal[
    "core",          # ordinary requests: pressure, patterns, rotation, constraints
    "units",         # numbers with units and counters (350 发, 0.5 s, 600 ms, 20%)
    "cn_numerals",   # Chinese numerals (三百五十, 两倍, 一半, 八成, 零点八)
    "fullwidth",     # full-width digits and punctuation
    "approx",        # approximations and ranges (大概, about, ~, 左右)
    "switch",        # direction of a switch (A instead of B, 把 B 改成 A)
    "field_names",   # literal field names and paths (bullets_per_wave, phases[2].pattern...)
    "targets",       # design-target changes (tighten: accepted; loosen: safety rules)
    "no_op",         # explicit no-op (保持不变, keep everything)
    "out_of_scope",  # other entities: boss, player, arena, phases, mechanics, music, art
    "one_quantity",  # one quantity applied once ("a bit slower, about 10%")
    "whole_fight",   # every phase ("easier overall", 降低整体难度)
    "injection",     # a valid request with injected instructions
    "answers",       # a request continued by the designer's answers (follow_ups)
    "unclear",       # genuinely unclear: a question is the right answer
    # issue 27's held-out part (heldout2.jsonl) adds the classes the first set lacked:
    "amounts",       # an amount to add or cut ("add 5 bullets", "cut 200 ms", 多加一层)
    "rates",         # per second vs per wave, "N times as often", rate of fire
    "rotation",      # rotation verbs (spin, twist, turn the other way, 顺时针)
    "phase_refs",    # "the last two phases", pattern nicknames, typos in 阶段
    "compound",      # several edits at once, lists of edits, a change plus a target
    "negation",      # "don't touch the speed", "not faster, slower", 不要更快
    "contradiction", # opposite direction words in one request: a question is the right answer
    "easing",        # colloquial easing and intensifying words (go easy on, 放水, crank up)
    "numbers",       # fractions and number words (a third, a dozen, three quarters, 三分之二)
]
REQUEST_CLASSES: tuple[str, ...] = RequestClass.__args__  # type: ignore[attr-defined]
Language = Literal["en", "zh", "mixed"]
Style = Literal["typos", "casual", "terse", "jargon", "traditional", "list"]
Split = Literal["heldout", "dev", "heldout2", "heldout3", "heldout4"]
SPLITS: tuple[str, ...] = Split.__args__  # type: ignore[attr-defined]
STYLES: tuple[str, ...] = Style.__args__  # type: ignore[attr-defined]
REGIONS = ("targets", "limits", "boss", "player", "scenario")
_PATTERN_FIELDS = tuple(Pattern.model_fields)
_TARGET_FIELDS = tuple(Targets.model_fields)


class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid")


class Comparison(_Strict):
    """A bound instead of one value: exactly one of the keys is given."""

    gt: float | None = Field(default=None, alias=">")
    lt: float | None = Field(default=None, alias="<")
    ge: float | None = Field(default=None, alias=">=")
    le: float | None = Field(default=None, alias="<=")
    between: tuple[float, float] | None = Field(default=None, description="inclusive [low, high]")

    model_config = ConfigDict(extra="forbid", populate_by_name=False,
                              json_schema_extra={"minProperties": 1, "maxProperties": 1})

    @model_validator(mode="after")
    def _one(self) -> Comparison:
        given = [k for k in ("gt", "lt", "ge", "le", "between") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a comparison has exactly one of '>', '<', '>=', '<=', 'between'")
        if self.between is not None and self.between[0] > self.between[1]:
            raise ValueError("'between' is [low, high] with low <= high")
        return self

    def holds(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        v = exact(value)
        if self.gt is not None:
            return v > exact(self.gt)
        if self.lt is not None:
            return v < exact(self.lt)
        if self.ge is not None:
            return v >= exact(self.ge)
        if self.le is not None:
            return v <= exact(self.le)
        assert self.between is not None
        return exact(self.between[0]) <= v <= exact(self.between[1])

    def describe(self) -> str:
        if self.between is not None:
            return f"between {_show(self.between[0])} and {_show(self.between[1])}"
        for key, sign in (("gt", ">"), ("lt", "<"), ("ge", ">="), ("le", "<=")):
            if getattr(self, key) is not None:
                return f"{sign} {_show(getattr(self, key))}"
        return "?"  # pragma: no cover - the validator guarantees one key


FieldValue = Union[StrictBool, StrictInt, StrictFloat, StrictStr, Comparison]


class Expectation(_Strict):
    """What a request must get (see the module docstring)."""

    decision: Decision
    fields: dict[str, FieldValue] = Field(default_factory=dict,
                                          description="'<phase_id>.<pattern field>' or 'targets.<field>' -> value")
    unchanged: list[str] = Field(default_factory=list,
                                 description="phase ids, targets, limits, boss, player, scenario, or 'rest'")
    density: dict[str, Literal["up", "down"]] = Field(default_factory=dict,
                                                      description="phase id -> bullets per second up or down")
    issues: list[str] = Field(default_factory=list, description="for blocked: substrings of issue fields")
    mentions: list[str] = Field(default_factory=list, description="substrings of what the decision says")

    @model_validator(mode="after")
    def _consistent(self) -> Expectation:
        if self.decision != "accepted" and (self.fields or self.density or self.unchanged):
            raise ValueError("fields, unchanged and density describe an accepted candidate only")
        if self.decision != "blocked" and self.issues:
            raise ValueError("issues are for blocked decisions only")
        for key in self.fields:
            where, _, name = key.partition(".")
            known = _TARGET_FIELDS if where == "targets" else _PATTERN_FIELDS
            if not where or name not in known:
                raise ValueError(f"field {key!r}: expected '<phase_id>.<one of {', '.join(_PATTERN_FIELDS)}>' "
                                 f"or 'targets.<one of {', '.join(_TARGET_FIELDS)}>'")
        return self


class LabeledRequest(_Strict):
    """One request of the set, as one JSON line."""

    id: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")
    split: Split = Field(description="heldout: written before the reader was tuned and never tuned to; "
                                     "heldout2: issue 27's second held-out part, written the same way; "
                                     "heldout3: a third, written after the reader's issue 27 work, never tuned to; "
                                     "heldout4: a fourth (issue 27 item 5), written before any reader change for it")
    lang: Language
    classes: list[RequestClass] = Field(min_length=1)
    style: list[Style] = Field(default_factory=list)
    text: str = Field(max_length=4000)
    follow_ups: list[str] = Field(default_factory=list, description="the designer's answers, in order")
    expect: Expectation


class SetError(ValueError):
    """The request set cannot be read: which file, which line, which field."""


def load_set(path: str | Path) -> list[LabeledRequest]:
    """Every request in a ``.jsonl`` file, or in every ``*.jsonl`` of a folder (sorted by name)."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.jsonl"))
        if not files:
            raise SetError(f"{p}: no *.jsonl request files in this folder")
    elif p.exists():
        files = [p]  # read_input_text below refuses anything but a regular file
    else:
        raise SetError(f"{p}: no such file or folder")
    out: list[LabeledRequest] = []
    seen: dict[str, str] = {}
    for f in files:
        try:  # a regular file under the request-set cap (no FIFO, no /dev/zero), UTF-8
            lines = jsonl_lines(read_input_text(f, "request set"))
        except GcvInputError as exc:
            raise SetError(f"{f}: {exc.message}") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = LabeledRequest.model_validate_json(line)
            except ValidationError as exc:
                err = exc.errors(include_url=False)[0]
                where = ".".join(str(x) for x in err["loc"]) or "(the line)"
                raise SetError(f"{f}:{n}: {where}: {err['msg']}") from None
            if row.id in seen:
                raise SetError(f"{f}:{n}: id {row.id!r} is used twice (first in {seen[row.id]})")
            seen[row.id] = f"{f.name}:{n}"
            out.append(row)
    return out


def set_schema() -> dict[str, Any]:
    """The JSON Schema of one line of a request set (``schemas/request_set.schema.json``)."""
    schema = model_schema(LabeledRequest, SET_SCHEMA_FILE)
    schema["description"] = (f"{SET_FORMAT}: one labeled designer request per line of a JSONL file "
                             "(artifacts/requests/); scored by `gcv eval-requests`")
    return schema


# ---------------------------------------------------------------------------------------------
# running a provider on one request
# ---------------------------------------------------------------------------------------------

def fold_answers(text: str, follow_ups: Sequence[str]) -> str:
    """The request and its answers as one text, for providers that take no follow-ups."""
    if not follow_ups:
        return text
    answers = "\n".join(f"{i}. {a}" for i, a in enumerate(follow_ups, 1))
    return f"{text}\n\nThe designer's answers to the questions, in order:\n{answers}"


def takes_follow_ups(provider: Any) -> bool:
    try:
        return "follow_ups" in inspect.signature(provider.propose).parameters
    except (TypeError, ValueError):
        return False


class _Folded:
    """Adapts a provider that takes only the text and the baseline (a script under evaluation)
    to the interface RequirementAgent calls: its answers arrive folded into the text."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "provider")

    def propose(self, request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                limits: CallLimits | None = None) -> tuple[RequirementDecision, list[AgentCall]]:
        return self.inner.propose(fold_answers(request_text, follow_ups), baseline)  # type: ignore[no-any-return]


class _Answered:
    """A provider that gives one fixed answer (a replayed one)."""

    name = "replay"

    def __init__(self, decision: RequirementDecision, calls: list[AgentCall]) -> None:
        self.decision, self.calls = decision, calls

    def propose(self, request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                limits: CallLimits | None = None) -> tuple[RequirementDecision, list[AgentCall]]:
        return self.decision, list(self.calls)


@dataclass
class Outcome:
    """What one provider made of one request: a proposal, or the agent error it raised."""

    proposal: Proposal | None
    calls: list[AgentCall] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None


class ProviderRunner:
    """Runs a live provider (offline rules, Claude) on each request; optionally records."""

    def __init__(self, provider: RequirementProvider, recorder: Recorder | None = None) -> None:
        self.provider = provider
        self.recorder = recorder
        self.native_answers = takes_follow_ups(provider)

    def run(self, request: LabeledRequest, baseline: BulletHellConfig) -> Outcome:
        agent_provider: RequirementProvider = self.provider if self.native_answers else _Folded(self.provider)
        # what the provider is sent: the request (its answers beside it), or both as one text
        sent = request.text if self.native_answers else fold_answers(request.text, request.follow_ups)
        try:
            proposal = RequirementAgent(agent_provider).propose_with_report(request.text, baseline,
                                                                            follow_ups=request.follow_ups)
            outcome = Outcome(proposal, list(proposal.calls))
        except AgentError as exc:
            outcome = Outcome(None, list(exc.calls), error=str(exc), error_kind=exc.kind)
        if self.recorder is not None:
            self.recorder.write(request, sent, baseline, outcome)
        return outcome


class Recorder:
    """Appends one line per request to a recording file, flushed at once (nothing lost)."""

    def __init__(self, path: Path, *, provider: str, model: str, baseline: BulletHellConfig) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("w", encoding="utf-8")
        self._line({"format": RECORDING_FORMAT, "provider": provider, "model": model,
                    "baseline_hash": config_hash(baseline)})

    def _line(self, obj: dict[str, Any]) -> None:
        self._fh.write(json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n")
        self._fh.flush()

    def write(self, request: LabeledRequest, sent: str, baseline: BulletHellConfig, outcome: Outcome) -> None:
        self._line({"id": request.id, "text": request.text, "follow_ups": request.follow_ups, "sent": sent,
                    "answers_passed": sent == request.text and bool(request.follow_ups),
                    "baseline_hash": config_hash(baseline),
                    "calls": [c.model_dump(mode="json") for c in outcome.calls],
                    "error": ({"kind": outcome.error_kind, "message": outcome.error}
                              if outcome.error is not None else None)})

    def close(self) -> None:
        self._fh.close()


class RecordingError(ValueError):
    """A replay file that cannot be read (bad usage)."""


class ReplayRunner:
    """Answers each request from a recording written by :class:`Recorder`.

    The recorded raw outputs are parsed again with the parser of the provider that wrote
    them, and the answer goes through the same RequirementAgent checks, so the score is
    reproduced without a network. A request the recording does not hold, a changed request
    text, baseline or prompt is a mismatch (an error outcome that names what differs).
    """

    def __init__(self, path: str | Path) -> None:
        p = Path(path)
        if not str(path).strip():
            raise RecordingError("replay needs a path: --provider replay:PATH (a recording written by "
                                 "`gcv eval-requests --provider anthropic`)")
        try:  # a regular file under the recording cap (no FIFO, no /dev/zero), UTF-8
            lines = [ln for ln in jsonl_lines(read_input_text(p, "recording")) if ln.strip()]
        except GcvInputError as exc:
            raise RecordingError(f"cannot read the recording {p}: {exc.message}") from None
        try:
            rows = [json.loads(ln) for ln in lines]
        except (json.JSONDecodeError, RecursionError) as exc:
            raise RecordingError(f"{p}: not a JSONL recording: {exc}") from None
        if not rows or not all(isinstance(r, dict) for r in rows) or rows[0].get("format") != RECORDING_FORMAT:
            raise RecordingError(f"{p}: not a {RECORDING_FORMAT} file (its first line names the format)")
        self.path = str(p)
        self.header = rows[0]
        self.records: dict[str, dict[str, Any]] = {r["id"]: r for r in rows[1:] if "id" in r}

    def run(self, request: LabeledRequest, baseline: BulletHellConfig) -> Outcome:
        rec = self.records.get(request.id)
        try:
            if rec is None:
                raise ReplayMismatch(f"the recording {self.path} holds no answer for {request.id}")
            if rec.get("text") != request.text or list(rec.get("follow_ups") or []) != request.follow_ups:
                raise ReplayMismatch(f"{request.id}: the request text differs from the recorded one")
            if rec.get("baseline_hash") != config_hash(baseline):
                raise ReplayMismatch(f"{request.id}: the baseline differs from the recorded one")
            calls = [AgentCall.model_validate(c) for c in rec.get("calls") or []]
            answers = request.follow_ups if rec.get("answers_passed") else []
            _check_prompt(request.id, rec.get("sent", ""), answers, baseline, calls)
            if rec.get("error"):
                err = rec["error"]
                return Outcome(None, calls, error=f"{err.get('message')} (replayed)", error_kind=err.get("kind"))
            answer = None
            for call in calls:
                if call.raw_output and call.error_type is None:
                    answer = decode_recorded_output("requirement", call.provider, call.raw_output)
            if answer is None:
                raise ReplayMismatch(f"{request.id}: the recording holds no answer that parses")
            assert isinstance(answer, RequirementDecision)
            proposal = RequirementAgent(_Answered(answer, calls)).propose_with_report(rec["sent"], baseline)
            return Outcome(proposal, calls)
        except (ReplayMismatch, ValueError) as exc:
            kind = exc.kind if isinstance(exc, AgentError) else "replay_mismatch"
            return Outcome(None, [], error=str(exc), error_kind=kind)


def _check_prompt(rid: str, sent: str, answers: Sequence[str], baseline: BulletHellConfig,
                  calls: list[AgentCall]) -> None:
    """A recorded answer is only valid for the prompt it answered."""
    if not calls or not calls[0].prompt_sha256:
        return
    now = prompt_fingerprint(calls[0], requirement=(sent, baseline, list(answers)))
    if now is not None and now != calls[0].prompt_sha256:
        raise ReplayMismatch(f"{rid}: the prompt differs from the recorded one (prompt {calls[0].prompt_id}); the "
                             "recorded answer was to a different question")


# ---------------------------------------------------------------------------------------------
# judging one outcome against its label
# ---------------------------------------------------------------------------------------------

def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _value_at(cfg: BulletHellConfig, key: str) -> tuple[bool, Any]:
    where, _, name = key.partition(".")
    if where == "targets":
        return True, getattr(cfg.targets, name)
    phase = cfg.phase(where)
    if phase is None:
        return False, None
    return True, getattr(phase.pattern, name)


def _matches(want: Any, got: Any) -> bool:
    if isinstance(want, Comparison):
        return want.holds(got)
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return exact(want) == exact(got)
    return bool(want == got)


def bullets_per_second(pattern: Pattern) -> Fraction:
    """Spawn rate of a pattern: what 'denser' and 'sparser' move."""
    per_wave = pattern.bullets_per_wave * pattern.layer_count * (2 if pattern.bidirectional else 1)
    return Fraction(per_wave * 1000, pattern.wave_interval_ms)


def _region_of(path: str, baseline: BulletHellConfig) -> str:
    """'$.phases[1].pattern.x' -> 'phase_2'; '$.targets.x' -> 'targets'."""
    if path.startswith("$.phases["):
        index = int(path[len("$.phases["):path.index("]")])
        return baseline.phases[index].phase_id if index < len(baseline.phases) else f"phases[{index}]"
    return path[2:].split(".", 1)[0].split("[", 1)[0]


def _decision_text(d: RequirementDecision) -> str:
    parts = [d.rationale, *d.questions, *(f"{i.field} {i.message}" for i in d.issues)]
    return "\n".join(parts).lower()


def _summary(d: RequirementDecision) -> str:
    if d.decision == "needs_clarification" and d.questions:
        return d.questions[0]
    if d.decision == "blocked" and d.issues:
        return "; ".join(f"{i.field}: {i.message}" for i in d.issues[:2])
    return d.rationale


def judge(request: LabeledRequest, outcome: Outcome, baseline: BulletHellConfig) -> str | None:
    """None if the outcome is what the label says; else the first difference, in words."""
    exp = request.expect
    if outcome.proposal is None:
        return f"agent error ({outcome.error_kind}): {outcome.error}"
    d = outcome.proposal.decision
    if d.decision != exp.decision:
        return f"decision: expected {exp.decision}, got {d.decision} ({_summary(d)[:200]})"
    if exp.decision == "accepted":
        cand = d.candidate
        if cand is None:
            return "accepted without a candidate"
        for key in sorted(exp.fields):
            found, got = _value_at(cand, key)
            if not found:
                return f"field {key}: the candidate has no phase {key.split('.')[0]!r}"
            want = exp.fields[key]
            if not _matches(want, got):
                shown = want.describe() if isinstance(want, Comparison) else _show(want)
                return f"field {key}: expected {shown}, got {_show(got)}"
        for pid, way in sorted(exp.density.items()):
            b, c = baseline.phase(pid), cand.phase(pid)
            if b is None or c is None:
                return f"density {pid}: no such phase"
            rb, rc = bullets_per_second(b.pattern), bullets_per_second(c.pattern)
            if (rc > rb) if way == "up" else (rc < rb):
                continue
            return (f"density {pid}: expected {way}, got {float(rb):.3g} -> {float(rc):.3g} bullets/s "
                    f"(bullets_per_wave {b.pattern.bullets_per_wave} -> {c.pattern.bullets_per_wave}, "
                    f"wave_interval_ms {b.pattern.wave_interval_ms} -> {c.pattern.wave_interval_ms})")
        frozen = set(exp.unchanged)
        if "rest" in frozen:
            named = {k.split(".")[0] for k in exp.fields} | set(exp.density)
            frozen |= ({p.phase_id for p in baseline.phases} | set(REGIONS)) - named
            frozen.discard("rest")
        for change in diff_configs(baseline, cand):
            region = _region_of(change.path, baseline)
            if region in frozen:
                return (f"unchanged {region}: {change.path} changed "
                        f"{_show(change.before)} -> {_show(change.after)}")
    if exp.decision == "blocked":
        fields = [i.field for i in d.issues]
        for want in exp.issues:
            if not any(want in f for f in fields):
                return f"issues: expected a field containing {want!r}, got {', '.join(fields) or 'none'}"
    said = _decision_text(d)
    for want in exp.mentions:
        if want.lower() not in said:
            return f"mentions: the decision does not say {want!r} ({_summary(d)[:160]})"
    return None


# ---------------------------------------------------------------------------------------------
# the score
# ---------------------------------------------------------------------------------------------

class Tally(_Strict):
    total: int = 0
    correct: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def add(self, ok: bool) -> None:
        self.total += 1
        self.correct += int(ok)

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "correct": self.correct, "accuracy": round(self.accuracy, 4)}


class Miss(_Strict):
    id: str
    split: Split
    lang: Language
    classes: list[str]
    text: str
    follow_ups: list[str] = Field(default_factory=list)
    expected: Decision
    got: str
    reason: str


class Score(_Strict):
    provider: str
    baseline_hash: str
    overall: Tally
    by_class: dict[str, Tally]
    by_lang: dict[str, Tally]
    by_split: dict[str, Tally]
    by_style: dict[str, Tally]
    by_expected: dict[str, Tally]
    misses: list[Miss]
    errors: int = 0
    # accepted although the label says otherwise, or accepted with a candidate the label refuses
    wrong_accepts: int = 0
    # a simulated designer who clicks the choice of the first question that matches the label
    # (one answer at most); None when the runner cannot take answers (a replay)
    with_one_answer: Tally | None = None

    def as_dict(self) -> dict[str, Any]:
        def table(t: dict[str, Tally]) -> dict[str, Any]:
            return {k: v.as_dict() for k, v in t.items()}
        return {"provider": self.provider, "baseline_hash": self.baseline_hash, "overall": self.overall.as_dict(),
                "wrong_accepts": self.wrong_accepts,
                "with_one_answer": self.with_one_answer.as_dict() if self.with_one_answer is not None else None,
                "by_class": table(self.by_class), "by_lang": table(self.by_lang), "by_split": table(self.by_split),
                "by_style": table(self.by_style), "by_expected_decision": table(self.by_expected),
                "errors": self.errors, "misses": [m.model_dump(mode="json") for m in self.misses]}


Runner = Union[ProviderRunner, ReplayRunner]


def _accepted(outcome: Outcome) -> bool:
    return outcome.proposal is not None and outcome.proposal.decision.decision == "accepted"


def _one_answer(request: LabeledRequest, outcome: Outcome, runner: Runner, baseline: BulletHellConfig) -> bool:
    """A designer answering from the label: right after clicking one choice of the first question?

    The designer knows what they meant, so of the choices the one that reaches the label is the
    one they click; a question without choices, or whose choices all miss, stays a miss (a
    wrong accept stays one: it asked nothing). The recorder (if any) is not written for these.
    """
    if outcome.proposal is None or outcome.proposal.decision.decision != "needs_clarification":
        return False
    asks = outcome.proposal.decision.asks
    if not asks or not asks[0].choices or not isinstance(runner, ProviderRunner):
        return False
    quiet = ProviderRunner(runner.provider)
    for choice in asks[0].choices:
        tried = request.model_copy(update={"follow_ups": [*request.follow_ups, choice.answer]})
        if judge(request, quiet.run(tried, baseline), baseline) is None:
            return True
    return False


def score(requests: Iterable[LabeledRequest], runner: Runner, baseline: BulletHellConfig, *, provider: str,
          progress: Callable[[LabeledRequest, bool], None] | None = None) -> Score:
    """Run ``runner`` on every request and tally the results (in the order given)."""
    def tallies(keys: Iterable[str]) -> dict[str, Tally]:
        return {k: Tally() for k in keys}

    result = Score(provider=provider, baseline_hash=config_hash(baseline), overall=Tally(),
                   by_class=tallies(REQUEST_CLASSES), by_lang=tallies(("en", "zh", "mixed")),
                   by_split=tallies(SPLITS), by_style=tallies(STYLES),
                   by_expected=tallies(DECISIONS), misses=[])
    answering = isinstance(runner, ProviderRunner)
    if answering:
        result.with_one_answer = Tally()
    for request in requests:
        outcome = runner.run(request, baseline)
        reason = judge(request, outcome, baseline)
        ok = reason is None
        result.overall.add(ok)
        if not ok and _accepted(outcome):
            result.wrong_accepts += 1
        if result.with_one_answer is not None:
            result.with_one_answer.add(ok or _one_answer(request, outcome, runner, baseline))
        for c in dict.fromkeys(request.classes):
            result.by_class[c].add(ok)
        result.by_lang[request.lang].add(ok)
        result.by_split[request.split].add(ok)
        for s in dict.fromkeys(request.style):
            result.by_style[s].add(ok)
        result.by_expected[request.expect.decision].add(ok)
        if outcome.proposal is None:
            result.errors += 1
        if not ok:
            got = outcome.proposal.decision.decision if outcome.proposal is not None else "error"
            result.misses.append(Miss(id=request.id, split=request.split, lang=request.lang,
                                      classes=list(request.classes), text=request.text,
                                      follow_ups=request.follow_ups, expected=request.expect.decision, got=got,
                                      reason=reason or ""))
        if progress is not None:
            progress(request, ok)
    for table in (result.by_class, result.by_lang, result.by_split, result.by_style, result.by_expected):
        for key in [k for k, v in table.items() if v.total == 0]:
            del table[key]
    return result


__all__ = ["LabeledRequest", "Expectation", "Comparison", "load_set", "set_schema", "SetError", "score", "Score",
           "Tally", "Miss", "judge", "Outcome", "ProviderRunner", "ReplayRunner", "Recorder", "RecordingError",
           "fold_answers", "takes_follow_ups", "bullets_per_second", "REQUEST_CLASSES", "SPLITS", "STYLES",
           "SET_FORMAT", "RECORDING_FORMAT"]
