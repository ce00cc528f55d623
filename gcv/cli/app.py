"""The whole ``gcv`` command tree: every command module under one root (``gcv --help``, the
tests, ``python -c "from gcv.cli.app import main; main()"``). The console script
(``gcv.cli.entry``) builds just the module a command line names when it can."""

from __future__ import annotations

from gcv.cli import startup

startup.prepare()  # before the imports below: see gcv/cli/startup.py

from gcv.cli.commands import (agents_cmds, batch_cmds, compare_cmds, eval_cmds, evidence_cmds, fair_cmds, notify_cmds,
                              propose_cmds, serve_cmds, sim_cmds, validate_cmds, workflow_cmds)
from gcv.cli.root import make_app, package_version, run

# The order of `gcv --help`.
MODULES = (validate_cmds, propose_cmds, sim_cmds, workflow_cmds, batch_cmds, evidence_cmds, agents_cmds,
           eval_cmds, fair_cmds, compare_cmds, serve_cmds, notify_cmds)
app = make_app(MODULES)


def main() -> None:
    """Run the whole tree (see :func:`gcv.cli.root.run`)."""
    run(app)


__all__ = ["MODULES", "app", "main", "package_version"]

if __name__ == "__main__":
    main()
