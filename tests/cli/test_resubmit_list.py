"""`gcv resubmit` (issue 31 item 3), the actor of a workflow submitted from the CLI, and the
created, actor and decision columns of `gcv list` when wide (issue 31 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.contract.exits import ExitCode

BLOCKED = "200 bullets every 0.02 s"  # refused by the rules layer at once
PASSES = "make phase 3 much denser"
WAITS = "make phase 1 bullets 20% slower"  # proposed, then awaits the authorization


@pytest.fixture()
def gcv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("NO_COLOR", "1")

    def invoke(*args: str, columns: int = 80):
        monkeypatch.setenv("COLUMNS", str(columns))
        return CliRunner().invoke(app, list(args))

    return invoke


def _json(result) -> dict:
    return json.loads(result.stdout)


def test_the_actor_given_to_gcv_run_is_recorded_and_listed(gcv) -> None:
    out = _json(gcv("run", WAITS, "--actor", "dana", "--json"))
    listed = _json(gcv("list", "--json"))["workflows"]
    assert listed[0]["id"] == out["workflow_id"] and listed[0]["actor"] == "dana"
    assert out["submitted_by"] == "dana"
    # without --actor, the invoking user (never an empty column)
    gcv("run", WAITS, "--json")
    assert all(w["actor"] for w in _json(gcv("list", "--json"))["workflows"])


def test_resubmit_makes_a_new_workflow_linked_to_the_old_one(gcv) -> None:
    old = _json(gcv("run", BLOCKED, "--actor", "dana", "--json"))
    assert old["status"] == "blocked"
    done = gcv("resubmit", old["workflow_id"], WAITS, "--actor", "dana", "--json")
    assert done.exit_code == ExitCode.WAITING, done.stdout
    new = _json(done)
    assert new["workflow_id"] != old["workflow_id"] and new["resubmitted_from"] == old["workflow_id"]
    assert new["status"] == "awaiting_authorization" and new["submitted_by"] == "dana"
    rows = {w["id"]: w for w in _json(gcv("list", "--json"))["workflows"]}
    assert rows[new["workflow_id"]]["resubmitted_from"] == old["workflow_id"]
    # the human form prints the new id and the link
    again = _json(gcv("run", BLOCKED, "--json"))
    human = gcv("resubmit", again["workflow_id"], "--request", WAITS)
    assert human.exit_code == ExitCode.WAITING
    assert "resubmits " + again["workflow_id"] in human.stdout + human.stderr


def test_resubmit_refuses_a_workflow_that_did_not_end_revise_blocked_or_budget_exhausted(gcv) -> None:
    waiting = _json(gcv("run", WAITS, "--json"))
    refused = gcv("resubmit", waiting["workflow_id"], PASSES, "--json")
    assert refused.exit_code == ExitCode.USAGE
    assert "can be edited and resubmitted" in _json(refused)["error"]
    assert len(_json(gcv("list", "--json"))["workflows"]) == 1
    unknown = gcv("resubmit", "wf-nobody", PASSES, "--json")
    assert unknown.exit_code == ExitCode.USAGE
    both = gcv("resubmit", waiting["workflow_id"], PASSES, "--request", PASSES, "--json")
    assert both.exit_code == ExitCode.USAGE
    blocked = _json(gcv("run", BLOCKED, "--json"))
    gcv("resubmit", blocked["workflow_id"], WAITS, "--json")
    second = gcv("resubmit", blocked["workflow_id"], WAITS, "--json")
    assert second.exit_code == ExitCode.USAGE and "already resubmitted" in _json(second)["error"]


@pytest.mark.slow
def test_list_shows_created_actor_and_decision_when_wide(gcv) -> None:
    run = _json(gcv("run", PASSES, "--yes", "--actor", "dana", "--json"))
    decided = gcv("decide", run["workflow_id"], "revise", "--actor", "rita", "--json")
    assert decided.exit_code == 0, decided.stdout
    narrow = gcv("list", columns=80).stdout
    assert "decision" not in narrow and run["workflow_id"] in narrow
    for result in (gcv("list", "--wide", columns=200), gcv("list", columns=160)):
        header = next(line for line in result.stdout.splitlines() if "workflow" in line)
        assert all(word in header for word in ("created", "actor", "decision"))
        line = next(line for line in result.stdout.splitlines() if run["workflow_id"] in line)
        assert "dana" in line and "revise by rita" in line
    listed = _json(gcv("list", "--json"))["workflows"][0]
    assert (listed["actor"], listed["decision"], listed["decided_by"]) == ("dana", "revise", "rita")
    assert isinstance(listed["created_at"], float)


@pytest.mark.slow
def test_a_resubmitted_workflow_s_bundle_verifies_and_replays_and_reindex_keeps_the_link(gcv, tmp_path: Path) -> None:
    old = _json(gcv("run", BLOCKED, "--actor", "dana", "--json"))["workflow_id"]
    new = _json(gcv("resubmit", old, PASSES, "--actor", "dana", "--json"))["workflow_id"]
    assert gcv("authorize", new, "--actor", "omar", "--json").exit_code == 0
    done = _json(gcv("resume", new, "--json"))
    assert done["status"] == "evidence_ready" and done["resubmitted_from"] == old
    verified = gcv("verify", done["evidence"]["bundle"], "--replay", "--json")
    assert verified.exit_code == 0, verified.stdout[-3000:]
    # the catalog is an index: rebuilt from the folders, it keeps who submitted and the link
    (tmp_path / "ws" / "catalog.sqlite").unlink()
    assert gcv("reindex", "--json").exit_code == 0
    rows = {w["id"]: w for w in _json(gcv("list", "--json"))["workflows"]}
    assert rows[new]["resubmitted_from"] == old and rows[new]["actor"] == "dana" and rows[old]["actor"] == "dana"


def test_list_needs_a_role_shows_only_what_waits_for_it(gcv) -> None:
    waits = _json(gcv("run", WAITS, "--json"))["workflow_id"]  # awaits an operator's authorization
    done = _json(gcv("run", PASSES, "--yes", "--json"))["workflow_id"]  # evidence ready: a reviewer decides
    ids = lambda *args: [w["id"] for w in _json(gcv("list", *args, "--json"))["workflows"]]  # noqa: E731
    assert ids("--needs", "operator") == [waits]
    assert ids("--needs", "reviewer") == [done]
    assert ids("--needs", "designer") == []
    assert ids("--status", "evidence_ready") == [done]
    assert ids("--needs", "operator", "--status", "evidence_ready") == []  # both must hold
    bad = gcv("list", "--needs", "boss")
    assert bad.exit_code == ExitCode.USAGE and "roles: designer, operator, reviewer" in bad.output
    bad = gcv("list", "--status", "done")
    assert bad.exit_code == ExitCode.USAGE and "awaiting_authorization" in bad.output
