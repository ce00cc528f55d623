"""The console in the words a person reads (issue 31.2): field names beside their paths, values
and thresholds with units, ticks with seconds, survival at most the fight, the review the agent's
and a decision a person's, the offline provider's model calls without tokens; the API keeps paths
and the recorded figures."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient
from typer.testing import CliRunner

from gcv.cli.app import app as cli_app

REQUEST = "make phase 2 denser by 20%"
CHOICE = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS "
          "at 55 or above")  # ends awaiting the designer's choice among trade-offs


def _finished(workspace: Path) -> str:
    result = CliRunner().invoke(cli_app, ["run", REQUEST, "--yes"])
    wf = re.search(r"wf-[0-9-]+-[0-9a-f]+", result.stdout)
    assert result.exit_code == 0 and wf, result.output
    return wf.group(0)


def _row(page: str, first: str) -> str:
    rows = [r for r in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S) if re.match(rf"<td[^>]*>{re.escape(first)}</td>", r)]
    assert rows, first
    return rows[0]


def test_the_review_and_workflow_pages_read_in_names_units_and_seconds(local_browser: TestClient, local: TestClient,
                                                                      workspace: Path) -> None:
    wf = _finished(workspace)
    b = local_browser
    review = b.get(f"/workflows/{wf}/review").text
    change = review[review.index('id="change"'):review.index('id="checks"')]
    assert ('<span class="field" title="$.phases[1].pattern.bullets_per_wave">Phase 2 · bullets per wave</span> '
            '<code class="muted small">$.phases[1].pattern.bullets_per_wave</code>') in change
    checks = review[review.index('id="checks"'):review.index('id="viewer"')]
    survival = _row(checks, "survival")
    assert "&gt;= 2160 ticks (36.0 s)" in survival and "the whole fight (boss defeated at 35.9 s)" in survival
    assert "&gt; 17.143 bullets/s" in _row(checks, "intent.spawn_rate[phase_2]")
    assert "&gt; 52.234 bullets alive" in _row(checks, "intent.mean_alive[phase_2]")
    metric = _row(checks, "survival (ticks)")
    assert metric.count("2155 (35.9 s)") == 2 and "2160" not in metric  # never longer than the fight
    verdict = review[review.index('id="verdict"'):review.index('id="change"')]
    assert "review passed (agent); a person decides" in verdict and "the review accepted" not in verdict
    assert "model calls 2 (offline rules, no tokens)" in verdict and "tokens 0" not in verdict
    page = b.get(f"/workflows/{wf}").text
    assert "| review passed (agent)</li>" in page and "| accept<" not in page
    assert 'id="offline-usage"' in page and 'data-meter="tokens"' not in page
    # a person's decision is "accepted by NAME"; the agent's review stays the agent's
    r = b.post(f"/workflows/{wf}/decide", data={"csrf": b.csrf, "decision": "accept", "note": "fine"})
    assert r.status_code == 303 and "error" not in r.headers["location"], r.headers["location"]
    decided = b.get(f"/workflows/{wf}").text
    assert "<b>accepted by ana</b> at " in decided
    # the API keeps the paths, the recorded figures and words
    s = local.get(f"/api/workflows/{wf}").json()
    assert s["change"][0]["path"] == "$.phases[1].pattern.bullets_per_wave"
    assert next(c for c in s["evaluation"]["checks"] if c["name"] == "survival")["actual"] == 2160
    assert any(line.endswith("| accept") for line in s["trace"]) and s["tokens_used"] == 0


def test_a_trade_off_card_reads_in_names_units_and_the_whole_fight(local_browser: TestClient, workspace: Path) -> None:
    result = CliRunner().invoke(cli_app, ["run", CHOICE, "--yes"])
    wf = re.search(r"wf-[0-9-]+-[0-9a-f]+", result.stdout)
    assert result.exit_code == 7 and wf, result.output
    page = local_browser.get(f"/workflows/{wf.group(0)}").text
    card = page[page.index('id="option-1"'):page.index('id="option-2"')]
    assert "survived the whole fight" in card and "survived 2160" not in card
    assert "<h3>1. keep the requested change; REDUCE_BULLET_SPEED on phase_2: Phase 2 · bullet speed 3.6 -&gt; 2.34" in card
    assert ('<span class="field" title="$.phases[1].pattern.bullet_speed">Phase 2 · bullet speed</span> '
            '<code class="muted small">$.phases[1].pattern.bullet_speed</code> 3.6 units/s &rarr; 2.34 units/s') in card


def test_a_blocked_requests_issues_name_their_fields(local_browser: TestClient, workspace: Path) -> None:
    result = CliRunner().invoke(cli_app, ["run", "phase 2: 100000 bullets per wave", "--yes"])
    wf = re.search(r"wf-[0-9-]+-[0-9a-f]+", result.stdout)
    assert wf, result.output
    page = local_browser.get(f"/workflows/{wf.group(0)}").text
    assert ('<span class="field" title="$.phases[*].pattern.bullets_per_wave">Every phase · bullets per wave</span> '
            '<code class="muted small">$.phases[*].pattern.bullets_per_wave</code>') in page
