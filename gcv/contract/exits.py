"""Every exit code a ``gcv`` command returns, in one table.

A code means one thing to a script, whichever command returns it; where two commands use
the same number for their own outcome (a batch's failed gate and a workflow left between
steps are both 8) the member is an alias, named for what the command says. The README's
command table, ``--help`` texts and docs/ci.md cite these numbers; ``tests/cli`` holds the
commands to them.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    INVALID = 1  # gcv validate: the config is invalid; gcv fair: unfair; eval-requests below its minimum
    USAGE = 2  # an input that cannot be used (which input, which field, the allowed range)
    ATTENTION = 3  # needs_clarification / out_of_scope / no_change; gcv fair: undetermined
    BLOCKED = 4
    BUDGET_EXHAUSTED = 5
    FAILED = 6
    WAITING = 7  # awaiting a person: an authorization or a choice among trade-offs
    LEFT_RUNNING = 8  # the workflow stopped between two of its steps (a killed process): `gcv resume WF`
    GATE_FAILED = 8  # gcv batch: the gate failed
    CELL_ERRORS = 9  # gcv batch: some cell's final row is an error
    ENVIRONMENT = 70  # the environment or the workspace failed, or a bug in GCV (sysexits' EX_SOFTWARE)
    INTERRUPTED = 130  # Ctrl-C or SIGTERM; the work so far is kept and resumable


__all__ = ["ExitCode"]
