"""``gcv eval-requests``: the score of a provider on a request set, human and ``--json``; Claude runs
recorded against the local fake Messages API (real HTTP on 127.0.0.1) and replayed without it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gcv.agents.offline_requirement import decide
from gcv.agents.anthropic_provider import REQUIREMENT_TOOL
from gcv.cli.app import app as APP
from gcv.contract.loading import BASELINE_ENV, load_config
from tests.conftest import BASELINE_PATH
from tests.support.fake_anthropic import FakeAnthropic, fake_anthropic, usage, wire_form  # noqa: F401 - fixture

BASE = load_config(BASELINE_PATH)
ROWS = [
    {"id": "E1", "split": "heldout", "lang": "en", "classes": ["units"], "text": "phase 2: 20 bullets per wave",
     "expect": {"decision": "accepted", "fields": {"phase_2.bullets_per_wave": 20}, "unchanged": ["rest"]}},
    {"id": "E2", "split": "dev", "lang": "zh", "classes": ["answers"], "text": "更密一点", "follow_ups": ["第三阶段"],
     "expect": {"decision": "accepted", "density": {"phase_3": "up"}, "unchanged": ["rest"]}},
    {"id": "E3", "split": "dev", "lang": "en", "classes": ["out_of_scope"], "text": "change the boss music",
     "expect": {"decision": "out_of_scope"}},
    {"id": "E4", "split": "dev", "lang": "en", "classes": ["no_op"], "text": "make phase 2 harder",
     "expect": {"decision": "no_change"}},  # labeled wrong on purpose: one miss
]


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.delenv(BASELINE_ENV, raising=False)


def write_set(tmp_path: Path, rows: list[dict[str, Any]] = ROWS) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def run(*args: str | Path) -> Any:
    result = CliRunner().invoke(APP, ["eval-requests", *[str(a) for a in args]])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def run_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run(*args, "--json")
    doc = json.loads(result.stdout)  # exactly one JSON document on stdout
    assert isinstance(doc, dict)
    return result.exit_code, doc


# --- offline -----------------------------------------------------------------------------------

def test_offline_json_score_per_class_language_split_and_the_miss(tmp_path: Path) -> None:
    code, doc = run_json(write_set(tmp_path))
    assert code == 0 and doc["exit_code"] == 0
    assert doc["overall"] == {"total": 4, "correct": 3, "accuracy": 0.75}
    assert doc["by_split"]["heldout"] == {"total": 1, "correct": 1, "accuracy": 1.0}
    assert doc["by_lang"]["zh"]["correct"] == 1 and doc["by_class"]["no_op"]["correct"] == 0
    (miss,) = doc["misses"]
    assert miss["id"] == "E4" and miss["expected"] == "no_change" and miss["got"] == "accepted"
    assert miss["reason"].startswith("decision: expected no_change, got accepted")
    assert doc["recording"] is None and doc["provider"] == "offline"


def test_human_output_has_the_tables_and_the_misses(tmp_path: Path) -> None:
    result = run(write_set(tmp_path))
    assert result.exit_code == 0
    for text in ("offline: 75.0% (3/4) right", "by class", "by language", "misses (1)", "E4",
                 "decision: expected no_change"):
        assert text in result.stdout, text


def test_filters_and_the_accuracy_gate(tmp_path: Path) -> None:
    path = write_set(tmp_path)
    code, doc = run_json(path, "--split", "heldout")
    assert code == 0 and doc["overall"]["total"] == 1
    code, doc = run_json(path, "--class", "no_op", "--class", "units")
    assert doc["overall"]["total"] == 2
    code, doc = run_json(path, "--min-accuracy", "0.9")
    assert code == 1 and doc["exit_code"] == 1 and doc["min_accuracy"] == 0.9
    code, _ = run_json(path, "--min-accuracy", "0.7")
    assert code == 0


@pytest.mark.parametrize("args, message", [
    ((), "missing argument SET"),
    (("{set}", "--split", "test"), "--split 'test'"),
    (("{set}", "--class", "nope"), "--class 'nope'"),
    (("{set}", "--lang", "fr"), "--lang 'fr'"),
    (("{set}", "--min-accuracy", "2"), "--min-accuracy 2"),
    (("{set}", "--provider", "nope"), "unknown requirement provider"),
    (("{set}", "--provider", "replay:{missing}"), "cannot read the recording"),
    (("{bad}",), "bad.jsonl:1"),
    (("{set}", "--lang", "mixed"), "no request of the set matches"),
])
def test_bad_input_is_exit_2_with_one_json_error(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "X"}\n', encoding="utf-8")
    values = {"set": write_set(tmp_path), "bad": bad, "missing": tmp_path / "none.jsonl"}
    code, doc = run_json(*[a.format(**values) for a in args])
    assert code == 2 and doc["exit_code"] == 2 and message in doc["error"], doc


def test_the_committed_set_scores_through_the_command() -> None:
    code, doc = run_json("artifacts/requests", "--split", "heldout", "--class", "injection")
    assert code == 0 and doc["overall"]["total"] >= 5 and doc["errors"] == 0


# --- Claude, recorded, then replayed -------------------------------------------------------------

def wire(text: str) -> dict[str, Any]:
    """The tool input a good model would send: the offline parser's decision, in wire form."""
    return wire_form(decide(text, BASE))


