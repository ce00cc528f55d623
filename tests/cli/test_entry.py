"""The console script builds only the command module a command line names
(gcv/cli/entry.py): the table is what the modules register, each command behaves the same
from its module alone as from the whole tree, and a named command imports no other module."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gcv.cli.app import MODULES
from gcv.cli.app import app as whole
from gcv.cli.entry import COMMAND_MODULES, module_for
from gcv.cli.root import make_app
from tests.cli.test_startup_imports import BASELINE, imported


def _registered(module) -> list[str]:
    app: typer.Typer = module.app
    return ([c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands]
            + [g.name for g in app.registered_groups])


def test_the_table_is_what_the_modules_register() -> None:
    table = {name: module.__name__.rsplit(".", 1)[1] for module in MODULES for name in _registered(module)}
    assert table == COMMAND_MODULES


def _help_lines(app: typer.Typer, args: list[str]) -> str:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.output


def _subcommands(module) -> list[list[str]]:
    out = [[name, "--help"] for name in _registered(module)]
    for group in module.app.registered_groups:
        out += [[group.name, c.name or c.callback.__name__.replace("_", "-"), "--help"]
                for c in group.typer_instance.registered_commands]
    return out


CASES = [(module, args) for module in MODULES for args in _subcommands(module)]


@pytest.mark.parametrize("module, args", CASES, ids=[" ".join(a[:-1]) for _, a in CASES])
def test_each_command_helps_the_same_from_its_module_alone(module, args: list[str]) -> None:
    assert _help_lines(make_app((module,)), args) == _help_lines(whole, args)


def test_usage_errors_read_the_same_from_the_module_alone() -> None:
    module = next(m for m in MODULES if m.__name__.endswith("validate_cmds"))
    alone = CliRunner().invoke(make_app((module,)), ["validate", "--no-such-option"])
    full = CliRunner().invoke(whole, ["validate", "--no-such-option"])
    assert (alone.exit_code, alone.output) == (full.exit_code, full.output) and alone.exit_code == 2


@pytest.mark.parametrize("argv, expected", [
    (["gcv"], None), (["gcv", "--help"], None), (["gcv", "--version"], None), (["gcv", "valdate"], None),
    (["gcv", "validate", "x.json"], "validate_cmds"), (["gcv", "baselines", "list"], "workflow_cmds"),
    (["gcv", "eval-requests"], "eval_cmds"),
])
def test_which_module_a_command_line_needs(argv: list[str], expected: str | None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("_GCV_COMPLETE")]:
        monkeypatch.delenv(key)
    assert module_for(argv) == expected
    monkeypatch.setenv("_GCV_COMPLETE", "complete_bash")  # shell completion needs the whole tree
    assert module_for(argv) is None


def test_a_named_command_imports_no_other_command_module(tmp_path: Path) -> None:
    code, modules = imported(tmp_path, "validate", str(BASELINE))
    assert code == 0
    commands = {m for m in modules if m.startswith("gcv.cli.commands.")}
    assert commands == {"gcv.cli.commands.validate_cmds"}
    assert "gcv.cli.app" not in modules
    code, modules = imported(tmp_path, "--help")
    assert code == 0
    assert {f"gcv.cli.commands.{name}" for name in set(COMMAND_MODULES.values())} <= modules
