"""``gcv compare A B``: two workflows or two batch results side by side (issue 19.6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app

DENSER = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"
FASTER = "make phase 3 bullets faster by 10%"


def _cli(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def _summary(path: Path, cells: list[tuple[str, str, str, dict[str, Any]]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"summary": [
        {"config_label": label, "config_hash": chash, "player": player, "engine": "python-sim", "metrics": m}
        for label, chash, player, m in cells], "counts": {}, "exit_code": 0}), encoding="utf-8")
    return path


def test_two_batch_results_give_per_cell_deltas(tmp_path: Path) -> None:
    a = _summary(tmp_path / "a" / "summary.json", [
        ("shrine", "h1", "bot:average", {"runs": 64, "survival_rate": 0.95, "hits_mean": 1.25, "hits_p90": 3}),
        ("dense", "h2", "bot:average", {"runs": 64, "survival_rate": 0.5, "hits_mean": 4.0, "hits_p90": 7})])
    b = _summary(tmp_path / "b" / "summary.json", [
        ("shrine", "h9", "bot:average", {"runs": 64, "survival_rate": 0.875, "hits_mean": 1.75, "hits_p90": 3}),
        ("shrine", "h9", "scripted", {"runs": 1, "survival_rate": 1.0, "hits_mean": 2.0, "hits_p90": 2})])
    code, out = _cli("compare", str(tmp_path / "a"), str(b))  # a folder or its summary.json
    assert code == 0 and out["kind"] == "batches"
    cells = {(c["config"], c["player"]): c for c in out["cells"]}
    both = cells[("shrine", "bot:average")]
    assert both["in"] == "both" and both["config_changed"] is True
    assert both["metrics"]["survival_rate"] == {"a": 0.95, "b": 0.875, "delta": -0.075}
    assert both["metrics"]["hits_mean"]["delta"] == 0.5 and both["metrics"]["hits_p90"]["delta"] == 0
    assert cells[("dense", "bot:average")]["in"] == "a" and cells[("shrine", "scripted")]["in"] == "b"
    human = CliRunner().invoke(app, ["compare", str(a), str(b)])
    assert human.exit_code == 0
    assert "only in A: dense / bot:average / python-sim" in human.stdout
    assert "only in B: shrine / scripted / python-sim" in human.stdout
    assert "-0.075" in human.stdout and "(config changed)" in human.stdout


def test_compare_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    bogus = tmp_path / "x.json"
    bogus.write_text('{"rows": []}', encoding="utf-8")
    code, out = _cli("compare", str(bogus), str(bogus))
    assert code == 2 and "not a batch result" in out["error"] and out["file"] == str(bogus)
    code, out = _cli("compare", str(bogus), "wf-nope")
    assert code == 2 and "two workflow ids or two batch results" in out["error"]
    code, out = _cli("compare", "wf-nope", "wf-other")
    assert code == 2 and "no workflow 'wf-nope'" in out["error"]


@pytest.mark.slow
def test_two_workflows_diff_their_candidates_and_the_judged_figures(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    _, one = _cli("run", DENSER, "--yes", "--repair-scope", "fight")
    _, two = _cli("run", FASTER, "--yes", "--repair-scope", "fight")
    code, out = _cli("compare", one["workflow_id"], two["workflow_id"])
    assert code == 0 and out["kind"] == "workflows" and out["same_baseline"] is True
    assert out["a"]["candidate_hash"] == one["final_candidate_hash"]
    changes = {c["path"]: c for c in out["candidate_changes"]}
    assert changes["$.phases[1].pattern.bidirectional"]["a"] is True
    assert changes["$.phases[1].pattern.bidirectional"]["b"] is False
    speed = changes["$.phases[2].pattern.bullet_speed"]
    assert speed["percent"] == pytest.approx(10.0) and speed["b"] == pytest.approx(speed["a"] * 1.1)
    figures = {f["figure"]: f for f in out["figures"]}
    # every telemetry field either evaluation judges, baseline and candidate of each workflow
    judged = {c["field"] for wf in (one, two) for c in wf["evaluation"]["checks"] + wf["evaluation"]["intent_checks"]
              if not c["field"].startswith("$")}
    assert set(figures) == judged
    peak = figures["peak_alive_bullets"]
    assert peak["a_candidate"] == next(c["actual"] for c in one["evaluation"]["checks"]
                                       if c["field"] == "peak_alive_bullets")
    assert peak["candidate_delta"] == peak["b_candidate"] - peak["a_candidate"]
    rate = figures["phase_results[phase_2].bullets_spawned/ticks"]
    spawn = next(c for c in one["evaluation"]["intent_checks"] if c["name"] == "intent.spawn_rate")
    # a qualitative "denser": the check's threshold is the baseline's rate plus its minimum share (+10%)
    assert rate["a_candidate"] == spawn["actual"] and spawn["op"] == ">="
    assert spawn["expected"] == pytest.approx(rate["a_baseline"] * 1.1, abs=1e-3)
