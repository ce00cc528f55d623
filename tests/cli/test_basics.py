"""What a new user expects of any CLI (issue 19.6): --version, shell completion, `schema export
--json`, and `--open` for the report."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app

REPO = Path(__file__).resolve().parents[2]
REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


def _gcv(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gcv.cli.app", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_version_is_the_installed_package_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"gcv {version('gcv')}\n"


def test_shell_completion_is_typers_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # Typer detects the user's shell from the parent process unless told not to (its own
    # tests do the same): without this, a run with no terminal (CI, a background job) finds no
    # shell and `--show-completion bash` exits 1.
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    result = CliRunner().invoke(app, ["--help"])
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout
    script = CliRunner().invoke(app, ["--show-completion", "bash"], prog_name="gcv")
    assert script.exit_code == 0 and "complete -o default -F _gcv_completion gcv" in script.stdout
    # what the shell then asks: the commands that start with "ba"
    words = CliRunner().invoke(app, [], prog_name="gcv",
                               env={"_GCV_COMPLETE": "complete_bash", "COMP_WORDS": "gcv ba", "COMP_CWORD": "1"})
    assert words.stdout.split() == ["baselines", "batch"]


def test_schema_export_json_lists_what_it_wrote(tmp_path: Path) -> None:
    from gcv.schema_export import SCHEMAS

    result = CliRunner().invoke(app, ["schema", "export", "--dir", str(tmp_path / "s"), "--json"])
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert sorted(f["schema"] for f in out["written"]) == sorted(SCHEMAS)
    assert all(Path(f["path"]).is_file() and Path(f["path"]).stat().st_size == f["bytes"] for f in out["written"])
    assert out["changed"] == len(SCHEMAS) and out["exit_code"] == 0
    again = json.loads(CliRunner().invoke(app, ["schema", "export", "--dir", str(tmp_path / "s"), "--json"]).stdout)
    assert again["changed"] == 0 and not any(f["changed"] for f in again["written"])


def test_schema_export_json_error_is_one_json_object(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    result = CliRunner().invoke(app, ["schema", "export", "--dir", str(blocker / "sub"), "--json"])
    assert result.exit_code == 2
    out = json.loads(result.stdout)
    assert out["exit_code"] == 2 and "cannot write schemas" in out["error"]


@pytest.fixture()
def fake_browser(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A BROWSER that records the URL it was asked to open."""
    record = tmp_path / "opened.txt"
    script = tmp_path / "fake-browser"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{record}"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {"BROWSER": str(script), "GCV_HOME": str(tmp_path / "ws"), "DISPLAY": ""}, record


@pytest.mark.slow
def test_run_and_report_open_the_report_in_the_browser(fake_browser) -> None:
    env, record = fake_browser
    out = _gcv("run", REQUEST, "--yes", "--repair-scope", "fight", "--open", "--json", env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    report = Path(data["evidence"]["report"])
    assert data["opened"] is True
    assert record.read_text(encoding="utf-8").splitlines() == [report.resolve().as_uri()]
    human = _gcv("report", data["workflow_id"], "--open", env=env)
    assert human.returncode == 0 and "opened in a browser" in human.stdout
    assert record.read_text(encoding="utf-8").splitlines() == [report.resolve().as_uri()] * 2
    quiet = _gcv("report", data["workflow_id"], "--json", env=env)  # without --open nothing is opened
    assert "opened" not in json.loads(quiet.stdout) and len(record.read_text(encoding="utf-8").splitlines()) == 2


def test_population_default_is_one_definition_in_the_cli_the_api_and_the_docs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19.7: `--population default` means in the CLI what docs/batch.md says."""
    import inspect
    import re

    from gcv.batch.population import evaluate_population, run_population
    from gcv.evaluation.population import DEFAULT_POPULATION, default_population_markdown

    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    result = CliRunner().invoke(app, ["run", REQUEST, "--population", "default", "--json"])  # stops before runs
    out = json.loads(result.stdout)
    assert out["status"] == "awaiting_authorization"
    state = json.loads((Path(out["workspace"]) / "state.json").read_text(encoding="utf-8"))
    assert state["settings"]["population"] == DEFAULT_POPULATION
    run_defaults = inspect.signature(run_population).parameters
    assert list(run_defaults["skills"].default) == DEFAULT_POPULATION["skills"]
    assert run_defaults["seeds"].default == DEFAULT_POPULATION["seeds"]
    assert [dict(t) for t in inspect.signature(evaluate_population).parameters["targets"].default] == \
        DEFAULT_POPULATION["targets"]
    doc = (REPO / "docs" / "batch.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- default-population[^>]*-->\n(.*?)\n<!-- /default-population -->", doc, re.S)
    assert block is not None and block.group(1) == default_population_markdown()
    assert f"{DEFAULT_POPULATION['seeds']} seeds" in block.group(1)


@pytest.mark.slow
def test_population_rounds_report_counts_when_piped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19.6: n/N fights, one line per step, also when stderr is not a terminal."""
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    result = CliRunner().invoke(app, ["run", "make phase 3 bullets faster by 10%", "--yes", "--repair-scope", "fight", "--population",
                                      "average:8"])
    lines = [line.strip() for line in result.stderr.splitlines()]
    base = [line for line in lines if line.startswith("... population:baseline:")]
    assert base[-1] == "... population:baseline: 8/8 fights"
    counts = [int(line.split(": ")[-1].split("/")[0]) for line in base]
    assert counts == sorted(counts) and len(counts) >= 5 and len(counts) <= 10
    assert any(line.startswith("... population:candidate:1: ") and line.endswith("8/8 fights") for line in lines)
