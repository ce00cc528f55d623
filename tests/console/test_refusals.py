"""The console answers a use case's refusal by its type (status and a machine-readable
``kind``), and its evidence follows the CLI's one error policy: a decision is recorded and
answered even when its evidence cannot be written."""

from __future__ import annotations

from urllib.parse import unquote_plus

import pytest
from starlette.testclient import TestClient

from tests.console.conftest import REQUEST, VAGUE


def test_each_refusal_says_its_kind(local: TestClient) -> None:
    r = local.post("/api/workflows", json={"request": REQUEST, "engine": "frostbite"})
    assert r.status_code == 422 and r.json()["kind"] == "invalid_input" and r.json()["field"] == "engine"
    assert r.json()["error"].startswith("engine: unknown engine 'frostbite'")
    r = local.post("/api/workflows/wf-nope/answers", json={"text": "phase 2"})
    assert r.status_code == 404 and r.json()["kind"] == "not_found"
    wf = local.post("/api/workflows", json={"request": REQUEST}).json()["workflow_id"]
    r = local.post(f"/api/workflows/{wf}/answers", json={"text": "phase 2"})
    assert r.status_code == 409 and r.json()["kind"] == "wrong_state"
    r = local.post(f"/api/workflows/{wf}/resume", json={})
    assert r.status_code == 409 and r.json()["kind"] == "wrong_state" and "nothing to resume" in r.json()["error"]
    r = local.get("/api/baselines/latest")
    assert r.status_code == 422 and r.json()["kind"] == "invalid_input"
    r = local.get("/api/baselines/v9")
    assert r.status_code == 404 and r.json()["kind"] == "not_found"
    r = local.post("/api/baselines/rollback", json={"actor": "omar", "note": "   "})
    assert r.status_code == 422 and r.json()["field"] == "note"  # was a 409: the registry's error, by its words
    r = local.post("/api/baselines/rollback", json={"actor": "omar", "note": "why"})
    assert r.status_code == 409 and r.json()["kind"] == "conflict" and "first version" in r.json()["error"]


def test_a_decision_whose_evidence_cannot_be_written_is_still_answered(local: TestClient,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the console let an unexpected evidence error out as a 500 after the decision was
    already recorded (the CLI said it and exited 70); now both follow ``gcv.service``'s finish."""
    import gcv.evidence.finalize as finalize

    wf = local.post("/api/workflows", json={"request": REQUEST}).json()["workflow_id"]

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in the evidence")

    monkeypatch.setattr(finalize, "collect", broken)
    r = local.post(f"/api/workflows/{wf}/decision", json={"decision": "rollback", "actor": "omar", "note": "no"})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "rolled_back" and r.json()["evidence_written"] is False and r.json()["evidence"] == {}
    assert local.get(f"/api/workflows/{wf}").json()["human_decision"]["note"] == "no"


def test_a_rejection_note_too_long_comes_back_on_the_page(local_browser: TestClient) -> None:
    """Before, the reject form's note was checked only by building a body in the page route: a
    note over 4000 characters was a 500."""
    b = local_browser
    wf = b.post("/new", data={"csrf": b.csrf, "request": REQUEST}).headers["location"].rsplit("/", 1)[1]
    r = b.post(f"/workflows/{wf}/authorize", data={"csrf": b.csrf, "choice": "reject", "note": "x" * 4001})
    assert r.status_code == 303 and "note" in unquote_plus(r.headers["location"])
    assert b.get(f"/api/workflows/{wf}").json()["status"] == "awaiting_authorization"


def test_rejecting_runs_that_are_not_waiting_is_refused_on_the_page(local_browser: TestClient) -> None:
    b = local_browser
    wf = b.post("/new", data={"csrf": b.csrf, "request": VAGUE}).headers["location"].rsplit("/", 1)[1]
    r = b.post(f"/workflows/{wf}/authorize", data={"csrf": b.csrf, "choice": "reject", "note": "no"})
    assert r.status_code == 303 and "not awaiting authorization" in unquote_plus(r.headers["location"])
    r = b.post("/workflows/wf-nope/authorize", data={"csrf": b.csrf, "choice": "reject", "note": "no"})
    assert r.status_code == 404
