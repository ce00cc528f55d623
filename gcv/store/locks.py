"""One writer per workflow: an advisory file lock held for the whole command.

``gcv run``, ``resume``, ``authorize``, ``answer``, ``decide`` and the console's background
runs all take ``workflows/<wf>/.lock`` before they read the state they are going to change,
and keep it until they are done. A second writer fails at once with who holds it, instead
of running the same engine step twice and breaking the hash chain. The lock is the
operating system's (``flock`` / ``LockFileEx`` through the ``filelock`` library), so it is
released when its holder dies, however it dies; the owner file beside it only says who.

Re-entrant within one thread (the loop's public methods take it, and so does the command
around them); another thread of the same process is another writer and is refused.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from gcv.store.atomic import atomic_write_bytes
from gcv.store.errors import StoreError, WorkflowLocked
from gcv.store.safe_open import SMALL_CAP, check_workspace_file, read_workspace_bytes

if TYPE_CHECKING:
    from filelock import FileLock

_GUARD = threading.Lock()
_HELD: dict[Path, tuple[int, int, FileLock]] = {}  # path -> (thread id, depth, lock)


def _owner_text(owner_file: Path) -> str:
    try:  # whatever is there (a FIFO included) is read without blocking, and only a little
        owner = json.loads(read_workspace_bytes(owner_file, within=owner_file.parent, cap=SMALL_CAP) or b"")
        return f"PID {owner['pid']} ({owner.get('command', '?')})"
    except (OSError, ValueError, KeyError, TypeError, StoreError):
        return "another process"


class WorkflowLock:
    def __init__(self, workflow_root: Path, wf_id: str) -> None:
        self.path = workflow_root / ".lock"
        self.owner_file = workflow_root / ".lock.owner"
        self.wf_id = wf_id

    def acquire(self) -> None:
        tid = threading.get_ident()
        with _GUARD:
            held = _HELD.get(self.path)
            if held is not None and held[0] == tid:
                _HELD[self.path] = (tid, held[1] + 1, held[2])
                return
        if not self.path.parent.is_dir():
            raise WorkflowLocked(f"workflow {self.wf_id} has no folder at {self.path.parent}")
        # the lock file is opened for writing and truncated: never through a link out of the
        # workflow's folder, never a FIFO or a device (gcv.store.safe_open)
        check_workspace_file(self.path, within=self.path.parent)
        # lazy: only a writer locks; the library and the 29 modules it imports (logging, secrets...)
        # are about 10 ms that `gcv status` and `gcv list`, which only read, do not pay
        from filelock import FileLock, Timeout

        lock = FileLock(self.path, timeout=0, thread_local=False, is_singleton=False)
        try:
            lock.acquire()
        except Timeout:
            raise WorkflowLocked(f"workflow {self.wf_id} is in use by {_owner_text(self.owner_file)}; "
                                 "wait for it to finish (or end it), then try again") from None
        with _GUARD:
            _HELD[self.path] = (tid, 1, lock)
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv[:3]))
        atomic_write_bytes(self.owner_file, json.dumps({"pid": os.getpid(), "command": command}).encode())

    def release(self) -> None:
        with _GUARD:
            tid, depth, lock = _HELD[self.path]
            if depth > 1:
                _HELD[self.path] = (tid, depth - 1, lock)
                return
            del _HELD[self.path]
        lock.release()

    def __enter__(self) -> WorkflowLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()
