"""The JSON API with an HTTP client: every route, the same objects and records as the CLI,
and every refusal (roles, CSRF, Host, Origin, ids in paths, bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app as cli_app
from gcv.store.catalog import Workspace
from gcv.workflow.loop import WorkflowLoop
from tests.console.conftest import REQUEST, VAGUE, wait_job


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(cli_app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def transitions(root: Path, wf_id: str) -> list[tuple]:
    d = Workspace(root).workflow_dir(wf_id)
    return [(e["type"], e.get("from"), e.get("to")) for e in d.events() if e["type"] != "trace"]


# ---------------------------------------------------------------------- the happy paths
def test_health_and_who_am_i(local) -> None:
    r = local.get("/api/health")
    assert r.status_code == 200 and r.json()["ok"] is True and r.json()["users"] is False
    assert local.get("/api/me").json() == {"via": "local", "user": None}


@pytest.mark.slow
def test_submit_authorize_decide_through_the_api_match_the_cli(local, local_app, workspace: Path) -> None:
    r = local.post("/api/workflows", json={"request": REQUEST, "actor": "ana"})
    assert r.status_code == 201, r.text
    created = r.json()
    wf = created["workflow_id"]
    assert created["status"] == "awaiting_authorization" and created["exit_code"] == 7
    assert created["proposal"]["decision"] == "accepted" and created["proposal"]["diff"]
    assert [l["layer"] for l in created["proposal"]["validation"]["layers"]] == ["schema", "reference", "rules", "safety"]
    # GET is exactly `gcv status WF --json`, and the CLI sees the workflow the console created
    code, status = cli("status", wf)
    assert local.get(f"/api/workflows/{wf}").json() == status
    code, listed = cli("list")
    assert [(w["id"], w["actor"]) for w in listed["workflows"]] == [(wf, "ana")]
    assert local.get("/api/workflows").json()["workflows"] == listed["workflows"]
    # authorize: the actor is required on the local API, as --actor is on the CLI
    r = local.post(f"/api/workflows/{wf}/authorize", json={})
    assert r.status_code == 422 and "actor" in r.json()["error"]
    r = local.post(f"/api/workflows/{wf}/authorize", json={"actor": "omar", "max_runs": 2})
    assert r.status_code == 202, r.text
    assert r.json()["authorization"]["actor"] == "omar" and r.json()["authorization"]["via"] == "gcv console"
    assert r.json()["authorization"]["scope"]["candidate_runs"] == 2
    wait_job(local_app, wf)
    done = local.get(f"/api/workflows/{wf}").json()
    assert done["status"] == "evidence_ready" and done["candidate_runs_used"] == 1
    assert (workspace / "workflows" / wf / "evidence" / f"{wf}.evidence.zip").is_file()  # as `gcv resume` writes it
    # a decision taken with the CLI shows in the console, and cannot be taken again here
    code, decided = cli("decide", wf, "accept", "--actor", "rita", "--note", "ship it", "--promote")
    assert code == 0
    after = local.get(f"/api/workflows/{wf}").json()
    assert after["status"] == "accepted" and after["human_decision"]["actor"] == "rita"
    r = local.post(f"/api/workflows/{wf}/decision", json={"decision": "rollback", "actor": "x", "note": "undo"})
    assert r.status_code == 409 and "cannot be overwritten" in r.json()["error"]
    # the baseline registry: v2 from the promotion; an audited rollback through the API
    versions = local.get("/api/baselines").json()["baselines"]
    assert [(v["version"], v["active"], v["workflow_id"]) for v in versions] == [(1, 0, None), (2, 1, wf)]
    assert local.get("/api/baselines/v2").json()["config_hash"] == done["final_candidate_hash"]
    assert local.get("/api/baselines/v9").status_code == 404
    r = local.post("/api/baselines/rollback", json={"actor": "rita", "note": "v2 breaks the tutorial"})
    assert r.status_code == 200 and (r.json()["from_version"], r.json()["to_version"]) == (2, 1)
    code, shown = cli("baselines", "show", "v1")
    last = shown["activations"][-1]
    assert (last["action"], last["actor"], last["note"]) == ("rolled_back", "rita", "v2 breaks the tutorial")
    r = local.post("/api/baselines/rollback", json={"actor": "rita", "note": "again"})
    assert r.status_code == 409 and "first version" in r.json()["error"]


@pytest.mark.slow
def test_an_api_decision_is_the_cli_decision(local, local_app) -> None:
    wf = local.post("/api/workflows", json={"request": REQUEST}).json()["workflow_id"]
    assert local.post(f"/api/workflows/{wf}/decision", json={"decision": "accept", "actor": "rita",
                                                                  "note": "ok"}).status_code == 409
    local.post(f"/api/workflows/{wf}/authorize", json={"actor": "omar"})
    wait_job(local_app, wf)
    r = local.post(f"/api/workflows/{wf}/decision", json={"decision": "revise", "actor": "rita", "promote": True})
    assert r.status_code == 409 and "--promote only goes with accept" in r.json()["error"]
    for decision in ("accept", "rollback"):  # both say why (issue 31.1)
        r = local.post(f"/api/workflows/{wf}/decision", json={"decision": decision, "actor": "rita", "note": " "})
        assert r.status_code == 422 and r.json()["field"] == "note" and "needs a note" in r.json()["error"], r.text
    r = local.post(f"/api/workflows/{wf}/decision", json={"decision": "revise", "actor": "rita", "note": "denser"})
    assert r.status_code == 200 and r.json()["status"] == "revision_requested"
    assert r.json()["human_decision"]["note"] == "denser"
    code, status = cli("status", wf)
    assert status["human_decision"] == r.json()["human_decision"]


@pytest.mark.slow
def test_answers_continue_the_same_request_with_the_same_events_as_the_cli(local, workspace: Path) -> None:
    r = local.post("/api/workflows", json={"request": VAGUE, "actor": "dana"})
    asked = r.json()
    assert r.status_code == 201 and asked["status"] == "needs_clarification" and asked["questions"]
    wf = asked["workflow_id"]
    r = local.post(f"/api/workflows/{wf}/answers", json={"text": "phase 2", "actor": "dana"})
    assert r.status_code == 200, r.text
    answered = r.json()
    assert answered["workflow_id"] == wf and answered["status"] == "awaiting_authorization"
    assert answered["change"][0]["path"] == "$.phases[1].pattern.bullet_speed"
    state = json.loads((workspace / "workflows" / wf / "state.json").read_text())
    assert [(a["text"], a["actor"]) for a in state["answers"]] == [("phase 2", "dana")]
    r = local.post(f"/api/workflows/{wf}/answers", json={"text": "phase 3", "actor": "dana"})
    assert r.status_code == 409 and "only a workflow that needs clarification takes answers" in r.json()["error"]
    # the CLI doing the same writes the same kinds of events in the same order
    code, cli_asked = cli("run", VAGUE)
    code, _ = cli("answer", cli_asked["workflow_id"], "phase 2", "--actor", "dana")
    assert transitions(workspace, wf) == transitions(workspace, cli_asked["workflow_id"])


def test_a_chinese_request_round_trips(local) -> None:
    r = local.post("/api/workflows", json={"request": "把子弹速度降低20%"})
    assert r.status_code == 201 and r.json()["status"] == "needs_clarification"
    wf = r.json()["workflow_id"]
    rows = local.get("/api/workflows", params={"q": "子弹"}).json()
    assert [w["id"] for w in rows["workflows"]] == [wf] and rows["total"] == 1
    r = local.post(f"/api/workflows/{wf}/answers", json={"text": "第二阶段"})
    assert r.status_code == 200 and r.json()["status"] == "awaiting_authorization"


def test_list_filters_and_pages(local) -> None:
    ids = [local.post("/api/workflows", json={"request": VAGUE, "actor": who}).json()["workflow_id"]
           for who in ("ana", "bo", "ana")]
    everything = local.get("/api/workflows").json()
    assert everything["total"] == 3
    assert {w["id"] for w in local.get("/api/workflows", params={"actor": "ana"}).json()["workflows"]} == {ids[0], ids[2]}
    assert local.get("/api/workflows", params={"status": "accepted"}).json()["total"] == 0
    page = local.get("/api/workflows", params={"limit": 2, "offset": 2}).json()
    assert len(page["workflows"]) == 1 and page["total"] == 3
    assert local.get("/api/workflows", params={"since": "2000-01-01", "until": "2999-12-31"}).json()["total"] == 3
    assert local.get("/api/workflows", params={"until": "2000-01-01"}).json()["total"] == 0


def test_engines_and_agents_are_what_the_cli_reports(local) -> None:
    code, engines = cli("engines")
    api_engines = local.get("/api/engines").json()["engines"]
    assert [(e["engine"], e["status"]) for e in api_engines] == [(e["engine"], e["status"]) for e in engines["engines"]]
    assert {e["engine"]: e["usable"] for e in api_engines}["python-sim"] is True
    providers = [p["name"] for p in local.get("/api/agents").json()["providers"]]
    assert "offline" in providers and "replay" not in providers  # replay needs a recording: not for new requests


# ---------------------------------------------------------------------- resume and the lock
@pytest.mark.slow
def test_an_interrupted_workflow_is_shown_as_such_and_resumes(local, local_app, local_browser, workspace: Path) -> None:
    wf = local.post("/api/workflows", json={"request": REQUEST}).json()["workflow_id"]
    # authorized, then the process stopped before the loop went on (status `authorized`, nobody runs it)
    WorkflowLoop(Workspace(workspace)).authorize(wf, actor="omar")
    page = local_browser.get(f"/workflows/{wf}")
    assert "Interrupted." in page.text and f'action="/workflows/{wf}/resume"' in page.text
    r = local.post(f"/api/workflows/{wf}/resume", json={})
    assert r.status_code == 202 and r.json()["resumed"] is True
    wait_job(local_app, wf)
    assert local.get(f"/api/workflows/{wf}").json()["status"] == "evidence_ready"
    r = local.post(f"/api/workflows/{wf}/resume", json={})
    assert r.status_code == 409 and "nothing to resume" in r.json()["error"]
    assert "Interrupted." not in local_browser.get(f"/workflows/{wf}").text


def test_a_second_writer_is_refused_with_who_holds_the_lock(local, workspace: Path) -> None:
    wf = local.post("/api/workflows", json={"request": REQUEST}).json()["workflow_id"]
    d = Workspace(workspace).workflow_dir(wf)
    with d.lock():  # another writer (here: this thread, as `gcv authorize` would be) holds the workflow
        r = local.post(f"/api/workflows/{wf}/authorize", json={"actor": "omar"})
        assert r.status_code == 409 and "in use by PID" in r.json()["error"]
    assert local.get(f"/api/workflows/{wf}").json()["status"] == "awaiting_authorization"


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1:9999", "127.0.0.1.nip.io:8765",
                                  "user@127.0.0.1:8765", ""])
def test_a_foreign_host_header_is_refused(local, host: str) -> None:
    r = local.get("/api/health", headers={"host": host})
    assert r.status_code == 400 and "Host" in r.json()["error"]


def test_localhost_names_are_accepted(local) -> None:
    for host in ("localhost:8765", "127.0.0.1:8765", "[::1]:8765"):
        assert local.get("/api/health", headers={"host": host}).status_code == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:9999", "null", "file://",
                                    "http://localhost:8765"])
def test_a_foreign_origin_is_refused(local, origin: str) -> None:
    r = local.post("/api/workflows", json={"request": REQUEST}, headers={"origin": origin})
    assert r.status_code == 403 and "Origin" in r.json()["error"]
    assert local.get("/api/workflows", headers={"origin": origin}).status_code == 403


def test_same_origin_and_cross_site_fetch_metadata(local) -> None:
    r = local.post("/api/workflows", json={"request": VAGUE}, headers={"origin": "http://127.0.0.1:8765"})
    assert r.status_code == 201
    r = local.post("/api/workflows", json={"request": VAGUE}, headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403


def test_csrf_is_required_for_browser_sessions(local_browser) -> None:
    r = local_browser.post("/api/workflows", json={"request": VAGUE})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = local_browser.post("/api/workflows", json={"request": VAGUE}, headers={"x-csrf-token": "0" * 64})
    assert r.status_code == 403
    r = local_browser.post("/api/workflows", json={"request": VAGUE}, headers={"x-csrf-token": local_browser.csrf})
    assert r.status_code == 201 and r.json()["status"] == "needs_clarification"
    # recorded under the session's name
    assert local_browser.get("/api/workflows").json()["workflows"][0]["actor"] == "ana"
    # a page form without the token
    r = local_browser.post("/new", data={"request": VAGUE})
    assert r.status_code == 403
    r = local_browser.post("/logout", data={})
    assert r.status_code == 403


def test_a_tampered_session_cookie_is_no_session(local_app) -> None:
    from starlette.testclient import TestClient

    client = TestClient(local_app, base_url="http://127.0.0.1:8765", follow_redirects=False,
                        cookies={"gcv_session": "eyJuIjoiZXZlIiwic2lkIjoieCJ9.forged.sig"})
    r = client.get("/workflows")
    assert r.status_code == 303 and r.headers["location"].startswith("/login")


def test_a_cross_site_form_cannot_use_the_local_api(local) -> None:
    r = local.post("/api/workflows", data={"request": VAGUE})  # form-encoded: what a foreign page can send
    assert r.status_code == 415 and "JSON" in r.json()["error"]


def test_roles_decide_who_may_do_what(bearer, users_app) -> None:
    anonymous_like = bearer("dana")
    anonymous_like.headers.pop("authorization")
    assert anonymous_like.get("/api/workflows").status_code == 401
    assert bearer("dana").get("/api/workflows", headers={"authorization": "Bearer nope-nope-nope-nope"}).status_code == 401
    assert bearer("dana").get("/api/workflows", headers={"authorization": "Basic abc"}).status_code == 401
    assert bearer("dana").get("/api/me").json()["user"]["roles"] == ["designer"]
    # the operator may not submit; the designer may
    r = bearer("omar").post("/api/workflows", json={"request": REQUEST})
    assert r.status_code == 403 and "designer" in r.json()["error"]
    r = bearer("dana").post("/api/workflows", json={"request": REQUEST, "actor": "someone-else"})
    assert r.status_code == 403 and "your own name" in r.json()["error"]
    # a request that passes at once (the default one now ends with trade-offs for the designer)
    wf = bearer("dana").post("/api/workflows", json={"request": "make phase 1 bullets 20% slower"}).json()["workflow_id"]
    # only an operator authorizes or resumes; the actor is the token's user
    for who in ("dana", "rita"):
        r = bearer(who).post(f"/api/workflows/{wf}/authorize", json={})
        assert r.status_code == 403 and "operator" in r.json()["error"]
        assert bearer(who).post(f"/api/workflows/{wf}/resume", json={}).status_code == 403
    r = bearer("omar").post(f"/api/workflows/{wf}/authorize", json={})
    assert r.status_code == 202 and r.json()["authorization"]["actor"] == "omar"
    wait_job(users_app, wf)
    # only a reviewer decides, promotes and rolls baselines back
    for who in ("dana", "omar"):
        r = bearer(who).post(f"/api/workflows/{wf}/decision", json={"decision": "accept", "note": "ok", "promote": True})
        assert r.status_code == 403 and "reviewer" in r.json()["error"]
        assert bearer(who).post("/api/baselines/rollback", json={"note": "x"}).status_code == 403
    r = bearer("rita").post(f"/api/workflows/{wf}/decision", json={"decision": "accept", "note": "ok", "promote": True})
    assert r.status_code == 200 and r.json()["human_decision"] == {**r.json()["human_decision"], "actor": "rita",
                                                                  "promoted_version": 2}
    r = bearer("rita").post("/api/baselines/rollback", json={"note": "back to v1"})
    assert r.status_code == 200 and r.json()["actor"] == "rita"
    # bearer calls are not browser calls: no CSRF token needed, and no cookie is set
    assert "set-cookie" not in r.headers


def test_pages_offer_only_what_the_role_may_do(browser_as, bearer, users_app) -> None:
    wf = bearer("dana").post("/api/workflows", json={"request": REQUEST}).json()["workflow_id"]
    designer = browser_as("dana").get(f"/workflows/{wf}").text
    operator = browser_as("omar").get(f"/workflows/{wf}").text
    assert f'action="/workflows/{wf}/authorize"' not in designer and "needs the operator role" in designer
    assert f'action="/workflows/{wf}/authorize"' in operator and "Approve as omar" in operator
    assert 'href="/new"' in browser_as("dana").get("/workflows").text
    assert 'href="/new"' not in browser_as("rita").get("/workflows").text
    r = browser_as("omar").get("/new")
    assert "needs the designer role" in r.text and 'action="/new"' not in r.text


@pytest.mark.parametrize("path", ["/api/workflows/wf-nope", "/api/workflows/..%2F..%2Fetc%2Fpasswd",
                                  "/api/workflows/%2e%2e", "/api/workflows/a%00b", "/api/workflows/" + "a" * 200,
                                  "/api/workflows/wf-nope/events", "/api/nothing-here"])
def test_unknown_or_malformed_ids_are_404(local, path: str) -> None:
    r = local.get(path)
    assert r.status_code == 404 and "error" in r.json()
    assert "Traceback" not in r.text and "/tmp" not in r.text


def test_ids_never_reach_a_path_on_the_pages(local_browser) -> None:
    for path in ("/workflows/..%2F..%2Fcatalog.sqlite/bundle", "/workflows/%2e%2e/report",
                 "/workflows/wf-nope/frames/baseline/0.png", "/workflows/wf-nope/review"):
        r = local_browser.get(path)
        assert r.status_code == 404 and "Traceback" not in r.text


@pytest.mark.parametrize("body, field", [
    ({}, "request"), ({"request": ""}, "request"), ({"request": "x", "colour": "red"}, "colour"),
    ({"request": "x", "engine": "frostbite"}, "engine"), ({"request": "x", "provider": "replay:/etc"}, "provider"),
    ({"request": "x", "seed": -1}, "seed"), ({"request": "x" * 5000}, "request"),
])
def test_bad_input_is_422_naming_the_field(local, body: dict, field: str) -> None:
    r = local.post("/api/workflows", json=body)
    assert r.status_code == 422 and field in r.json()["error"], r.text
    assert "Traceback" not in r.text


def test_more_bad_input(local) -> None:
    r = local.post("/api/workflows", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    wf = local.post("/api/workflows", json={"request": VAGUE}).json()["workflow_id"]
    r = local.post(f"/api/workflows/{wf}/decision", json={"decision": "maybe", "actor": "rita"})
    assert r.status_code == 422 and "decision" in r.json()["error"]
    assert local.get("/api/workflows", params={"limit": 0}).status_code == 422
    r = local.get("/api/workflows", params={"since": "yesterday"})
    assert r.status_code == 422 and "YYYY-MM-DD" in r.json()["error"]
    r = local.post(f"/api/workflows/{wf}/authorize", json={"actor": "omar", "max_runs": 99})
    assert r.status_code == 422 and "max_runs" in r.json()["error"]
    r = local.post(f"/api/workflows/{wf}/authorize", json={"actor": "omar"})
    assert r.status_code == 409 and "cannot go from" in r.json()["error"] and "needs_clarification" in r.json()["error"]
    r = local.post(f"/api/workflows/{wf}/answers", json={"text": "phase 2", "actor": "\x07"})
    assert r.status_code == 422 and "actor" in r.json()["error"]
    assert local.get(f"/api/workflows/{wf}/events", headers={"last-event-id": "x"}).status_code == 400


def test_an_internal_error_shows_no_internals(local_app, monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.testclient import TestClient

    from gcv.service import workflows

    local = TestClient(local_app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False)

    def broken(name: str) -> str | None:
        raise RuntimeError("secret detail at /home/someone/.gcv")

    # the engine check a submission passes first (gcv.service.workflows, the same as `gcv run`'s)
    monkeypatch.setattr(workflows, "unavailable_reason", broken)
    r = local.post("/api/workflows", json={"request": REQUEST})
    assert r.status_code == 500 and r.json() == {"error": "internal error; the server's log says more"}
    assert "secret" not in r.text


def test_security_headers_on_every_answer(local) -> None:
    for r in (local.get("/api/health"), local.get("/login"), local.get("/static/console.js"), local.get("/nope")):
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"


def test_openapi_documents_the_api(local) -> None:
    spec = local.get("/api/openapi.json").json()
    for path in ("/api/workflows", "/api/workflows/{wf_id}", "/api/workflows/{wf_id}/answers",
                 "/api/workflows/{wf_id}/authorize", "/api/workflows/{wf_id}/events",
                 "/api/workflows/{wf_id}/decision", "/api/baselines", "/api/health"):
        assert path in spec["paths"], path
