"""What can go wrong with the workspace on disk, said so that a person can act on it."""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """The workspace cannot do what was asked (missing, unreadable, not writable, in use...)."""


class DamagedRecord(StoreError):
    """A workflow's stored record is missing or not what GCV wrote (an artifact whose hash does
    not match, a truncated state file, a log line that is not an event).

    The workflow named is unusable as it stands: every command refuses it the same way (exit 2,
    naming the file) and changes nothing. The environment failing (a full disk, an unusable
    ``GCV_HOME``, the catalog) stays a plain :class:`StoreError` (exit 70).
    """

    def __init__(self, message: str, path: Path | None = None) -> None:
        self.path = path
        super().__init__(message)


class CorruptLog(DamagedRecord):
    """A line of an append-only log is not what was written there.

    Readers never repair or truncate a log: a writing command refuses, naming the file, the
    line and what is wrong, so that valid history is never silently deleted.
    """

    def __init__(self, path: Path, line: int, what: str) -> None:
        self.line, self.what = line, what
        super().__init__(f"{path} line {line}: {what}; the log is refused as corrupt (nothing was changed). "
                         "Restore the file from a backup or an evidence bundle; `gcv verify` names what "
                         "a bundle still proves", path)


class WorkflowLocked(StoreError):
    """Another process is writing this workflow."""
