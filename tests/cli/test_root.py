"""The root of the command tree (gcv.cli.root): make_app over any command modules, --version,
and run(): with --json even a usage error is one JSON object and exit 2."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import pytest
import typer
from typer.testing import CliRunner

from gcv.cli.root import SUMMARY, make_app, package_version, run


def _module() -> SimpleNamespace:
    sub = typer.Typer()

    @sub.command("hello")
    def hello(name: str = typer.Argument(...), json_mode: bool = typer.Option(False, "--json")) -> None:
        """Say hello to NAME, a friendly greeting."""
        typer.echo(json.dumps({"hello": name, "exit_code": 0}) if json_mode else f"hello {name}")

    @sub.command("fail")
    def fail() -> None:
        raise RuntimeError("boom")

    return SimpleNamespace(app=sub)


def test_the_modules_commands_join_the_top_level() -> None:
    app = make_app((_module(),))
    runner = CliRunner()
    assert runner.invoke(app, ["hello", "ann"]).stdout == "hello ann\n"
    top = " ".join(runner.invoke(app, ["--help"]).stdout.split())
    assert SUMMARY in top and "Say hello to NAME, a friendly greeting." in top


def test_version() -> None:
    result = CliRunner().invoke(make_app((_module(),)), ["--version"])
    assert result.exit_code == 0 and result.stdout == f"gcv {package_version()}\n"
    assert package_version()


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["gcv", *argv])
    with pytest.raises(SystemExit) as caught:
        run(make_app((_module(),)))
    out, err = capsys.readouterr()
    return int(caught.value.code or 0), out, err


def test_run_with_json(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(monkeypatch, capsys, "hello", "ann", "--json")
    assert code == 0 and json.loads(out) == {"hello": "ann", "exit_code": 0}
    code, out, _ = _run(monkeypatch, capsys, "hello", "--json")  # a missing argument: click's usage error
    assert code == 2 and json.loads(out) == {"error": "Missing argument 'name'.", "file": None, "detail": None,
                                             "exit_code": 2}


def test_an_unhandled_failure_is_one_line_and_a_documented_code(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(monkeypatch, capsys, "fail")
    assert code == 70 and "Traceback" not in err and "boom" in err
