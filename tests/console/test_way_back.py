"""The console's way back and "what needs me" through the forms (issue 31 items 3 and 4): the
authorize card sets budgets within the budgets' own range, a workflow that ended revise, blocked
or budget exhausted is edited and resubmitted as a new linked workflow, an operator runs a
budget-exhausted one again with a larger budget, and each role's list shows what waits for it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from gcv.cli.app import app as cli_app
from tests.console.conftest import REQUEST, VAGUE, wait_job

BLOCKED = "200 bullets every 0.02 s"  # refused by the rules layer at once
FAILING = "make phase 1 an aimed fan with 9 bullets every 300 ms"  # passes only after a repair
PASSES = "make phase 3 much denser"


def cli(*args: str) -> dict:
    result = CliRunner().invoke(cli_app, [*args, "--json"])
    return json.loads(result.stdout)


def new_id(response) -> str:
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert "error=" not in location, location
    return location.rsplit("/", 1)[1]


def test_the_authorize_card_sets_budgets_in_their_range(browser_as: Callable[[str], TestClient], users_app) -> None:
    dana, omar = browser_as("dana"), browser_as("omar")
    wf = new_id(dana.post("/new", data={"csrf": dana.csrf, "request": REQUEST}))
    page = omar.get(f"/workflows/{wf}").text
    for name, low, high in (("max_runs", 1, 50), ("max_model_calls", 1, 100), ("max_tokens", 0, 50_000_000),
                            ("deadline", 1, 86400)):
        field = re.search(rf'<input type="number" id="auth-{name}"[^>]*>', page)
        assert field, name
        assert f'min="{low}"' in field.group(0) and f'max="{high}"' in field.group(0), field.group(0)
    refused = omar.post(f"/workflows/{wf}/authorize", data={"csrf": omar.csrf, "choice": "approve", "max_runs": "51"})
    assert "error=" in refused.headers["location"] and "max_runs" in refused.headers["location"]
    assert omar.get(f"/api/workflows/{wf}").json()["status"] == "awaiting_authorization"
    r = omar.post(f"/workflows/{wf}/authorize", data={"csrf": omar.csrf, "choice": "approve", "max_runs": "5",
                                                      "max_model_calls": "7", "max_tokens": "", "deadline": "900"})
    assert r.status_code == 303 and "error=" not in r.headers["location"]
    wait_job(users_app, wf)
    auth = omar.get(f"/api/workflows/{wf}").json()["authorization"]
    assert auth["budgets"]["max_candidate_runs"] == 5 and auth["scope"]["candidate_runs"] == 5
    assert auth["budgets"]["max_model_calls"] == 7 and auth["budgets"]["deadline_seconds"] == 900
    assert auth["budgets"]["max_tokens"] == 200_000  # an empty input keeps the workflow's budget


def test_edit_and_resubmit_makes_a_new_linked_workflow(browser_as: Callable[[str], TestClient]) -> None:
    old = cli("run", BLOCKED, "--actor", "dana")["workflow_id"]
    dana, omar = browser_as("dana"), browser_as("omar")
    page = dana.get(f"/workflows/{old}").text
    assert 'id="resubmit"' in page and f">{BLOCKED}</textarea>" in page
    assert 'id="resubmit"' not in omar.get(f"/workflows/{old}").text  # an operator cannot submit
    empty = dana.post(f"/workflows/{old}/resubmit", data={"csrf": dana.csrf, "request": "  "})
    assert "error=" in empty.headers["location"]
    wf = new_id(dana.post(f"/workflows/{old}/resubmit", data={"csrf": dana.csrf,
                                                             "request": "make phase 1 bullets 20% slower"}))
    assert wf != old
    new_page = dana.get(f"/workflows/{wf}").text
    assert f'resubmitted from <a class="mono" href="/workflows/{old}">{old}</a>' in new_page
    status = dana.get(f"/api/workflows/{wf}").json()
    assert status["resubmitted_from"] == old and status["submitted_by"] == "dana"
    old_page = dana.get(f"/workflows/{old}").text
    assert 'id="superseded"' in old_page and f'href="/workflows/{wf}"' in old_page and 'id="resubmit"' not in old_page
    again = dana.post(f"/workflows/{old}/resubmit", data={"csrf": dana.csrf, "request": PASSES})
    assert "already+resubmitted" in again.headers["location"]
    # and through the API
    other = cli("run", BLOCKED)["workflow_id"]
    api = dana.post(f"/api/workflows/{other}/resubmit", json={"request": PASSES},
                    headers={"x-csrf-token": dana.csrf})
    assert api.status_code == 201, api.text
    assert api.json()["resubmitted_from"] == other


def test_a_revised_workflow_shows_the_reviewer_s_note_beside_the_form(browser_as: Callable[[str], TestClient]) -> None:
    wf = cli("run", PASSES, "--yes")["workflow_id"]
    cli("decide", wf, "revise", "--actor", "rita", "--note", "only the second half, please")
    page = browser_as("dana").get(f"/workflows/{wf}").text
    assert 'id="reviewer-note"' in page and "revision asked by rita" in page and "only the second half" in page
    assert f">{PASSES}</textarea>" in page


@pytest.mark.slow
def test_an_operator_runs_a_budget_exhausted_workflow_again_with_a_larger_budget(
        browser_as: Callable[[str], TestClient], users_app) -> None:
    old = cli("run", FAILING, "--yes", "--repair-scope", "fight", "--max-runs", "1")
    assert old["status"] == "budget_exhausted", old["status"]
    omar, dana = browser_as("omar"), browser_as("dana")
    page = omar.get(f"/workflows/{old['workflow_id']}").text
    assert 'id="rerun"' in page and 'id="rerun-max_runs"' in page
    assert 'id="rerun"' not in dana.get(f"/workflows/{old['workflow_id']}").text
    same = omar.post(f"/workflows/{old['workflow_id']}/rerun", data={"csrf": omar.csrf, "max_runs": "1"})
    assert "error=" in same.headers["location"]
    wf = new_id(omar.post(f"/workflows/{old['workflow_id']}/rerun", data={"csrf": omar.csrf, "max_runs": "3"}))
    wait_job(users_app, wf)
    status = omar.get(f"/api/workflows/{wf}").json()
    assert status["resubmitted_from"] == old["workflow_id"]
    assert status["authorization"]["actor"] == "omar" and status["authorization"]["budgets"]["max_candidate_runs"] == 3
    assert status["candidate_runs_used"] > 1


@pytest.mark.slow
def test_each_role_sees_what_needs_it(browser_as: Callable[[str], TestClient]) -> None:
    vague = cli("run", VAGUE, "--actor", "dana")["workflow_id"]  # needs an answer
    waiting = cli("run", REQUEST, "--actor", "dana")["workflow_id"]  # awaits the authorization
    ready = cli("run", PASSES, "--yes", "--actor", "dana")["workflow_id"]  # evidence ready
    decided = cli("run", PASSES, "--yes", "--actor", "dana")["workflow_id"]
    cli("decide", decided, "accept", "--actor", "rita", "--note", "good")
    blocked = cli("run", BLOCKED, "--actor", "dana")["workflow_id"]
    every = {vague, waiting, ready, decided, blocked}
    listed = re.compile(r'<td class="mono"><a href="/workflows/([^"]+)">')
    for name, expected in (("dana", {vague}), ("omar", {waiting}), ("rita", {ready}),
                           ("all", {vague, waiting, ready})):
        b = browser_as(name)
        page = b.get("/workflows", params={"needs": "me"}).text
        assert set(listed.findall(page)) == expected, name
        assert 'aria-current="page">Needs me' in page
        assert set(listed.findall(b.get("/workflows").text)) == every
    page = browser_as("all").get("/workflows", params={"needs": "operator"}).text
    assert set(listed.findall(page)) == {waiting}
    # created (relative, the absolute time in the title), actor and decision columns
    page = browser_as("rita").get("/workflows").text
    assert re.search(r'<time datetime="\d+" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">(just now|\d+ min ago)</time>',
                     page)
    row = next(r for r in page.split("<tr>") if decided in r)
    assert '<td class="actor">dana</td>' in row and '<td class="decision">accept by rita</td>' in row
    api = browser_as("rita").get("/api/workflows", params={"needs": "reviewer"}).json()
    assert [w["id"] for w in api["workflows"]] == [ready]


def test_relative_times_read_as_a_person_says_them() -> None:
    from gcv.console.views import ago

    now = 1_800_000_000.0
    assert [ago(now - s, now) for s in (3, 300, 3 * 3600, 2 * 86_400, 86_400)] == [
        "just now", "5 min ago", "3 h ago", "2 days ago", "1 day ago"]
    assert ago(None, now) == "-" and ago(now - 400 * 86_400, now) == "2025-12-11"
