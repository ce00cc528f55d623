"""What can go wrong with the workspace on disk, said so that a person can act on it."""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """The workspace cannot do what was asked (missing, unreadable, not writable, in use...)."""


class CorruptLog(StoreError):
    """A line of an append-only log is not what was written there.

    Readers never repair or truncate a log: a writing command refuses, naming the file, the
    line and what is wrong, so that valid history is never silently deleted.
    """

    def __init__(self, path: Path, line: int, what: str) -> None:
        self.path, self.line, self.what = path, line, what
        super().__init__(f"{path} line {line}: {what}; the log is refused as corrupt (nothing was changed). "
                         "Restore the file from a backup or an evidence bundle; `gcv verify` names what "
                         "a bundle still proves")


class WorkflowLocked(StoreError):
    """Another process is writing this workflow."""
