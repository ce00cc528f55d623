"""One writer per workflow (gcv.store.locks): re-entrant in one thread, refused to another, free
again when released."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from gcv.store.errors import WorkflowLocked
from gcv.store.locks import WorkflowLock


def _other_thread_tries(lock: WorkflowLock) -> BaseException | None:
    caught: list[BaseException | None] = [None]

    def run() -> None:
        try:
            with WorkflowLock(lock.path.parent, lock.wf_id):
                pass
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            caught[0] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(10)
    return caught[0]


def test_a_second_writer_is_refused_naming_the_holder(tmp_path: Path) -> None:
    lock = WorkflowLock(tmp_path, "wf-1")
    with lock:
        owner = json.loads(lock.owner_file.read_text())
        assert owner["pid"] == os.getpid()
        refused = _other_thread_tries(lock)
        assert isinstance(refused, WorkflowLocked)
        assert f"workflow wf-1 is in use by PID {os.getpid()}" in str(refused)
    assert _other_thread_tries(lock) is None  # released: free again


def test_the_lock_is_reentrant_in_its_thread(tmp_path: Path) -> None:
    lock = WorkflowLock(tmp_path, "wf-1")
    with lock:
        with WorkflowLock(tmp_path, "wf-1"):
            pass
        assert isinstance(_other_thread_tries(lock), WorkflowLocked)  # still held by the outer one
    assert _other_thread_tries(lock) is None


def test_a_workflow_without_a_folder_cannot_be_locked(tmp_path: Path) -> None:
    with pytest.raises(WorkflowLocked, match="has no folder"):
        WorkflowLock(tmp_path / "missing", "wf-2").acquire()
