"""What a person reads of a run at 80 columns (issue 31.2): human field names, seconds beside
ticks, units on the thresholds, survival never longer than the fight, the agent's review worded
apart from a person's decision, and the offline provider's model calls explained. ``--json``
keeps the paths, the raw figures and the recorded words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app

REQUEST = "make phase 2 denser by 20%"
# its candidate dies; the passing repairs are outside the request: the designer chooses a trade-off
CHOICE = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS "
          "at 55 or above")


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _row(text: str, first: str, after: str = "Checks (round") -> str:
    """The table row (``│ first ... │``) whose first cell is ``first`` in the table after the line
    starting ``after``, with its wrapped lines joined."""
    lines = _lines(text)
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith(after)):]
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip("│").split("│")]
        if line.startswith("│") and cells[0] == first:
            rows = [cells]
            for more in lines[i + 1:]:
                nxt = [c.strip() for c in more.strip("│").split("│")]
                if not more.startswith("│") or nxt[0]:
                    break
                rows.append(nxt)
            return " | ".join(" ".join(r[k] for r in rows if r[k]) for k in range(len(cells)))
    raise AssertionError(f"no row {first!r} in\n{text}")


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("human_words")
    mp = pytest.MonkeyPatch()
    mp.setenv("GCV_HOME", str(root / "ws"))
    mp.setenv("COLUMNS", "80")
    try:
        human = CliRunner().invoke(app, ["run", REQUEST, "--yes"])
        wf = re.search(r"wf-[0-9-]+-[0-9a-f]+", human.stdout)
        assert human.exit_code == 0 and wf, human.output
        status = CliRunner().invoke(app, ["status", wf.group(0)])
        as_json = CliRunner().invoke(app, ["status", wf.group(0), "--json"])
    finally:
        mp.undo()
    return {"run": human.stdout, "stderr": human.stderr, "status": status.stdout, "json": as_json.stdout,
            "home": str(root / "ws"), "wf": wf.group(0)}


@pytest.mark.slow
@pytest.mark.parametrize("command", ["run", "status"])
def test_the_change_and_the_checks_read_in_names_units_and_seconds_at_80_columns(finished, command: str) -> None:
    out = finished[command]
    assert all(len(line) <= 80 for line in _lines(out) if line.startswith(("┃", "│", "┏", "└"))), out
    assert "Phase 2 · bullets per wave" in out and "$.phases[1]" not in out
    assert _row(out, "survival").startswith("survival | >= 2160 ticks (36.0 s) | the whole fight (boss defeated at")
    assert "35.9 s)" in _row(out, "survival")
    assert "> 17.143 bullets/s" in _row(out, "intent.spawn_rate[phase_2]")
    assert "bullets/s" in _row(out, "intent.spawn_rate[phase_2]").split(" | ")[2]
    assert "> 52.234 bullets alive" in _row(out, "intent.mean_alive[phase_2]")
    assert "<= 350 bullets" in _row(out, "peak_alive_bullets") and ">= 55 FPS" in _row(out, "low_fps")
    # the fight lasted 2155 ticks: the telemetry's 2160 (the fight's length) is not shown as survival
    assert _row(out, "survival (ticks)", after="Telemetry") == "survival (ticks) | 2155 (35.9 s) | 2155 (35.9 s)"
    assert "2160 ticks (36.0 s) | the whole" in _row(out, "survival")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["run", "status"])
def test_the_review_is_the_agents_and_the_offline_provider_spends_no_tokens(finished, command: str) -> None:
    out = finished[command]
    assert "  review passed (agent): every hard and intent check passes" in out
    assert "| review passed (agent)" in out and not re.search(r"\| accept\b", out)
    assert "accepted by" not in out  # nobody decided yet
    assert "model calls 2 (offline rules, no tokens)" in out and "tokens 0" not in out
    if command == "run":  # the live trace on stderr words it the same
        assert "| review passed (agent)" in finished["stderr"]


@pytest.mark.slow
def test_json_keeps_paths_raw_figures_and_the_recorded_words(finished) -> None:
    s = json.loads(finished["json"])
    assert s["change"][0]["path"] == "$.phases[1].pattern.bullets_per_wave"
    survival = next(c for c in s["evaluation"]["checks"] if c["name"] == "survival")
    assert survival["expected"] == 2160 and survival["actual"] == 2160
    assert s["terminal_reason"] == "accepted_by_review" and s["tokens_used"] == 0
    assert any(line.endswith("| accept") for line in s["trace"])


@pytest.mark.slow
def test_a_persons_decision_reads_accepted_by_name(finished, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", finished["home"])
    monkeypatch.setenv("COLUMNS", "80")
    decided = CliRunner().invoke(app, ["decide", finished["wf"], "accept", "--actor", "ana", "--note", "fine"])
    assert decided.exit_code == 0, decided.output
    out = CliRunner().invoke(app, ["status", finished["wf"]]).stdout
    assert re.search(r"^  accepted by ana at \d{4}-\d\d-\d\d .*: fine$", out, re.M), out
    assert "review passed (agent)" in out  # the agent's review stays the agent's


@pytest.mark.slow
def test_a_died_candidate_and_the_trade_offs_read_in_seconds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("COLUMNS", "80")
    out = CliRunner().invoke(app, ["run", CHOICE, "--yes"]).stdout
    assert "survival | >= 2160 ticks (36.0 s) | 1409 ticks (23.5 s) | FAIL" == _row(out, "survival")
    assert _row(out, "survival (ticks)", after="Telemetry") == "survival (ticks) | 2155 (35.9 s) | 1409 (23.5 s)"
    choices = [line for line in out.splitlines() if line.startswith("choose ")]
    assert choices and all(line.endswith("survival the whole fight)") for line in choices), choices
    assert "REDUCE_BULLET_SPEED on phase_2: Phase 2 · bullet speed 3.6 -> 2.34; predicted" in choices[0]


def test_a_blocked_requests_issue_names_its_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("COLUMNS", "80")
    out = CliRunner().invoke(app, ["run", "phase 2: 100000 bullets per wave", "--yes"]).stdout
    assert "  issue: Every phase · bullets per wave ($.phases[*].pattern.bullets_per_wave): " in out, out
