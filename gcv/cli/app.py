"""The ``gcv`` command line: one entry point over composable command groups."""

from __future__ import annotations

import typer

from gcv.cli.commands import batch_cmds, propose_cmds, sim_cmds, validate_cmds, workflow_cmds

app = typer.Typer(
    name="gcv",
    help="Game-change verification: prove a designer's bullet-hell change before it ships.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (validate_cmds, propose_cmds, sim_cmds, workflow_cmds, batch_cmds):
    module.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
