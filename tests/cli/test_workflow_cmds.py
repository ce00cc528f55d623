"""The human side of the loop through the CLI: authorization, resume, decisions, baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


@pytest.fixture()
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    runner = CliRunner()

    def invoke(*args: str) -> tuple[int, dict]:
        result = runner.invoke(app, [*args, "--json"])
        return result.exit_code, json.loads(result.stdout)

    return invoke


@pytest.mark.slow
def test_nothing_runs_before_authorization(cli) -> None:
    code, out = cli("run", REQUEST)  # no --yes and no terminal: stops and says how to go on
    assert code == 7 and out["status"] == "awaiting_authorization"
    assert out["runs_used"] == 0 and out["evidence"] == {}
    wf = out["workflow_id"]
    code, auth = cli("authorize", wf, "--actor", "ana", "--max-runs", "2")
    assert code == 0 and auth["authorization"]["actor"] == "ana"
    assert auth["authorization"]["scope"]["candidate_runs"] == 2
    code, again = cli("authorize", wf, "--actor", "ana")
    assert code == 2 and "authorized" in again["error"]
    code, waiting = cli("resume", wf)  # the passing repair is outside the request: the designer chooses
    assert code == 7 and waiting["status"] == "awaiting_choice" and waiting["tradeoffs"]
    code, done = cli("answer", wf, "--choose", "1", "--actor", "dana")
    assert code == 0 and done["status"] == "evidence_ready" and done["candidate_runs_used"] == 2
    assert Path(done["evidence"]["bundle"]).is_file() and Path(done["evidence"]["report"]).is_file()


@pytest.mark.slow
def test_decisions_promote_and_roll_back_baselines(cli) -> None:
    code, out = cli("run", REQUEST, "--yes", "--repair-scope", "fight")
    assert code == 0
    wf = out["workflow_id"]
    code, err = cli("decide", wf, "revise", "--actor", "ana", "--promote")
    assert code == 2 and "--promote only goes with accept" in err["error"]
    for decision in ("accept", "rollback"):  # both say why (issue 31.1); nothing is recorded without it
        code, err = cli("decide", wf, decision, "--actor", "ana", "--note", "  ")
        assert code == 2 and f"{decision} needs a note" in err["error"] and "--note" in err["error"]
    code, decided = cli("decide", wf, "accept", "--actor", "ana", "--note", "ship it", "--promote")
    assert code == 0 and decided["status"] == "accepted"
    assert decided["human_decision"]["promoted_version"] == 2
    code, err = cli("decide", wf, "rollback", "--actor", "bob", "--note", "undo")
    assert code == 2 and "cannot be overwritten" in err["error"]
    code, versions = cli("baselines", "list")
    rows = versions["baselines"]
    assert [(r["version"], r["active"], r["workflow_id"]) for r in rows] == [(1, 0, None), (2, 1, wf)]
    assert rows[1]["config_hash"] == out["final_candidate_hash"]
    code, shown = cli("baselines", "show", "2")
    assert code == 0 and shown["config"]["phases"][1]["pattern"]["bidirectional"] is True
    refused = CliRunner().invoke(app, ["baselines", "rollback"])  # a rollback is audited: who and why
    assert refused.exit_code == 2 and "--actor" in refused.output
    code, rolled = cli("baselines", "rollback", "--actor", "carol", "--note", "v2 breaks the tutorial")
    assert code == 0 and (rolled["from_version"], rolled["to_version"]) == (2, 1)
    code, shown = cli("baselines", "show", "v1")
    assert code == 0 and shown["active"] == 1
    last = shown["activations"][-1]
    assert (last["action"], last["from_version"], last["actor"], last["note"]) == \
        ("rolled_back", 2, "carol", "v2 breaks the tutorial")
    code, versions = cli("baselines", "list")  # the list shows the history of activations too
    assert [(a["action"], a["version"], a["from_version"], a["actor"], a["note"]) for a in versions["activations"]][1:] \
        == [("promoted", 2, 1, "ana", "ship it"), ("rolled_back", 1, 2, "carol", "v2 breaks the tutorial")]
    human = CliRunner().invoke(app, ["baselines", "list"])
    assert "activations" in human.stdout and "rolled_back" in human.stdout and "carol" in human.stdout
    code, listed = cli("list")
    assert [w["status"] for w in listed["workflows"]] == ["accepted"]


def test_accept_only_from_evidence_ready(cli) -> None:
    code, out = cli("run", "make it better")
    assert code == 3 and out["status"] == "needs_clarification" and out["questions"]
    code, err = cli("decide", out["workflow_id"], "accept", "--actor", "ana", "--note", "ok")
    assert code == 2 and "evidence_ready" in err["error"]


def test_unknown_workflow_and_engine(cli) -> None:
    code, err = cli("status", "wf-nope")
    assert code == 2 and "no workflow" in err["error"]
    code, err = cli("run", REQUEST, "--engine", "frostbite")
    assert code == 2 and "unknown engine" in err["error"]


@pytest.mark.parametrize("engine", ["unity", "ue5"])
def test_an_engine_that_cannot_run_here_is_refused_before_anything_is_spent(
        cli, engine: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue 19.5: no proposal, no authorization, no failed workflow left behind; the message is
    the one `gcv batch` gives for the same engine."""
    import os

    from engine_runners.registry import unavailable_reason
    from gcv.batch.job import BatchUsageError, check_engines

    for var in [v for v in os.environ if v.startswith(("GCV_UNITY_", "GCV_UE_"))]:
        monkeypatch.delenv(var)
    code, err = cli("run", REQUEST, "--engine", engine, "--yes", "--repair-scope", "fight")
    assert code == 2 and err["exit_code"] == 2
    with pytest.raises(BatchUsageError) as batch_refusal:
        check_engines([engine])
    assert err["error"] == str(batch_refusal.value) == unavailable_reason(engine)
    assert f"engine {engine} is not_installed" in err["error"]
    code, listed = cli("list")
    assert listed["workflows"] == []
    assert not (tmp_path / "ws" / "workflows").exists() or not any((tmp_path / "ws" / "workflows").iterdir())
    human = CliRunner().invoke(app, ["run", REQUEST, "--engine", engine])
    assert human.exit_code == 2 and "see `gcv engines`" in human.output


