"""One engine per run folder and one Unity editor per project (engine_runners.run_lock)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine_runners.run_lock import (LOCK_FILE, EditorBusy, RunFolderBusy, RunFolderLock, editor_lock_path,
                                     editor_slot)
from tests.support.procutil import wait_gone


def test_acquire_record_release(tmp_path: Path) -> None:
    lock = RunFolderLock(tmp_path)
    assert lock.acquire() == []
    data = json.loads((tmp_path / LOCK_FILE).read_text())
    assert data["owner"]["pid"] == os.getpid() and data["engine"] is None
    lock.record_engine(os.getpid())
    assert json.loads((tmp_path / LOCK_FILE).read_text())["engine"]["pid"] == os.getpid()
    lock.release()
    assert not (tmp_path / LOCK_FILE).exists()


def test_a_stale_lock_is_cleared(tmp_path: Path) -> None:
    (tmp_path / LOCK_FILE).write_text(json.dumps({"owner": {"pid": 999_999_999, "started": 1.0}, "engine": None}))
    assert RunFolderLock(tmp_path).acquire() == ["cleared a stale engine.lock (its processes are gone)"]


def test_a_live_owner_refuses_the_folder(tmp_path: Path) -> None:
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        import psutil

        ident = {"pid": owner.pid, "started": psutil.Process(owner.pid).create_time()}
        (tmp_path / LOCK_FILE).write_text(json.dumps({"owner": ident, "engine": None, "host": "h"}))
        with pytest.raises(RunFolderBusy, match=f"in use by gcv process {owner.pid} \\(on h\\)"):
            RunFolderLock(tmp_path).acquire()
    finally:
        owner.kill()
        owner.wait()


def test_an_orphaned_engine_is_ended_before_the_run(tmp_path: Path) -> None:
    engine = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    import psutil

    ident = {"pid": engine.pid, "started": psutil.Process(engine.pid).create_time()}
    (tmp_path / LOCK_FILE).write_text(json.dumps({"owner": {"pid": 999_999_999, "started": 1.0}, "engine": ident}))
    notes = RunFolderLock(tmp_path).acquire()
    engine.wait(timeout=10)
    assert wait_gone(engine.pid) and notes[0].startswith(f"ended engine process {engine.pid} left running")


def test_editor_lock_paths_are_per_project_and_per_user(tmp_path: Path) -> None:
    a, b = editor_lock_path(tmp_path / "A"), editor_lock_path(tmp_path / "B")
    assert a != b and a.parent == b.parent and a.parent.name.startswith("gcv-locks-")
    assert editor_lock_path(tmp_path / "A" / ".." / "A") == a


def test_editor_runs_on_one_project_wait_for_each_other(tmp_path: Path) -> None:
    with editor_slot(tmp_path, 1.0) as waited:
        assert waited < 1.0
        caught: list[BaseException] = []

        def second() -> None:
            try:
                with editor_slot(tmp_path, 0.1):
                    pass
            except BaseException as exc:  # noqa: BLE001 - handed back
                caught.append(exc)

        t = threading.Thread(target=second)
        t.start()
        t.join(10)
        assert len(caught) == 1 and isinstance(caught[0], EditorBusy)
    with editor_slot(tmp_path, 0.1):  # free again
        pass
