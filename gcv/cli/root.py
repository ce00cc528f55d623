"""The root of the ``gcv`` command tree and the one way a command tree is run.

``make_app`` builds the root Typer app (name, plain help, ``--version``) over any set of
command modules; ``run`` runs a tree with the CLI's failure handling. ``gcv.cli.app`` is the
whole tree (every command, for ``gcv --help`` and the tests); ``gcv.cli.entry`` builds a tree
of the one module a command line names, so that ``gcv validate`` imports and builds only the
validate module's commands.
"""

from __future__ import annotations

import sys
from types import ModuleType

import typer

from gcv.cli.help_format import PlainHelpGroup
from gcv.contract.exits import ExitCode

SUMMARY = "Game-change verification: prove a designer's bullet-hell change before it ships."


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


def make_app(modules: tuple[ModuleType, ...]) -> typer.Typer:
    """The root app over ``modules``: each is a Typer app of its own whose commands join the top level."""
    app = typer.Typer(
        name="gcv",
        help=SUMMARY,
        no_args_is_help=True,
        add_completion=True,  # Typer's own --install-completion / --show-completion (bash, zsh, fish, PowerShell)
        pretty_exceptions_enable=False,
        # plain help (click's formatter): rich's help renderer (rich.markdown, markdown_it, pygments)
        # costs start-up time; PlainHelpGroup wraps each command's summary instead of cutting it
        rich_markup_mode=None,
        cls=PlainHelpGroup,
    )

    @app.callback()
    def _root(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                           help="print the version and exit")) -> None:
        """Game-change verification: prove a designer's bullet-hell change before it ships."""

    for module in modules:
        app.add_typer(module.app)
    return app


def run(app: typer.Typer) -> None:
    """Run a command tree. With ``--json`` even a usage error is one JSON object on stdout.

    Whatever a command does not handle ends here as one message and a documented exit code
    (gcv/cli/failures.py: 2 unusable input, 70 environment or internal error, 130
    interrupted), never a traceback.
    """
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
                sys.exit(ExitCode.INTERRUPTED)
            raise
        sys.exit(code if isinstance(code, int) else 0)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - the one place every unhandled failure is reported
        from gcv.cli.failures import report  # lazy: only on failure

        sys.exit(report(exc, json_mode=json_mode))
