"""The workspace's errors (gcv.store.errors): which is which, and what a corrupt log says."""

from __future__ import annotations

from pathlib import Path

from gcv.store.errors import CorruptLog, DamagedRecord, StoreError, WorkflowLocked


def test_the_hierarchy() -> None:
    assert issubclass(DamagedRecord, StoreError) and issubclass(CorruptLog, DamagedRecord)
    assert issubclass(WorkflowLocked, StoreError) and not issubclass(WorkflowLocked, DamagedRecord)


def test_a_damaged_record_keeps_its_path() -> None:
    err = DamagedRecord("state.json is truncated", Path("/w/state.json"))
    assert err.path == Path("/w/state.json") and str(err) == "state.json is truncated"
    assert DamagedRecord("x").path is None


def test_a_corrupt_log_names_the_file_the_line_and_what_to_do() -> None:
    err = CorruptLog(Path("/w/events.jsonl"), 7, "not JSON")
    assert (err.line, err.what, err.path) == (7, "not JSON", Path("/w/events.jsonl"))
    assert str(err).startswith("/w/events.jsonl line 7: not JSON; the log is refused as corrupt (nothing was changed).")
    assert "gcv verify" in str(err)
