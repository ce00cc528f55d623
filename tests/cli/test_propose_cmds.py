"""``gcv propose``: exit codes, readable output, and ``--json`` purity (one JSON object, nothing else)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gcv.cli.commands import propose_cmds
from gcv.contract.loading import BASELINE_ENV
from tests.support.fake_anthropic import fake_anthropic  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[2]
BASELINE_FILE = ROOT / "artifacts" / "baselines" / "shrine_trial.json"
KEY_EN = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the "
          "low FPS at 55 or above")
KEY_ZH = ("把第二阶段改成更密集的双向螺旋弹幕，但是峰值存活子弹不能超过 350，低分位 FPS 不能低于 55，"
          "玩家固定轨迹下最多受击 3 次")


def _app() -> typer.Typer:
    """The real ``gcv`` app when it has ``propose``, else a fresh app with only this command."""
    from gcv.cli.app import app as real

    if any(getattr(c, "name", None) == "propose" for c in real.registered_commands):
        return real
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:  # keep "propose" a subcommand
        pass

    app.add_typer(propose_cmds.app)
    return app


APP = _app()


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv(BASELINE_ENV, raising=False)


def run(*args: str | Path) -> Any:
    result = CliRunner().invoke(APP, ["propose", *[str(a) for a in args]])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def run_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run(*args, "--json")
    doc = json.loads(result.stdout)  # exactly one JSON document on stdout
    assert isinstance(doc, dict) and result.stdout.startswith("{") and result.stdout.rstrip().endswith("}")
    assert result.stderr == ""
    assert doc["exit_code"] == result.exit_code
    return result.exit_code, doc


@pytest.mark.parametrize("request_text, code, decision", [
    (KEY_EN, 0, "accepted"),
    (KEY_ZH, 0, "accepted"),
    ("make it better", 3, "needs_clarification"),
    ("write me a poem", 3, "out_of_scope"),
    ("换个背景音乐", 3, "out_of_scope"),
    ("no changes", 3, "no_change"),
    ("保持不变", 3, "no_change"),
    ("phase 2: 200 bullets every 0.02 s", 4, "blocked"),
    ("每 0.02 秒 200 发", 4, "blocked"),
    ("remove the hit limit", 4, "blocked"),
    ("make phase 2 a bidirectional petal", 4, "blocked"),  # fails the rules layer
])
def test_exit_codes_and_json_shape(request_text: str, code: int, decision: str) -> None:
    exit_code, doc = run_json(request_text)
    assert exit_code == code
    assert doc["decision"] == decision
    for key in ("decision", "goal", "candidate", "diff", "validation", "questions", "issues", "agent_calls"):
        assert key in doc
    assert doc["request"] == request_text and doc["provider"] == "offline"
    assert len(doc["agent_calls"]) == 1 and doc["agent_calls"][0]["provider"] == "offline"
    if decision == "accepted":
        assert doc["validation"]["ok"] is True
        assert doc["goal"]["target_phase_ids"] == ["phase_2"]
        assert doc["diff"], "an accepted candidate differs from the baseline"
    if decision == "blocked":
        assert doc["issues"] and all(i["field"] and i["allowed"] for i in doc["issues"])
    if decision == "needs_clarification":
        assert doc["questions"]


def test_json_diff_names_the_changed_fields() -> None:
    _, doc = run_json(KEY_EN)
    changed = {c["path"]: (c["before"], c["after"]) for c in doc["diff"]}
    assert changed == {
        "$.phases[1].pattern.bullets_per_wave": (12, 15),
        "$.phases[1].pattern.wave_interval_ms": (700, 595),
        "$.phases[1].pattern.bidirectional": (False, True),
    }
    assert doc["candidate"]["phases"][1]["pattern"]["bidirectional"] is True
    assert [layer["status"] for layer in doc["validation"]["layers"]] == ["passed"] * 4


def test_blocked_by_validation_carries_rule_ids() -> None:
    code, doc = run_json("make phase 2 a bidirectional petal")
    assert code == 4
    assert "rules.alive_bound" in [i["rule_id"] for i in doc["issues"]]
    assert doc["validation"]["ok"] is False


def test_human_output_is_readable() -> None:
    result = run(KEY_EN)
    assert result.exit_code == 0
    out = result.stdout
    for text in ("decision: accepted", "goal", "phase_2", "bidirectional", "$.phases[1].pattern.bullets_per_wave",
                 "595", "validation", "OK"):
        assert text in out, text
    assert "\x1b[" not in out  # NO_COLOR


def test_human_output_for_questions_and_issues() -> None:
    result = run("make it better")
    assert result.exit_code == 3 and "questions" in result.stdout and "Which phase" in result.stdout
    result = run("raise the alive limit to 1000")
    assert result.exit_code == 4 and "$.limits.max_alive_bullets" in result.stdout


def test_baseline_option_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(BASELINE_FILE.read_text(encoding="utf-8"))
    data["phases"] = data["phases"][:1]
    one = tmp_path / "one_phase.json"
    one.write_text(json.dumps(data), encoding="utf-8")
    code, doc = run_json("make it denser", "--baseline", one)
    assert code == 0 and doc["goal"]["target_phase_ids"] == ["phase_1"] and doc["baseline"] == str(one)
    monkeypatch.setenv(BASELINE_ENV, str(one))
    code, doc = run_json("make it denser")
    assert code == 0 and doc["baseline"] == str(one)


@pytest.mark.parametrize("args, needle", [
    ((), "missing argument REQUEST"),
    (("make phase 2 denser", "--baseline", "does/not/exist.json"), "file not found"),
    (("make phase 2 denser", "--provider", "nope"), "unknown requirement provider"),
    (("make phase 2 denser", "--provider", "offline:x"), "takes no argument"),
])
def test_usage_errors_exit_2(args: tuple[str, ...], needle: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert needle in result.stderr
    exit_code, doc = run_json(*args)
    assert exit_code == 2 and needle in doc["error"]


def test_broken_baseline_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"contract": "gcv.bullet_hell/1", "name": NaN}', encoding="utf-8")
    code, doc = run_json("make phase 2 denser", "--baseline", bad)
    assert code == 2 and doc["file"] == str(bad)


def test_an_overloaded_model_is_one_message_and_a_documented_exit_code(fake_anthropic, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The API answers 529 (overloaded) after the SDK's retries: no traceback, exit 6 (failed)."""
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    busy = fake_anthropic.error(529, "overloaded_error", "Overloaded")
    fake_anthropic.reply(busy, busy, busy, busy)
    code, doc = run_json(KEY_EN, "--provider", "anthropic")
    assert code == 6 and doc["error"]["kind"] == "agent_unavailable" and "529" in doc["error"]["message"]
    assert doc["decision"] is None and doc["agent_calls"]
    fake_anthropic.reply(busy, busy, busy, busy)
    human = run(KEY_EN, "--provider", "anthropic")
    assert human.exit_code == 6 and "the requirement agent failed (agent_unavailable)" in human.stderr


