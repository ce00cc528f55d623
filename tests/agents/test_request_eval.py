"""Scoring a provider on a labeled request set: the set itself, the judge, the score, replay."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gcv.agents.base import AgentCall, RequirementDecision
from gcv.agents.offline_requirement import OfflineRequirementProvider
from gcv.agents.request_eval import (REQUEST_CLASSES, LabeledRequest, Outcome, ProviderRunner, Recorder,
                                     RecordingError, ReplayRunner, SetError, fold_answers, judge, load_set, score,
                                     takes_follow_ups)
from gcv.agents.requirement import Proposal
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH, REPO_ROOT

BASE = load_config(BASELINE_PATH)
SET_DIR = REPO_ROOT / "artifacts" / "requests"


def row(text: str, expect: dict[str, Any], **extra: Any) -> LabeledRequest:
    return LabeledRequest.model_validate({"id": extra.pop("id", "T1"), "split": "dev", "lang": "en",
                                          "classes": ["core"], "text": text, "expect": expect, **extra})


# --- the committed set ------------------------------------------------------------------------

def test_the_committed_set_is_large_varied_and_labeled() -> None:
    rows = load_set(SET_DIR)
    assert len(rows) >= 250
    held = [r for r in rows if r.split == "heldout"]
    assert len(held) >= 100
    langs = Counter(r.lang for r in rows)
    assert langs["en"] >= 100 and langs["zh"] >= 100 and langs["mixed"] >= 20
    assert abs(langs["en"] - langs["zh"]) <= 0.2 * len(rows)
    classes = Counter(c for r in rows for c in r.classes)
    for c in REQUEST_CLASSES:
        assert classes[c] >= 8, (c, classes[c])
    styles = Counter(s for r in rows for s in r.style)
    assert styles["typos"] >= 8 and styles["casual"] >= 8 and styles["terse"] >= 8
    assert {r.expect.decision for r in held} == {"accepted", "needs_clarification", "out_of_scope", "blocked",
                                                 "no_change"}
    assert all(r.follow_ups for r in rows if "answers" in r.classes)


def test_every_line_of_the_set_fits_the_committed_schema() -> None:
    schema = json.loads((REPO_ROOT / "schemas" / "request_set.schema.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    for path in sorted(SET_DIR.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            errors = list(validator.iter_errors(json.loads(line)))
            assert not errors, f"{path.name}:{n}: {errors[0].message}"


@pytest.mark.slow
def test_the_set_is_not_the_unit_test_sentences() -> None:
    from tests.agents import test_offline_requirement as unit

    unit_texts = {r.text for r in unit.ROWS}
    # "make it harder" was written into the held-out part independently (it is the commonest vague
    # request there is); the held-out part is never edited after its first commit
    assert unit_texts & {r.text for r in load_set(SET_DIR)} <= {"make it harder"}


@pytest.mark.slow
def test_the_offline_reader_reaches_95_percent_on_the_whole_set_and_on_the_held_out_part() -> None:
    own = [r for r in load_set(SET_DIR) if r.split in ("dev", "heldout")]  # heldout2/3 have their own tests
    result = score(own, ProviderRunner(OfflineRequirementProvider()), BASE, provider="offline")
    assert result.overall.accuracy >= 0.95, [m.reason for m in result.misses]
    assert result.by_split["heldout"].accuracy >= 0.95
    for lang in ("en", "zh", "mixed"):
        assert result.by_lang[lang].accuracy >= 0.9, lang
    assert result.errors == 0


# --- reading a set ------------------------------------------------------------------------------

def test_a_bad_line_names_the_file_the_line_and_the_field(tmp_path: Path) -> None:
    good = row("make phase 2 harder", {"decision": "accepted", "density": {"phase_2": "up"}})
    path = tmp_path / "s.jsonl"
    path.write_text(good.model_dump_json(by_alias=True, exclude_none=True) + "\n"
                    + '{"id": "T2", "split": "dev", "lang": "fr", "classes": ["core"], "text": "x", '
                      '"expect": {"decision": "no_change"}}\n', encoding="utf-8")
    with pytest.raises(SetError, match=r"s\.jsonl:2: lang"):
        load_set(path)


@pytest.mark.parametrize("expect, message", [
    ({"decision": "no_change", "fields": {"phase_2.bullet_speed": 4}}, "accepted candidate only"),
    ({"decision": "accepted", "fields": {"phase_2.speed": 4}}, "field 'phase_2.speed'"),
    ({"decision": "accepted", "fields": {"phase_2.bullet_speed": {">": 1, "<": 5}}}, "exactly one"),
    ({"decision": "accepted", "issues": ["$.boss"]}, "blocked decisions only"),
])
def test_labels_that_contradict_themselves_are_refused(expect: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        row("x", expect)


def test_a_duplicate_id_is_refused(tmp_path: Path) -> None:
    line = row("make phase 2 harder", {"decision": "accepted"}).model_dump_json(by_alias=True, exclude_none=True)
    (tmp_path / "a.jsonl").write_text(line + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(SetError, match="used twice"):
        load_set(tmp_path)


# --- judging one answer -----------------------------------------------------------------------------

def _offline(request: LabeledRequest) -> Outcome:
    return ProviderRunner(OfflineRequirementProvider()).run(request, BASE)


@pytest.mark.parametrize("expect, reason", [
    ({"decision": "accepted"}, None),
    ({"decision": "blocked"}, "decision: expected blocked, got accepted"),
    ({"decision": "accepted", "fields": {"phase_3.bullet_speed": 3.2}}, None),
    ({"decision": "accepted", "fields": {"phase_3.bullet_speed": 3.3}}, "field phase_3.bullet_speed: expected 3.3, got 3.2"),
    ({"decision": "accepted", "fields": {"phase_3.bullet_speed": {"between": [3, 3.5]}}}, None),
    ({"decision": "accepted", "fields": {"phase_3.bullet_speed": {">": 4}}}, "field phase_3.bullet_speed: expected > 4, got 3.2"),
    ({"decision": "accepted", "unchanged": ["rest"]}, "unchanged phase_3: $.phases[2].pattern.bullet_speed"),
    ({"decision": "accepted", "fields": {"phase_3.bullet_speed": 3.2}, "unchanged": ["rest"]}, None),
    ({"decision": "accepted", "density": {"phase_3": "down"}}, "density phase_3: expected down"),
    ({"decision": "accepted", "mentions": ["bullet_speed"]}, None),
    ({"decision": "accepted", "mentions": ["ignored"]}, "mentions: the decision does not say 'ignored'"),
])
def test_the_first_difference_is_the_reason(expect: dict[str, Any], reason: str | None) -> None:
    request = row("make the last phase 20% slower", expect)
    got = judge(request, _offline(request), BASE)
    if reason is None:
        assert got is None
    else:
        assert got is not None and got.startswith(reason), got


def test_a_blocked_label_names_its_issue_fields() -> None:
    request = row("double the boss health", {"decision": "blocked", "issues": ["$.boss.max_health"]})
    assert judge(request, _offline(request), BASE) is None
    request = row("double the boss health", {"decision": "blocked", "issues": ["$.player"]})
    assert judge(request, _offline(request), BASE).startswith("issues: expected a field containing '$.player'")  # type: ignore[union-attr]


def test_an_agent_error_is_a_miss_with_its_reason() -> None:
    request = row("x", {"decision": "accepted"})
    assert judge(request, Outcome(None, [], error="overloaded", error_kind="agent_unavailable"), BASE) == (
        "agent error (agent_unavailable): overloaded")


# --- answers, and providers that take none ------------------------------------------------------------

class _Echo:
    """A provider without follow-ups that records what text it was sent."""

    name = "echo"

    def __init__(self) -> None:
        self.sent: list[str] = []

    def propose(self, request_text: str, baseline: Any) -> tuple[RequirementDecision, list[AgentCall]]:
        self.sent.append(request_text)
        return RequirementDecision(decision="no_change"), [AgentCall(agent="requirement", provider="echo", model="m",
                                                                    prompt_id="p")]


def test_answers_go_to_providers_that_take_them_and_are_folded_in_for_the_others() -> None:
    request = row("make it denser", {"decision": "accepted", "density": {"phase_2": "up"}}, follow_ups=["phase 2"])
    assert takes_follow_ups(OfflineRequirementProvider())
    assert judge(request, _offline(request), BASE) is None
    echo = _Echo()
    assert not takes_follow_ups(echo)
    ProviderRunner(echo).run(request, BASE)  # type: ignore[arg-type]
    assert echo.sent == [fold_answers("make it denser", ["phase 2"])]
    assert "phase 2" in echo.sent[0] and echo.sent[0].startswith("make it denser")


# --- recording and replay ------------------------------------------------------------------------------

def test_a_recording_replays_to_the_same_score_and_a_changed_request_is_a_mismatch(tmp_path: Path) -> None:
    rows = [row("make the last phase 20% slower", {"decision": "accepted"}, id="A"),
            row("make it denser", {"decision": "accepted"}, id="B", follow_ups=["phase 1"]),
            row("change the music", {"decision": "out_of_scope"}, id="C")]
    path = tmp_path / "rec.jsonl"
    recorder = Recorder(path, provider="offline", model="rules-v2", baseline=BASE)
    live = score(rows, ProviderRunner(OfflineRequirementProvider(), recorder), BASE, provider="offline")
    recorder.close()
    assert len(path.read_text(encoding="utf-8").splitlines()) == 4  # header + one line per request
    replayed = score(rows, ReplayRunner(path), BASE, provider=f"replay:{path}")
    assert replayed.overall == live.overall and replayed.errors == 0
    assert replayed.by_class == live.by_class
    changed = [row("make the last phase 30% slower", {"decision": "accepted"}, id="A")]
    result = score(changed, ReplayRunner(path), BASE, provider="replay")
    assert result.errors == 1 and "text differs" in result.misses[0].reason
    missing = [row("x", {"decision": "accepted"}, id="Z")]
    assert "holds no answer for Z" in score(missing, ReplayRunner(path), BASE, provider="replay").misses[0].reason


@pytest.mark.parametrize("content, message", [("", "not a gcv.request_eval_recording/1"),
                                              ("{not json\n", "not a JSONL recording"),
                                              ('{"format": "other"}\n', "not a gcv.request_eval_recording/1")])
def test_an_unreadable_recording_is_a_usage_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RecordingError, match=message):
        ReplayRunner(path)
    with pytest.raises(RecordingError, match="does not exist|cannot read"):
        ReplayRunner(tmp_path / "missing.jsonl")


def test_proposal_outcomes_keep_their_calls() -> None:
    outcome = _offline(row("make phase 2 harder", {"decision": "accepted"}))
    assert isinstance(outcome.proposal, Proposal) and len(outcome.calls) == 1
    assert outcome.calls[0].model == "rules-v2"


def test_the_score_counts_wrong_accepts_and_what_one_simulated_answer_reaches() -> None:
    """Issue 27's figures: a wrong accept is an accepted answer the label refuses; a designer who
    clicks the choice of the first question that matches the label is right with one answer."""
    rows = [row("make phase 2 denser", {"decision": "accepted", "density": {"phase_2": "up"}}, id="A"),
            row("make it denser", {"decision": "accepted", "density": {"phase_3": "up"}, "unchanged": ["rest"]},
                id="B"),
            row("make phase 2 denser", {"decision": "needs_clarification"}, id="C")]
    result = score(rows, ProviderRunner(OfflineRequirementProvider()), BASE, provider="offline")
    assert (result.overall.correct, result.wrong_accepts) == (1, 1)  # C was accepted: a wrong accept
    assert result.with_one_answer is not None and result.with_one_answer.correct == 2  # B + "phase 3"
    assert result.as_dict()["with_one_answer"] == {"total": 3, "correct": 2, "accuracy": 0.6667}


@pytest.mark.slow
def test_the_offline_reader_on_issue_27s_held_out_part() -> None:
    """The bar of issue 27 on heldout2.jsonl (written before the reader changed, never tuned to):
    at least 90 % right at first pass, at most 1 % wrong accepts, at least 98 % with one
    simulated answer."""
    part = [r for r in load_set(SET_DIR) if r.split == "heldout2"]
    assert len(part) >= 200
    result = score(part, ProviderRunner(OfflineRequirementProvider()), BASE, provider="offline")
    assert result.overall.accuracy >= 0.90, [(m.id, m.reason) for m in result.misses]
    assert result.wrong_accepts <= 0.01 * len(part), [(m.id, m.reason) for m in result.misses if m.got == "accepted"]
    assert result.with_one_answer is not None and result.with_one_answer.accuracy >= 0.98


@pytest.mark.slow
def test_the_offline_reader_on_the_third_held_out_part() -> None:
    """heldout3.jsonl, written after the reader's issue 27 work: 78.8 % at first pass and 5 wrong
    accepts before the classes it showed were fixed (docs/requirements-agent.md). The bar holds
    the classes fixed since: at least 90 % at first pass, no wrong accept, 95 % with one answer."""
    part = [r for r in load_set(SET_DIR) if r.split == "heldout3"]
    assert len(part) >= 100
    result = score(part, ProviderRunner(OfflineRequirementProvider()), BASE, provider="offline")
    assert result.overall.accuracy >= 0.90, [(m.id, m.reason) for m in result.misses]
    assert result.wrong_accepts == 0, [(m.id, m.reason) for m in result.misses if m.got == "accepted"]
    assert result.with_one_answer is not None and result.with_one_answer.accuracy >= 0.95
