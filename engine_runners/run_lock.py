"""One engine per run folder, and one Unity editor per project.

**Run folder** (``<output_dir>/engine.lock``): JSON with the pid and start time of the gcv
process that owns the folder and of the engine it launched. Before a run starts there:

* no lock, or a lock whose processes are all gone (pid reused or exited): stale, cleared;
* the owning gcv process still runs (another command is using the folder): refused, with
  its pid, so two commands never write one folder;
* the owner is gone but its engine still runs (gcv was killed with SIGKILL, the engine
  kept writing): that engine's tree is ended first, then the run starts.

Processes are identified by pid *and* start time, so a recycled pid is never mistaken for
the owner.

**Editor per project**: two Unity editors on one project abort (the project is locked by
the first). Editor-mode runs on the same project wait for each other on an OS file lock,
held for the whole run; threads of one batch and separate gcv processes (even with
different workspaces) are serialised alike. The lock lives in the machine's temporary
folder, per user (``<tmp>/gcv-locks-<user>/``), because the conflict is per machine and
project, not per workspace. The OS releases it if gcv dies.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import socket
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import filelock
import psutil

LOCK_FILE = "engine.lock"


def _identity(pid: int) -> dict[str, Any] | None:
    try:
        return {"pid": pid, "started": psutil.Process(pid).create_time()}
    except psutil.Error:
        return None


def _running(ident: dict[str, Any] | None) -> psutil.Process | None:
    """The process ``ident`` names, if that very process (same start time) still runs."""
    if not isinstance(ident, dict):
        return None
    try:
        proc = psutil.Process(int(ident["pid"]))
        if abs(proc.create_time() - float(ident["started"])) > 0.01:
            return None
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return proc
    except (psutil.Error, KeyError, TypeError, ValueError):
        return None


class RunFolderBusy(Exception):
    """Another live gcv process owns the run folder."""


@dataclass
class RunFolderLock:
    folder: Path

    @property
    def path(self) -> Path:
        return self.folder / LOCK_FILE

    def _read(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _write(self, data: dict[str, Any]) -> None:
        tmp = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)

    def acquire(self) -> list[str]:
        """Take the folder; returns notes (e.g. an orphaned engine that was ended).

        Raises RunFolderBusy when a live gcv process owns it."""
        notes: list[str] = []
        current = self._read()
        if current is not None:
            owner = _running(current.get("owner"))
            if owner is not None and owner.pid != os.getpid():
                raise RunFolderBusy(f"{self.folder} is in use by gcv process {owner.pid} "
                                    f"(on {current.get('host', '?')}); wait for it or end it")
            engine = _running(current.get("engine"))
            if engine is not None:
                end_orphan(engine)
                notes.append(f"ended engine process {engine.pid} left running in {self.folder} "
                             "by an earlier gcv process that no longer runs")
            elif current.get("engine") or current.get("owner"):
                notes.append("cleared a stale engine.lock (its processes are gone)")
        me = _identity(os.getpid())
        self._write({"owner": me, "engine": None, "host": socket.gethostname()})
        return notes

    def record_engine(self, pid: int) -> None:
        data = self._read() or {}
        data["engine"] = _identity(pid)
        self._write(data)

    def release(self) -> None:
        current = self._read()
        if current is None:
            return
        owner = current.get("owner") or {}
        if owner.get("pid") == os.getpid():
            self.path.unlink(missing_ok=True)


def end_orphan(proc: psutil.Process, grace: float = 2.0) -> None:
    """End a process left running by a dead gcv, with everything it started."""
    try:
        tree = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        tree = [proc]
    for p in tree:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(tree, timeout=grace)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=5)


def editor_lock_path(project: Path) -> Path:
    digest = hashlib.sha256(str(Path(project).resolve()).encode("utf-8")).hexdigest()[:16]
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (containers)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in user)
    return Path(tempfile.gettempdir()) / f"gcv-locks-{safe}" / f"unity-editor-{digest}.lock"


class EditorBusy(Exception):
    """The project's editor lock was not free within the time left."""


@contextmanager
def editor_slot(project: Path, wait: float) -> Iterator[float]:
    """Hold the project's editor lock; yields the seconds spent waiting for it."""
    path = editor_lock_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(str(path), thread_local=False, is_singleton=False)
    started = time.monotonic()
    try:
        lock.acquire(timeout=max(0.0, wait))
    except filelock.Timeout:
        raise EditorBusy(f"another Unity editor run on {project} held the project for {wait:.0f} s") from None
    try:
        yield time.monotonic() - started
    finally:
        lock.release()