# --- issue 27: hints and requests that begin with "-" -------------------------------------------

def test_a_request_that_needs_answers_names_gcv_run_and_gcv_answer_and_shows_the_choices() -> None:
    result = run("make it denser")
    assert result.exit_code == 3
    out = " ".join(result.stdout.split())
    assert "gcv run 'make it denser'" in out and 'gcv answer WF "ANSWER"' in out
    assert "submit the request again" not in out
    assert "(answer: phase 2)" in out and "(answer: all phases)" in out
    code, doc = run_json("make it denser")
    assert code == 3 and doc["asks"][0]["kind"] == "phase"
    assert [c["answer"] for c in doc["asks"][0]["choices"]][-1] == "all phases"


@pytest.mark.parametrize("text", ["- phase 2 speed 4", "-20% bullet speed on phase 2", "-> phase 2: speed 4"])
def test_a_request_that_begins_with_a_dash_is_read_as_the_request(text: str) -> None:
    code, doc = run_json(text)
    assert code == 0 and doc["decision"] == "accepted" and doc["request"] == text


def test_an_unknown_short_option_says_how_to_pass_a_request_that_begins_with_a_dash() -> None:
    result = CliRunner().invoke(APP, ["propose", "-x"])
    assert result.exit_code == 2
    assert "goes after '--'" in result.output and 'gcv propose -- "-x ..."' in result.output


def test_a_dash_value_of_an_option_stays_that_options_value() -> None:
    from gcv.cli.commands.request_text import request_args

    assert request_args(["--seed", "-1", "make phase 2 denser"], frozenset({"--seed"})) == \
        ["--seed", "-1", "make phase 2 denser"]
    assert request_args(["--yes", "- phase 2 speed 4"], frozenset({"--seed"})) == ["--yes", "--", "- phase 2 speed 4"]
