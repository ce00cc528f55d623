"""``gcv.store.safe_open`` on its own: what is refused, what is followed, and that nothing
blocks or reads without end (the CLI cases are in tests/hostile/test_workspace_files.py)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from gcv.store.atomic import append_line, atomic_write_bytes
from gcv.store.locks import _owner_text
from gcv.store.safe_open import (UnsafeWorkspaceFile, check_workspace_file, open_workspace_append,
                                 read_workspace_bytes)


def _fast(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """Run ``fn`` on a thread; fail (instead of hanging the suite) if it takes over 5 s."""
    out: dict[str, object] = {}

    def call() -> None:
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), f"{fn.__name__} blocked"
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out.get("value")


def test_a_regular_file_reads_and_a_missing_one_is_none(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"{}")
    assert read_workspace_bytes(tmp_path / "a.json", within=tmp_path, cap=10) == b"{}"
    assert read_workspace_bytes(tmp_path / "none.json", within=tmp_path, cap=10) is None
    assert check_workspace_file(tmp_path / "a.json", within=tmp_path)
    assert not check_workspace_file(tmp_path / "none.json", within=tmp_path)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "events.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeWorkspaceFile, match="FIFO"):
        _fast(read_workspace_bytes, fifo, within=tmp_path, cap=100)
    with pytest.raises(UnsafeWorkspaceFile, match="FIFO"):
        _fast(append_line, fifo, "{}", within=tmp_path)  # before: open(path, "a") blocked forever
    with pytest.raises(UnsafeWorkspaceFile, match="FIFO"):
        _fast(check_workspace_file, fifo, within=tmp_path)


def test_dev_zero_and_links_out_are_refused_links_inside_followed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "zero").symlink_to("/dev/zero")
    outside = tmp_path / "secret"
    outside.write_bytes(b"secret")
    (ws / "out").symlink_to(outside)
    (ws / "real").write_bytes(b"inside")
    (ws / "in").symlink_to(ws / "real")
    for name in ("zero", "out"):
        with pytest.raises(UnsafeWorkspaceFile, match="outside the workspace"):
            _fast(read_workspace_bytes, ws / name, within=ws, cap=1 << 20)
        with pytest.raises(UnsafeWorkspaceFile, match="outside the workspace"):
            _fast(append_line, ws / name, "x", within=ws)
    assert outside.read_bytes() == b"secret"
    assert read_workspace_bytes(ws / "in", within=ws, cap=100) == b"inside"
    sub = ws / "linked"
    sub.symlink_to(tmp_path)  # a folder on the way that leads out
    with pytest.raises(UnsafeWorkspaceFile, match="through a symbolic link"):
        read_workspace_bytes(sub / "secret", within=ws, cap=100)


def test_a_directory_and_an_oversize_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(UnsafeWorkspaceFile, match="is a directory"):
        read_workspace_bytes(tmp_path / "d", within=tmp_path, cap=100)
    with pytest.raises(UnsafeWorkspaceFile, match="directory"):
        open_workspace_append(tmp_path / "d", within=tmp_path)
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(UnsafeWorkspaceFile, match="101 bytes, more than the 100"):
        read_workspace_bytes(tmp_path / "big", within=tmp_path, cap=100)


def test_a_link_planted_at_the_temporary_name_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / f".state.json.{os.getpid()}.tmp").symlink_to(outside)  # the pid is easy to guess
    atomic_write_bytes(ws / "state.json", b"{}")
    assert (ws / "state.json").read_bytes() == b"{}" and outside.read_bytes() == b"keep"


def test_the_lock_owner_file_is_read_without_blocking(tmp_path: Path) -> None:
    owner = tmp_path / ".lock.owner"
    os.mkfifo(owner)
    started = time.monotonic()
    assert _fast(_owner_text, owner) == "another process"  # before: blocked on the FIFO
    assert time.monotonic() - started < 2
