"""Crash-safe writes, and the fault-injection point the kill-and-resume tests use.

Every durable write is either a whole file replaced atomically (temporary file in the same
folder, fsync, ``os.replace``) or one whole line appended and fsync'd. A process killed at
any instant leaves the old file, the new file, or an old log plus a torn last line (no
newline) that readers ignore and the next writer under the workflow lock removes.
"""

from __future__ import annotations

import os
from pathlib import Path

from gcv.store.safe_open import open_workspace_append


class _CrashPoint:
    """``GCV_CRASH_AFTER=N`` makes the process die (as if killed) right after the N-th durable
    write of this process. Only the kill-and-resume tests set it."""

    def __init__(self) -> None:
        value = os.environ.get("GCV_CRASH_AFTER", "")
        self.limit = int(value) if value.isdigit() else None
        self.count = 0

    def tick(self) -> None:
        if self.limit is None:
            return
        self.count += 1
        if self.count >= self.limit:
            os._exit(137)


CRASH = _CrashPoint()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        # a new file of our own: whatever a crash (or anyone) left at the temporary name, a
        # link or a FIFO included, is removed first and never written through
        tmp.unlink(missing_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        with os.fdopen(os.open(tmp, flags, 0o644), "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk must not leave temporary files behind
        raise


def append_line(path: Path, line: str, *, within: Path | None = None) -> None:
    """Append one line (``line`` has no newline) and fsync it.

    Only to a regular file inside ``within`` (default: the file's folder): a FIFO, a device
    or a link out of the workspace put in its place is refused (``gcv.store.safe_open``),
    never blocked on or written through."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with os.fdopen(open_workspace_append(path, within=within or path.parent), "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())
