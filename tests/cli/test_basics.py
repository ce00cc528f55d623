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


def test_shell_completion_is_typers_own() -> None:
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
    out = _gcv("run", REQUEST, "--yes", "--open", "--json", env=env)
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
