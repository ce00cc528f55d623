"""The root handler: whatever a command does not catch is one line and a documented code."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.cli import app as cli_app
from gcv.cli.failures import EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_USAGE, describe
from gcv.contract.loading import GcvInputError
from gcv.store.errors import CorruptLog, DamagedRecord, StoreError

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("exc", "code", "kind", "needle"), [
    (OSError(errno.ENOSPC, "No space left on device", "/ws/state.json"), EXIT_ENVIRONMENT, "environment",
     "/ws/state.json: No space left on device; the disk is full"),
    (OSError(errno.EROFS, "Read-only file system"), EXIT_ENVIRONMENT, "environment", "read-only"),
    (sqlite3.OperationalError("attempt to write a readonly database"), EXIT_ENVIRONMENT, "environment", "gcv reindex"),
    (StoreError("cannot use /x as the workspace\n(File exists)"), EXIT_ENVIRONMENT, "environment",
     "cannot use /x as the workspace (File exists)"),
    (GcvInputError("a.json", "not valid JSON", "$.phases"), EXIT_USAGE, "input", "a.json: not valid JSON (at $.phases)"),
    (MemoryError(), EXIT_ENVIRONMENT, "environment", "out of memory"),
    (KeyboardInterrupt(), EXIT_INTERRUPTED, "interrupted", "interrupted"),
    (ZeroDivisionError("division by zero"), EXIT_ENVIRONMENT, "internal", "internal error (a bug in GCV)"),
])
def test_describe_maps_each_failure_to_one_line_and_a_code(exc: BaseException, code: int, kind: str,
                                                          needle: str) -> None:
    failure = describe(exc)
    assert (failure.exit_code, failure.kind) == (code, kind)
    assert needle in failure.message and "\n" not in failure.message


def test_a_damaged_workflow_record_is_exit_2_naming_the_file_however_deep_it_is_found(tmp_path) -> None:
    failure = describe(CorruptLog(tmp_path / "events.jsonl", 7, "not an event"))
    assert (failure.exit_code, failure.kind) == (EXIT_USAGE, "input") and "events.jsonl line 7" in failure.message
    assert failure.file == str(tmp_path / "events.jsonl")
    artifact = tmp_path / "artifacts" / "ab.json"
    failure = describe(DamagedRecord(f"artifact ab is missing from {artifact.parent}", artifact))
    assert (failure.exit_code, failure.kind, failure.file) == (EXIT_USAGE, "input", str(artifact))
    # the environment failing stays 70
    assert describe(StoreError("the catalog cannot be written")).exit_code == EXIT_ENVIRONMENT


def _boom(*_: object, **__: object) -> None:
    raise RuntimeError("something nobody expected")


@pytest.mark.parametrize("json_mode", [False, True])
def test_an_unexpected_exception_is_one_line_exit_70_and_a_traceback_only_on_request(
        json_mode: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cli_app, "app", _boom)
    monkeypatch.setattr(sys, "argv", ["gcv", "list", *(["--json"] if json_mode else [])])
    monkeypatch.delenv("GCV_DEBUG", raising=False)
    with pytest.raises(SystemExit) as stop:
        cli_app.main()
    assert stop.value.code == 70
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if json_mode:
        data = json.loads(out)
        assert data["exit_code"] == 70 and data["kind"] == "internal" and "RuntimeError" in data["error"]
    else:
        assert err.startswith("error: internal error (a bug in GCV): RuntimeError: something nobody expected")
    monkeypatch.setenv("GCV_DEBUG", "1")
    with pytest.raises(SystemExit):
        cli_app.main()
    assert "Traceback" in capsys.readouterr().err


def _entry_with_a_planted_typer(tmp_path: Path, body: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The console script's entry in a real process whose import of typer (the first thing the
    command tree imports) runs ``body``: a deterministic stand-in for Ctrl-C or a broken install."""
    (tmp_path / "typer.py").write_text(body, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]), GCV_HOME=str(tmp_path / "home"))
    env.pop("GCV_DEBUG", None)
    return subprocess.run([sys.executable, "-c", "from gcv.cli.entry import main; main()", *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_ctrl_c_while_the_cli_imports_exits_130_without_a_traceback(tmp_path: Path) -> None:
    done = _entry_with_a_planted_typer(tmp_path, "raise KeyboardInterrupt\n", "--help")
    assert done.returncode == 130
    assert done.stderr == "interrupted\n"
    assert done.stdout == ""


def test_a_broken_install_is_one_json_error_with_exit_70(tmp_path: Path) -> None:
    done = _entry_with_a_planted_typer(tmp_path, "raise ImportError('planted: typer is broken')\n",
                                       "validate", "x.json", "--json")
    assert done.returncode == 70
    assert "Traceback" not in done.stderr
    doc = json.loads(done.stdout)
    assert doc["exit_code"] == 70 and "typer is broken" in doc["error"]