@pytest.mark.slow
def test_anthropic_every_call_recorded_and_replay_reproduces_the_score_without_network(
        tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    server = fake_anthropic
    overloaded = server.error(529, "overloaded_error", "Overloaded")
    server.reply(server.tool(REQUIREMENT_TOOL, wire("phase 2: 20 bullets per wave"), usage_=usage(900, 200)),
                 server.tool(REQUIREMENT_TOOL, wire("第三阶段更密一点")),
                 overloaded, overloaded,  # E3: the SDK retries once, then the request is an agent error
                 server.tool(REQUIREMENT_TOOL, wire("make phase 2 harder")))
    path = write_set(tmp_path)
    code, live = run_json(path, "--provider", "anthropic")
    assert code == 0, live
    assert live["overall"] == {"total": 4, "correct": 2, "accuracy": 0.5}
    assert live["errors"] == 1
    miss = {m["id"]: m for m in live["misses"]}
    assert miss["E3"]["got"] == "error" and "overloaded (529)" in miss["E3"]["reason"]
    assert miss["E4"]["reason"].startswith("decision: expected no_change, got accepted")
    sent = [r.body["messages"][0]["content"][0]["text"] for r in server.messages_requests()]
    assert "更密一点" in sent[1] and "第三阶段" in sent[1]  # the answers were folded into the request
    recording = Path(live["recording"])
    assert recording.is_file() and recording.parent == tmp_path / "ws" / "evals"
    lines = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["provider"] == "anthropic" and [line["id"] for line in lines[1:]] == ["E1", "E2", "E3", "E4"]
    assert sum(len(line["calls"]) for line in lines[1:]) == 4  # one call per answered request, one failed
    assert lines[3]["error"]["kind"] == "agent_unavailable"
    assert lines[1]["calls"][0]["usage"]["input_tokens"] == 900
    before = len(server.requests)
    code, replayed = run_json(path, "--provider", f"replay:{recording}")
    assert code == 0 and len(server.requests) == before  # no network
    for key in ("overall", "by_class", "by_lang", "by_split", "errors"):
        assert replayed[key] == live[key], key
    assert [m["reason"].split(" (replayed)")[0] for m in replayed["misses"]] == [
        m["reason"].split(" (replayed)")[0] for m in live["misses"]]


def test_anthropic_without_a_key_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, doc = run_json(write_set(tmp_path), "--provider", "anthropic")
    assert code == 2 and "ANTHROPIC_API_KEY is not set" in doc["error"]
