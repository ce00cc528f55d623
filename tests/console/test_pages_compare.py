"""The compare page (issue 32 item 4): two workflows with their curves overlaid, the figures side
by side with B - A and the config diffs; two batches per cell; the picker; the links from the
workflow and batches pages; and the refusals, each naming the parameter at fault."""

from __future__ import annotations

import html as htmllib
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from gcv.console.app import create_app
from gcv.console.context import ConsoleConfig
from gcv.console.users import load_users
from gcv.contract.names import figure_text, signed_text
from gcv.service import compare, workflows
from gcv.store.catalog import Workspace
from gcv.workflow.loop import WorkflowLoop
from tests.console.conftest import BASE, TOKENS, USERS_TOML, csrf_of
from tests.support.simutil import Clock

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "make phase 3 much denser <script>alert(1)</script> & \"quoted\""
DODGEABLE = "make phase 2 a much denser ring but keep it dodgeable"  # a fair-fight analysis: a safe-area curve


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One workspace for the module: two workflows that ran, one waiting, two batches of one label."""
    root = tmp_path_factory.mktemp("compare")
    ws = Workspace(root / "ws")
    loop = WorkflowLoop(ws, clock=Clock(0.5))

    def run(request: str) -> str:
        wf = workflows.submit(loop, workflows.Submission(request=request)).wf_id
        workflows.authorize(loop, wf, actor="omar")
        workflows.resume(loop, wf)
        return wf

    a, b = run(HOSTILE), run(DODGEABLE)
    waiting = workflows.submit(loop, workflows.Submission(request="make phase 3 much denser")).wf_id
    from gcv.batch.job import run_job
    from gcv.batch.spec import load_batch

    shipped = REPO / "artifacts" / "baselines" / "shrine_trial.json"
    edited = root / "edited" / shipped.name
    edited.parent.mkdir()
    config = json.loads(shipped.read_text(encoding="utf-8"))
    config["phases"][2]["pattern"]["bullet_speed"] *= 2
    edited.write_text(json.dumps(config), encoding="utf-8")
    for name, source, seeds in (("one", shipped, 1), ("two", edited, 2)):
        spec = root / f"{name}.toml"
        spec.write_text(f'batch = "gcv.batch/1"\nconfigs = ["{source}"]\nseeds = {seeds}\nplayers = ["scripted"]\n'
                        f'engines = ["python-sim"]\noutput = "{ws.root / "batches" / name}"\n', encoding="utf-8")
        assert run_job(load_batch(spec, output_root=ws.root)).exit_code == 0
    users = root / "users.toml"
    users.write_text(USERS_TOML, encoding="utf-8")
    return {"ws": ws, "a": a, "b": b, "waiting": waiting, "users": users}


@pytest.fixture(scope="module")
def app(home: dict[str, Any]):
    return create_app(ConsoleConfig(workspace=home["ws"].root, host="127.0.0.1", port=8765,
                                    users=load_users(home["users"]), secret=b"s" * 32))


def signed_in(app, name: str) -> TestClient:
    client = TestClient(app, base_url=BASE, follow_redirects=False, headers={"origin": BASE})
    r = client.post("/login", data={"token": TOKENS[name], "next": "/workflows"})
    assert r.status_code == 303, r.text
    client.csrf = csrf_of(client.get("/workflows").text)  # type: ignore[attr-defined]
    return client


def section(html: str, id_: str) -> str:
    start = html.index(f'id="{id_}"')
    end = html.find("</section>", start)
    return html[start:end]


def alert(html: str) -> str:
    m = re.search(r'<div class="alert bad" role="alert">(.*?)</div>', html, re.S)
    return htmllib.unescape(m.group(1)) if m else ""


@pytest.mark.parametrize("who", ["dana", "omar", "rita"])
def test_any_role_sees_two_workflows_overlaid_with_their_figures_side_by_side(app, home: dict[str, Any],
                                                                            who: str) -> None:
    a, b = home["a"], home["b"]
    r = signed_in(app, who).get(f"/compare?a={a}&b={b}")
    assert r.status_code == 200, alert(r.text)
    html = r.text
    assert "content-security-policy" in r.headers and "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the designer's words, escaped
    expected = compare.compare_workflows(home["ws"], a, b)
    curves = section(html, "curves")
    # each chart overlays A's candidate, B's candidate and their shared baseline: one polyline each
    charts = dict(re.findall(r'<figure class="compare-chart" id="chart-([a-z_]+)">(.*?)</figure>', curves, re.S))
    assert set(charts) == {"alive", "hits", "safe_area"}
    for key in ("alive", "hits"):
        assert charts[key].count("<polyline") == 3, key
        assert "A candidate" in charts[key] and "B candidate" in charts[key] and "baseline" in charts[key]
    # only B's targets asked for a dodgeable fight: its baseline's and candidate's analyses
    assert charts["safe_area"].count("<polyline") == 2 and "B candidate" in charts["safe_area"]
    assert "drawn for B only" in curves
    # the figures: one row each, the numbers as the CLI writes them, B - A of the candidates
    rows = re.findall(r"<tr><td title=\"([^\"]+)\">.*?</tr>", section(html, "figures-card"), re.S)
    assert rows == [f["figure"] for f in expected.result["figures"]] and rows
    table = section(html, "figures-card")
    for f in expected.result["figures"]:
        row = re.search(rf'<tr><td title="{re.escape(f["figure"])}">(.*?)</tr>', table, re.S)
        assert row is not None
        cells = [htmllib.unescape(c) for c in re.findall(r'<td class="num[^"]*">([^<]*)</td>', row.group(1))]
        assert cells == [figure_text(f["a_baseline"]), figure_text(f["a_candidate"]), figure_text(f["b_candidate"]),
                         signed_text(f["candidate_delta"])]
    # the config diffs: A -> B, and each workflow's own change
    changes = section(html, "changes")
    assert changes.count("<tr><td><span class=\"field\"") == len(expected.result["candidate_changes"])
    for c in expected.result["candidate_changes"] + expected.own_changes[0] + expected.own_changes[1]:
        assert f'title="{c["path"]}"' in changes
    # the picker offers both, chosen
    assert re.search(rf'<option value="{a}" selected>', section(html, "pick"))


def test_two_batches_per_cell_with_the_diff_of_the_changed_config(app, home: dict[str, Any]) -> None:
    r = signed_in(app, "dana").get("/compare?batch_a=one&batch_b=two")
    assert r.status_code == 200, alert(r.text)
    html = r.text
    cells = section(html, "cells-card")
    assert "shrine_trial / scripted / python-sim" in cells and "config changed" in cells
    metrics = dict(re.findall(r'<td class="mono">([a-z_0-9]+)</td><td class="num">([^<]*)</td>', cells))
    assert metrics["runs"] == "1"  # A ran one seed (B two: +1)
    assert re.search(r'<td class="mono">runs</td><td class="num">1</td><td class="num">2</td>\s*'
                     r'<td class="num delta">\+1</td>', cells)
    diff = section(html, "config-changes")
    assert 'title="$.phases[2].pattern.bullet_speed"' in diff and "+100.0%" in diff
    assert 'href="/batches#batch-one"' in section(html, "compared")


def test_the_picker_offers_the_workflows_that_ran_and_the_batches(app, home: dict[str, Any]) -> None:
    browser = signed_in(app, "rita")
    r = browser.get("/compare")
    assert r.status_code == 200
    pick = section(r.text, "pick")
    offered = re.findall(r'<option value="([^"]+)"', pick)
    assert home["a"] in offered and home["b"] in offered and home["waiting"] not in offered
    assert "one" in offered and "two" in offered
    assert 'action="/compare"' in pick and 'method="get"' in pick and 'name="batch_a"' in pick
    # one side given (the links): that side chosen, nothing compared yet
    one = browser.get(f"/compare?a={home['a']}")
    assert one.status_code == 200 and 'id="compared"' not in one.text
    assert re.search(rf'<select id="pick-a" name="a">.*?<option value="{home["a"]}" selected>', one.text, re.S)
    assert browser.get("/compare?batch_a=two").status_code == 200
    # empty values are "not chosen"
    assert browser.get("/compare?a=&b=").status_code == 200


def test_the_workflow_and_batches_pages_link_to_it(app, home: dict[str, Any]) -> None:
    browser = signed_in(app, "dana")
    page = browser.get(f"/workflows/{home['a']}").text
    link = re.search(r'<a class="button" id="compare-with" href="([^"]+)">', page)
    assert link and htmllib.unescape(link.group(1)) == f"/compare?a={home['a']}"
    assert 'id="compare-with"' not in browser.get(f"/workflows/{home['waiting']}").text  # nothing ran yet
    batches = browser.get("/batches").text
    assert 'href="/compare?batch_a=one"' in batches and 'href="/compare?batch_a=two"' in batches
    assert browser.get(link.group(1)).status_code == 200


@pytest.mark.parametrize("query, status, words", [
    ("a=wf-nope&b={b}", 404, "a: no workflow 'wf-nope'"),
    ("a={a}&b=wf-nope", 404, "b: no workflow 'wf-nope'"),
    ("a=..%2Fx&b={b}", 404, "a: no such workflow"),
    ("a={a}&b={waiting}", 409, "b: workflow {waiting} has no run yet"),
    ("a={waiting}", 409, "a: workflow {waiting} has no run yet"),
    ("batch_a=one&batch_b=nope", 404, "batch_b: no batch 'nope'"),
    ("batch_a=..&batch_b=one", 404, "batch_a: no batch '..'"),
    ("batch_a=nope", 404, "batch_a: no batch 'nope'"),
    ("a={a}&batch_b=two", 400, "batch_b: names a batch, but a names a workflow"),
    ("wf={a}", 400, "wf: not a parameter of the compare page"),
    ("a={a}&a={b}", 400, "a: given more than once"),
])
def test_a_bad_query_is_refused_naming_the_parameter(app, home: dict[str, Any], query: str, status: int,
                                                     words: str) -> None:
    fill = {k: home[k] for k in ("a", "b", "waiting")}
    r = signed_in(app, "omar").get("/compare?" + query.format(**fill))
    assert r.status_code == status
    assert alert(r.text).startswith(words.format(**fill)), alert(r.text)
    assert 'id="pick-workflows"' in r.text and 'id="compared"' not in r.text  # the picker, to choose again
    # a value that named nothing is not offered back as a choice
    assert 'value="wf-nope"' not in r.text and 'value="nope"' not in r.text


def test_without_a_session_the_page_asks_to_sign_in_first(app, home: dict[str, Any]) -> None:
    client = TestClient(app, base_url=BASE, follow_redirects=False)
    target = f"/compare?a={home['a']}&b={home['b']}"
    r = client.get(target)
    assert r.status_code == 303 and r.headers["location"] == "/login?next=" + quote(target, safe="")
    bearer = TestClient(app, base_url=BASE, follow_redirects=False,
                        headers={"authorization": f"Bearer {TOKENS['rita']}"})
    assert bearer.get(target).status_code == 303  # a page is for a browser session
    browser = signed_in(app, "all")
    assert browser.post("/compare", data={"csrf": browser.csrf}).status_code == 405  # GET only