@pytest.mark.slow
def test_an_answer_continues_the_same_request_and_the_bundle_replays(cli, tmp_path: Path) -> None:
    code, asked = cli("run", "slow down the bullets by 20%")
    assert code == 3 and asked["status"] == "needs_clarification"
    # the question says what is already understood, and does not ask it again
    assert "bullet_speed x0.8" in asked["questions"][0] and "more or less" not in asked["questions"][0]
    wf = asked["workflow_id"]
    code, answered = cli("answer", wf, "phase 2", "--actor", "dana")
    assert code == 7 and answered["status"] == "awaiting_authorization" and answered["workflow_id"] == wf
    code, _ = cli("authorize", wf, "--actor", "ana", "--repair-scope", "fight")  # repairs anywhere: as before
    code, done = cli("resume", wf)
    assert code == 0 and done["status"] == "evidence_ready"
    state = json.loads((tmp_path / "ws" / "workflows" / wf / "state.json").read_text())
    assert [(a["text"], a["actor"]) for a in state["answers"]] == [("phase 2", "dana")]
    from gcv.evidence.verify import verify_bundle

    report = verify_bundle(Path(done["evidence"]["bundle"]), replay=True)
    assert report.ok, (report.first_failure, report.failed())
    code, err = cli("answer", wf, "phase 3")
    assert code == 2 and "only a workflow that needs clarification takes answers" in err["error"]


@pytest.mark.slow
def test_reindex_rebuilds_a_lost_catalog_from_the_workflow_folders(cli, tmp_path: Path) -> None:
    code, done = cli("run", REQUEST, "--yes", "--repair-scope", "fight")
    assert code == 0
    code, asked = cli("run", "make it better")
    (tmp_path / "ws" / "catalog.sqlite").unlink()  # the index is gone (the baseline registry with it)
    code, listed = cli("list")
    assert code == 0 and listed["workflows"] == []
    code, counts = cli("reindex")
    assert code == 0 and counts["indexed"] == 2 and counts["unreadable_workflows"] == []
    code, listed = cli("list")
    assert {(w["id"], w["status"]) for w in listed["workflows"]} == {
        (done["workflow_id"], "evidence_ready"), (asked["workflow_id"], "needs_clarification")}


