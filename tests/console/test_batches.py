"""The batches pages (issue 32 item 5): every batch with when it ran, the intervals `gcv batch`
prints, its tables to download (only files of its own folder), a group's rows, a row's fight
in the viewer, and the operator's form that starts a committed spec in the background."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from gcv.batch import figures
from gcv.service import batches

REPO = Path(__file__).resolve().parents[2]
SMOKE = "smoke.toml"


def start(browser, spec: str = SMOKE, **extra: str):
    return browser.post("/batches/start", data={"spec": spec, "csrf": browser.csrf, **extra})


def ran(app, workspace: Path, browser, spec: str = SMOKE) -> dict:
    """Start ``spec`` through the page as an operator and wait for it to end."""
    r = start(browser, spec)
    assert r.status_code == 303 and r.headers["location"] == "/batches", r.text
    job = app.state.console.batch_jobs.wait(timeout=120)
    assert job is not None and not job.running and job.error is None, job and job.error
    return json.loads((workspace / "batches" / Path(spec).stem / "summary.json").read_text(encoding="utf-8"))


@pytest.fixture()
def smoke(users_app, workspace: Path, browser_as) -> dict:
    return ran(users_app, workspace, browser_as("omar"))


def test_the_list_shows_when_each_batch_ran_its_intervals_and_its_tables(smoke: dict, browser_as) -> None:
    page = browser_as("dana").get("/batches")  # anyone signed in reads it
    assert page.status_code == 200
    html = page.text
    section = html[html.index('id="batch-smoke"'):]
    # when: relative, with the UTC start and end in the title
    m = re.search(r'<time class="ran" datetime="\d+" title="([^"]+)">([^<]+)</time>', section)
    assert m and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC to \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", m.group(1))
    assert m.group(2) == "just now"
    # the intervals, written as the CLI writes them from the same summary
    for g in smoke["summary"]:
        assert f'<td class="num nowrap survival">{figures.survival(g["metrics"])}</td>' in section
        assert f'<td class="num nowrap hits-mean">{figures.hits_mean(g["metrics"])}</td>' in section
    assert "100.0 [34.2,100.0]" in section and "2.00 [2.00,2.00]" in section  # scripted: 2 hits on each seed
    # the tables: CSV, Parquet and JUnit of this batch's folder
    for f in ("results.csv", "results.parquet", "junit.xml"):
        assert f'href="/batches/smoke/files/{f}"' in section
    assert section.count('href="/batches/smoke/groups/') == len(smoke["summary"])


def test_the_intervals_are_the_ones_gcv_batch_prints(tmp_path: Path, workspace: Path) -> None:
    """The CLI's summary of the same spec holds the very strings the page shows."""
    from typer.testing import CliRunner

    from gcv.cli.app import app

    spec = tmp_path / "tiny.toml"
    spec.write_text(f'configs = ["{REPO / "artifacts/baselines/shrine_trial.json"}"]\nseeds = 3\n'
                    'players = ["scripted", "bot:novice"]\n', encoding="utf-8")
    out = CliRunner().invoke(app, ["batch", str(spec), "--workers", "1"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    summary = json.loads((workspace / "batches" / "tiny" / "summary.json").read_text(encoding="utf-8"))
    for g in summary["summary"]:
        assert figures.survival(g["metrics"]) in out.output
        assert figures.hits_mean(g["metrics"]) in out.output


def test_a_batch_without_a_parquet_or_junit_file_says_so(smoke: dict, workspace: Path, browser_as) -> None:
    (workspace / "batches" / "smoke" / "junit.xml").unlink()
    (workspace / "batches" / "smoke" / "results.parquet").unlink()
    html = browser_as("rita").get("/batches").text
    assert 'href="/batches/smoke/files/junit.xml"' not in html and "no JUnit" in html and "no Parquet" in html
    assert browser_as("rita").get("/batches/smoke/files/junit.xml").status_code == 404


def test_the_file_route_serves_the_batch_s_files_and_nothing_else(smoke: dict, workspace: Path, browser_as,
                                                                  bearer) -> None:
    folder = workspace / "batches" / "smoke"
    rita = browser_as("rita")
    csv = rita.get("/batches/smoke/files/results.csv")
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    assert csv.content == (folder / "results.csv").read_bytes()
    assert "attachment" in csv.headers["content-disposition"]
    parquet = bearer("dana").get("/batches/smoke/files/results.parquet")  # a CI script with a token
    assert parquet.status_code == 200 and parquet.content == (folder / "results.parquet").read_bytes()
    junit = rita.get("/batches/smoke/files/junit.xml")
    assert junit.status_code == 200 and junit.content.startswith(b"<?xml")
    # traversal and anything not a batch table: 404, whatever the spelling
    (workspace / "secret.txt").write_text("no", encoding="utf-8")
    (folder / "other.txt").write_text("no", encoding="utf-8")
    for path in ("/batches/smoke/files/..%2F..%2Fsecret.txt", "/batches/smoke/files/%2E%2E%2Fbatch.json",
                 "/batches/..%2Fsmoke/files/results.csv", "/batches/%2E%2E/files/results.csv",
                 "/batches/smoke/files/other.txt", "/batches/smoke/files/..", "/batches/nope/files/results.csv",
                 "/batches/smoke/files/runs", "/batches/smoke/files/%2Fetc%2Fpasswd"):
        r = rita.get(path)
        assert r.status_code == 404, (path, r.status_code)
        assert b"no" != r.content
    # a symlink named like a table that points out of the folder is refused too
    (folder / "results.csv").unlink()
    (folder / "results.csv").symlink_to(workspace / "secret.txt")
    assert rita.get("/batches/smoke/files/results.csv").status_code == 404
    # not signed in: no file
    anonymous = bearer("dana")
    anonymous.headers.pop("authorization")
    assert anonymous.get("/batches/smoke/files/results.parquet").status_code == 401


def test_the_drill_down_shows_a_group_s_rows_and_links_each_run(smoke: dict, workspace: Path, browser_as) -> None:
    rows = [json.loads(line) for line in (workspace / "batches/smoke/results.jsonl").read_text().splitlines()]
    index = next(i for i, g in enumerate(smoke["summary"]) if g["player"] == "scripted")
    page = browser_as("dana").get(f"/batches/smoke/groups/{index}")
    assert page.status_code == 200
    html = page.text
    mine = [r for r in rows if r["player"] == "scripted"]
    assert len(mine) == 2 and html.count('<tr class="final">') == 2
    for r in mine:
        assert f'href="/batches/smoke/runs/{r["cell_id"]}?attempt=1"' in html
        assert f'<td class="num">{r["seed"]}</td>' in html
    assert "bot:average" not in html.split("<tbody>")[1]  # only this group's rows
    assert figures.survival(smoke["summary"][index]["metrics"]) in html
    assert browser_as("dana").get("/batches/smoke/groups/99").status_code == 404
    assert browser_as("dana").get("/batches/nope/groups/0").status_code == 404


def test_a_row_opens_in_the_fight_viewer_from_its_exact_run(smoke: dict, workspace: Path, browser_as) -> None:
    row = json.loads((workspace / "batches/smoke/results.jsonl").read_text().splitlines()[0])
    rita = browser_as("rita")
    page = rita.get(f"/batches/smoke/runs/{row['cell_id']}?attempt=1")
    assert page.status_code == 200 and 'data-src="/batches/smoke/runs/' in page.text
    r = rita.get(f"/batches/smoke/runs/{row['cell_id']}/positions.json?attempt=1")
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["ticks"] == row["ticks"] and len(data["hit_ticks"]) == row["player_hits"]
    assert data["status"] == row["status"]


def test_a_row_whose_config_changed_says_why_it_cannot_be_shown(tmp_path: Path, workspace: Path, browser_as,
                                                                users_app) -> None:
    """A batch of a config file that was edited afterwards: the page says so, the JSON is refused."""
    from typer.testing import CliRunner

    from gcv.cli.app import app

    config = tmp_path / "mine.json"
    shutil.copy(REPO / "artifacts/baselines/shrine_trial.json", config)
    spec = tmp_path / "edited.toml"
    spec.write_text(f'configs = ["{config}"]\nseeds = 1\n', encoding="utf-8")
    assert CliRunner().invoke(app, ["batch", str(spec), "--workers", "1"]).exit_code == 0
    data = json.loads(config.read_text(encoding="utf-8"))
    data["phases"][0]["pattern"]["bullets_per_wave"] += 1
    config.write_text(json.dumps(data), encoding="utf-8")
    row = json.loads((workspace / "batches/edited/results.jsonl").read_text().splitlines()[0])
    page = browser_as("rita").get(f"/batches/edited/runs/{row['cell_id']}")
    assert page.status_code == 200 and 'id="not-viewable"' in page.text and "hash changed" in page.text
    assert "data-src" not in page.text
    assert browser_as("rita").get(f"/batches/edited/runs/{row['cell_id']}/positions.json").status_code == 404


@pytest.mark.parametrize("who", ["dana", "rita"])
def test_only_an_operator_sees_and_may_use_the_start_form(users_app, workspace: Path, browser_as, who: str) -> None:
    browser = browser_as(who)
    html = browser.get("/batches").text
    assert 'action="/batches/start"' not in html and "needs the operator role" in html
    r = start(browser)
    assert r.status_code == 403
    assert not (workspace / "batches" / "smoke").exists() and users_app.state.console.batch_jobs.last is None


def test_an_operator_starts_a_committed_spec_and_sees_it_run_and_end(users_app, workspace: Path, browser_as) -> None:
    omar = browser_as("omar")
    html = omar.get("/batches").text
    assert 'action="/batches/start"' in html
    for spec in batches.committed_specs():
        assert f'<option value="{spec.name}">' in html
    summary = ran(users_app, workspace, omar)
    assert summary["counts"]["completed"] == 4
    html = omar.get("/batches").text
    job = html[html.index('id="batch-job"'):]
    assert "passed" in job and "started by omar" in job and 'id="batch-smoke"' in html
    # again without replacing: refused, and nothing is lost; replacing runs it again
    r = start(omar)
    assert r.status_code == 303 and "earlier+run" in r.headers["location"]
    assert start(omar, overwrite="1").status_code == 303
    job = users_app.state.console.batch_jobs.wait(timeout=120)
    assert job is not None and job.error is None and job.result["exit_code"] == 0
    # a spec that is not committed is refused
    r = start(omar, "../../etc/passwd")
    assert r.status_code == 303 and "not+a+committed" in r.headers["location"]


def test_the_page_shows_running_while_the_batch_runs(users_app, workspace: Path, browser_as,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    gate = threading.Event()
    real = batches.start_batch

    def slow(*args, **kwargs):
        kwargs["on_start"](4, 0)
        gate.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(batches, "start_batch", slow)
    omar = browser_as("omar")
    assert start(omar).status_code == 303
    try:
        html = omar.get("/batches").text
        assert 'data-running="1"' in html and "running" in html and "0 of 4 runs" in html
        r = start(omar, overwrite="1")  # one batch at a time
        assert r.status_code == 303 and "is+running" in r.headers["location"]
    finally:
        gate.set()
    job = users_app.state.console.batch_jobs.wait(timeout=120)
    assert job is not None and job.error is None
    assert 'data-running="0"' in omar.get("/batches").text
