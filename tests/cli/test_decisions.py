"""One rule for the decisions a person may take (issue 19.7): for every status, what the report
offers, what `gcv status` offers and what `gcv decide` accepts are the same set."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.contract.status import Status
from gcv.evidence.report import write_report
from gcv.store.catalog import Workspace
from gcv.workflow.states import DECISION_TARGET, decisions_allowed

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("decisions")
    mp = pytest.MonkeyPatch()
    mp.setenv("GCV_HOME", str(root / "template"))
    try:
        out = json.loads(CliRunner().invoke(app, ["run", REQUEST, "--yes", "--repair-scope", "fight", "--json"]).stdout)
    finally:
        mp.undo()
    assert out["status"] == "evidence_ready"
    return root, out["workflow_id"]


def _in_status(finished: tuple[Path, str], status: Status) -> tuple[Path, str]:
    """A copy of the finished workspace whose workflow is now in ``status`` (undecided)."""
    root, wf = finished
    ws = root / f"ws-{status}"
    if ws.exists():
        shutil.rmtree(ws)
    shutil.copytree(root / "template", ws)
    state_path = ws / "workflows" / wf / "state.json"
    state = json.loads(state_path.read_text(encoding="utf-8"))
    state["status"], state["human_decision"] = str(status), None
    state_path.write_text(json.dumps(state), encoding="utf-8")
    return ws, wf


def test_accept_is_offered_only_where_it_is_taken() -> None:
    assert [s for s in Status if "accept" in decisions_allowed(s)] == [Status.EVIDENCE_READY]
    assert decisions_allowed(Status.BUDGET_EXHAUSTED) == ["revise", "rollback"]


@pytest.mark.slow
@pytest.mark.parametrize("status", list(Status), ids=[str(s) for s in Status])
def test_report_status_and_decide_agree_for_every_status(finished: tuple[Path, str], status: Status,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    ws_root, wf = _in_status(finished, status)
    monkeypatch.setenv("GCV_HOME", str(ws_root))
    html = write_report(Workspace(ws_root), wf, ws_root / "report.html").read_text(encoding="utf-8")
    offered_line = re.search(rf"pending: <code>gcv decide {wf} ([a-z|]+) --actor NAME( --note TEXT)?</code>", html)
    offered = offered_line.group(1).split("|") if offered_line else []
    # the hint asks for the note exactly when one of the decisions it offers needs it
    assert bool(offered_line and offered_line.group(2)) == bool(set(offered) & {"accept", "rollback"})
    summary = json.loads(CliRunner().invoke(app, ["status", wf, "--json"]).stdout)
    taken = []
    for decision in DECISION_TARGET:
        _, fresh = _in_status(finished, status)  # each attempt on an undecided copy
        result = CliRunner().invoke(app, ["decide", wf, decision, "--actor", "ana", "--note", "n", "--json"])
        out = json.loads(result.stdout)
        if "human_decision" in out:  # recorded (a state edited into this status gives no verifiable evidence: exit 2)
            taken.append(decision)
            assert result.exit_code == (0 if status == Status.EVIDENCE_READY else 2), result.output
            assert out["evidence_written"] == (result.exit_code == 0)
        else:
            assert result.exit_code == 2 and f"{decision} is not allowed" in out["error"] or "cannot go" in out["error"]
    assert offered == summary["decisions"] == taken == decisions_allowed(status)


@pytest.mark.slow
def test_per_phase_checks_carry_their_phase_in_the_cli_the_report_the_console_and_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19.7: three rows named intent.spawn_rate become intent.spawn_rate[phase_1..3] everywhere."""
    from gcv.console.views import checks as console_checks
    from gcv.workflow.loop import WorkflowLoop

    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    out = json.loads(CliRunner().invoke(app, ["run", "make all three phases denser", "--yes", "--repair-scope", "fight", "--json"]).stdout)
    labels = [c["label"] for c in out["evaluation"]["intent_checks"] if c["name"] == "intent.spawn_rate"]
    assert labels == [f"intent.spawn_rate[phase_{n}]" for n in (1, 2, 3)]
    human = CliRunner().invoke(app, ["status", out["workflow_id"]], env={"COLUMNS": "200"}).stdout
    html = Path(out["evidence"]["report"]).read_text(encoding="utf-8")
    d, state = WorkflowLoop(Workspace(tmp_path / "ws")).load(out["workflow_id"])
    console_labels = [c["label"] for c in console_checks(d, state)]
    for label in labels:
        assert label in human and f"<code>{label}</code>" in html and label in console_labels
    assert "intent.spawn_rate " not in human  # no bare name left in the checks table