@pytest.mark.slow
def test_status_and_propose_show_the_change_against_the_baseline_the_run_uses(cli) -> None:
    code, done = cli("run", REQUEST, "--yes", "--repair-scope", "fight")
    wf = done["workflow_id"]
    code, status = cli("status", wf)
    assert code == 0 and status["baseline_source"] == "registry v1"
    by_path = {c["path"]: c for c in status["change"]}
    speed = by_path["$.phases[1].pattern.bullet_speed"]
    assert (speed["before"], speed["after"], speed["percent"]) == (3.6, 2.34, -35.0)
    assert speed["origin"] == "repair:REDUCE_BULLET_SPEED" and speed["requested"] is False
    assert by_path["$.phases[1].pattern.bullets_per_wave"]["requested"] is True
    # after a promotion, the preview and the run both use (and name) the new active version
    code, _ = cli("decide", wf, "accept", "--actor", "ana", "--note", "ok", "--promote")
    code, preview = cli("propose", "make phase 2 bullets 10% faster")
    assert code == 0 and preview["baseline"] == "registry v2"
    (change,) = preview["change"]
    assert (change["path"], change["before"], change["percent"]) == ("$.phases[1].pattern.bullet_speed", 2.34, 10.0)


@pytest.mark.slow
def test_a_passing_change_whose_evidence_cannot_be_written_exits_70(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build machine must not read 0 when the report and the bundle are missing (full disk);
    the workflow itself stays recorded as evidence_ready and `gcv bundle` can write them later."""
    import errno

    import gcv.evidence.finalize as finalize

    def full_disk(ws, wf_id):  # noqa: ANN001, ANN202 - stands in for a write that hits ENOSPC
        raise OSError(errno.ENOSPC, "No space left on device", str(ws.root / "workflows" / wf_id / "evidence"))

    monkeypatch.setattr(finalize, "finalize_evidence", full_disk)
    code, out = cli("run", "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive", "--yes", "--repair-scope", "fight")
    assert out["status"] == "evidence_ready"
    assert out["evidence_written"] is False and out["evidence"] == {}
    assert code == out["exit_code"] == 70
    code, status = cli("status", out["workflow_id"])
    assert code == 0 and status["status"] == "evidence_ready"


def test_run_prints_the_answer_command_and_a_printed_choice_moves_the_request_on(cli, tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: after needs_clarification `gcv run` says how to answer, one command per choice."""
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("COLUMNS", "200")
    human = CliRunner().invoke(app, ["run", "make it denser"])
    assert human.exit_code == 3
    line = next(ln for ln in human.output.splitlines() if ln.strip().startswith("gcv answer") and "'phase 2'" in ln)
    wf = line.split()[2]
    assert f'gcv answer {wf} "ANSWER"' in human.output
    code, answered = cli("answer", wf, "phase 2")
    assert code == 7 and answered["status"] == "awaiting_authorization"
    code, asked = cli("run", "make it denser")
    assert code == 3 and asked["answer_command"] == f'gcv answer {asked["workflow_id"]} "ANSWER"'
    assert asked["asks"][0]["kind"] == "phase"


def test_run_and_answer_take_text_that_begins_with_a_dash(cli) -> None:
    code, out = cli("run", "- make it denser")
    assert code == 3 and out["status"] == "needs_clarification"
    code, answered = cli("answer", out["workflow_id"], "- phase 2")
    assert code == 7 and answered["status"] == "awaiting_authorization"


def test_the_fairness_policy_is_chosen_on_the_command_line_and_refused_when_unknown(cli) -> None:
    code, out = cli("run", REQUEST, "--fairness-policy", "mostly_fair")
    assert code == 2 and "undetermined_allowed" in out["error"] and "fair_required" in out["error"]
    code, out = cli("run", REQUEST)  # waits for authorization
    assert code == 7
    code, auth = cli("authorize", out["workflow_id"], "--actor", "rin", "--fairness-policy", "fair_required")
    assert code == 0 and auth["authorization"]["scope"]["fairness_policy"] == "fair_required"


def test_decide_says_which_decisions_need_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`gcv decide --help`, its refusal and the README's command table say the same (issue 31.1)."""
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    helped = CliRunner().invoke(app, ["decide", "--help"])
    assert helped.exit_code == 0 and "required for accept and rollback" in " ".join(helped.output.split())
    refused = CliRunner().invoke(app, ["decide", "wf-nope", "accept", "--actor", "ana"])
    assert refused.exit_code == 2 and "accept needs a note saying why (--note TEXT)" in refused.output
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `gcv decide "))
    assert "required for accept and rollback" in row
