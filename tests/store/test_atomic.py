"""Crash-safe writes (gcv.store.atomic): a whole file replaced at once, or one whole line appended."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gcv.store import atomic
from gcv.store.atomic import append_line, atomic_write_bytes


def test_atomic_write_replaces_the_whole_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "state.json"
    atomic_write_bytes(path, b"old")
    atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new"
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]


def test_a_link_left_at_the_temporary_name_is_not_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"keep")
    path = tmp_path / "state.json"
    os.symlink(target, path.with_name(f".{path.name}.{os.getpid()}.tmp"))
    atomic_write_bytes(path, b"data")
    assert path.read_bytes() == b"data" and target.read_bytes() == b"keep"


def test_a_failed_write_removes_its_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_bytes(tmp_path / "f", b"x")
    assert list(tmp_path.iterdir()) == []


def test_append_line_adds_one_line_with_its_newline(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    append_line(log, '{"a":1}')
    append_line(log, '{"a":2}')
    assert log.read_text() == '{"a":1}\n{"a":2}\n'


def test_append_line_refuses_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "events.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(Exception):  # refused (gcv.store.safe_open), never blocked on
        append_line(fifo, "x")


def test_the_crash_point_counts_durable_writes_only_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GCV_CRASH_AFTER", raising=False)
    assert atomic._CrashPoint().limit is None
    monkeypatch.setenv("GCV_CRASH_AFTER", "3")
    point = atomic._CrashPoint()
    exits: list[int] = []
    monkeypatch.setattr(atomic.os, "_exit", exits.append)
    point.tick()
    point.tick()
    assert exits == []
    point.tick()
    assert exits == [137]
