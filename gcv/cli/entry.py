"""The ``gcv`` console script.

``gcv NAME ...`` for a command NAME of the table below imports and builds only the command
module that defines NAME (``gcv validate`` neither imports the workflow, batch or console
commands nor builds their parameters); anything else (``gcv --help``, ``--version``, an
unknown or misspelt command, shell completion) runs the whole tree of ``gcv.cli.app``. A test
holds the table equal to what the modules register, and each command's help equal in both.

Importing the command tree takes about a tenth of a second; a Ctrl-C in that window, or an
install broken enough that the import fails, must end like any other failure: one line (one
JSON object with ``--json``) and the documented exit code (130 interrupted, 70 environment or
internal error; see ``gcv/cli/failures.py``), never a traceback.
"""

from __future__ import annotations

import os
import sys

# top-level command (or group) -> the module of gcv.cli.commands that registers it
COMMAND_MODULES: dict[str, str] = {
    "validate": "validate_cmds", "diff": "validate_cmds", "schema": "validate_cmds",
    "propose": "propose_cmds",
    "sim": "sim_cmds", "engines": "sim_cmds",
    "run": "workflow_cmds", "resubmit": "workflow_cmds", "authorize": "workflow_cmds", "resume": "workflow_cmds", "status": "workflow_cmds",
    "reindex": "workflow_cmds", "list": "workflow_cmds", "answer": "workflow_cmds", "decide": "workflow_cmds",
    "baselines": "workflow_cmds",
    "batch": "batch_cmds",
    "bundle": "evidence_cmds", "verify": "evidence_cmds", "report": "evidence_cmds",
    "agents": "agents_cmds",
    "eval-requests": "eval_cmds",
    "fair": "fair_cmds",
    "compare": "compare_cmds",
    "serve": "serve_cmds",
    "notify": "notify_cmds",
}


def module_for(argv: list[str]) -> str | None:
    """The one command module ``argv`` needs, or None for the whole tree."""
    if len(argv) < 2 or any(key.startswith("_GCV_COMPLETE") for key in os.environ):
        return None
    return COMMAND_MODULES.get(argv[1])


def main() -> None:
    try:
        from gcv.cli import startup  # lazy: the imports themselves are inside the handling

        startup.prepare()
        name = module_for(sys.argv)
        if name is None:
            from gcv.cli.app import app as tree
            from gcv.cli.root import run
        else:
            import importlib

            from gcv.cli.root import make_app, run

            tree = make_app((importlib.import_module(f"gcv.cli.commands.{name}"),))
    except BaseException as exc:  # noqa: BLE001 - the same last line of defence as gcv.cli.root.run
        if isinstance(exc, SystemExit):
            raise
        from gcv.cli.failures import report

        sys.exit(report(exc, json_mode="--json" in sys.argv[1:]))
    run(tree)


if __name__ == "__main__":
    main()
