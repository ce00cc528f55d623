"""The ``gcv`` command line: one entry point over composable command groups."""

from __future__ import annotations

import os

from gcv.cli import startup

startup.hold()  # before the imports below: see gcv/cli/startup.py

import typer

# gcv does no linear algebra: one BLAS thread. Otherwise OpenBLAS starts a spinning thread per
# core when numpy is imported, which costs every numpy-using command about 50 ms of CPU.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# gcv uses no pydantic plugins. Looking for them scans the entry points of every installed
# distribution at the first model build: about 30 ms of every command's CPU with the test
# extras installed. Set PYDANTIC_DISABLE_PLUGINS yourself (even to "") to have them loaded.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from gcv.cli.help_format import PlainHelpGroup
from gcv.cli.commands import (agents_cmds, batch_cmds, compare_cmds, eval_cmds, evidence_cmds, fair_cmds, propose_cmds, serve_cmds,
                              sim_cmds, validate_cmds, workflow_cmds)

app = typer.Typer(
    name="gcv",
    help="Game-change verification: prove a designer's bullet-hell change before it ships.",
    no_args_is_help=True,
    add_completion=True,  # Typer's own --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    pretty_exceptions_enable=False,
    # plain help (click's formatter): rich's help renderer (rich.markdown, markdown_it, pygments)
    # costs start-up time; PlainHelpGroup wraps each command's summary instead of cutting it
    rich_markup_mode=None,
    cls=PlainHelpGroup,
)


def package_version() -> str:
    """The installed package's version (what `pip` and the bundles' tool records say)."""
    from importlib.metadata import PackageNotFoundError, version  # lazy: only for --version

    try:
        return version("gcv")
    except PackageNotFoundError:  # a source checkout that was never installed
        from gcv import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"gcv {package_version()}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="print the version and exit")) -> None:
    """Game-change verification: prove a designer's bullet-hell change before it ships."""

# Each command module is a Typer app of its own; its commands join the top level.
for module in (validate_cmds, propose_cmds, sim_cmds, workflow_cmds, batch_cmds, evidence_cmds, agents_cmds,
               eval_cmds, fair_cmds, compare_cmds, serve_cmds):
    app.add_typer(module.app)


def main() -> None:
    """Entry point. With ``--json`` even a usage error is one JSON object on stdout.

    Whatever a command does not handle ends here as one message and a documented exit code
    (gcv/cli/failures.py: 2 unusable input, 70 environment or internal error, 130
    interrupted), never a traceback.
    """
    import sys

    json_mode = "--json" in sys.argv[1:]
    try:
        if not json_mode:
            app()
            return
        from gcv.cli.output import emit_json

        try:
            code = app(standalone_mode=False)
        except Exception as exc:  # typer ships its own click: match its exceptions by kind
            kinds = {k.__name__ for k in type(exc).__mro__}
            if "UsageError" in kinds:
                emit_json({"error": exc.format_message(), "file": None, "detail": None,  # type: ignore[attr-defined]
                           "exit_code": 2})
                sys.exit(2)
            if "Abort" in kinds:
                sys.exit(130)
            raise
        sys.exit(code if isinstance(code, int) else 0)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - the one place every unhandled failure is reported
        from gcv.cli.failures import report  # lazy: only on failure

        sys.exit(report(exc, json_mode=json_mode))


if __name__ == "__main__":
    main()
