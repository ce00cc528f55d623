"""One workflow's files: content-addressed artifacts, the hash chain, torn writes, corruption, the lock."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gcv.store.catalog import Workspace
from gcv.store.errors import CorruptLog, StoreError, WorkflowLocked
from gcv.store.logs import GENESIS, verify_chain


def test_artifacts_are_content_addressed_and_checked(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    digest = d.put({"b": 1, "a": [1.0, 2]})
    assert d.put({"a": [1, 2], "b": 1}) == digest  # canonical: same content, same name
    assert d.get(digest) == {"a": [1, 2], "b": 1}
    (d.artifacts / f"{digest}.json").write_text('{"a":[1,3],"b":1}')
    with pytest.raises(StoreError, match="corrupted"):
        d.get(digest)


def test_event_chain_links_and_detects_tampering(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    for i in range(4):
        d.append_event({"type": "t", "at": float(i), "data": {"i": i}})
    events = d.events()
    assert events[0]["prev_hash"] == GENESIS
    assert all(events[i]["prev_hash"] == events[i - 1]["hash"] for i in range(1, 4))
    assert verify_chain(events) is None
    tampered = [dict(e) for e in events]
    tampered[2]["data"] = {"i": 99}
    assert "event 2" in verify_chain(tampered)
    swapped = [events[0], events[2], events[1], events[3]]
    assert verify_chain(swapped) is not None


def test_torn_last_line_is_dropped_before_the_next_append(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    d.root.mkdir(parents=True)
    d.append_event({"type": "t", "at": 0.0})
    with open(d.events_path, "a") as fh:
        fh.write('{"type": "half')  # a crash mid-write
    assert len(d.events()) == 1
    d.append_event({"type": "t", "at": 1.0})
    events = d.events()
    assert len(events) == 2 and verify_chain(events) is None
    assert all(json.loads(line) for line in d.events_path.read_text().splitlines())


def test_invalid_workflow_ids_are_refused(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    for bad in ("", "../x", ".hidden", "a/b"):
        with pytest.raises(StoreError):
            ws.workflow_dir(bad)


def test_baseline_versions_and_activation(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    v1 = ws.add_baseline({"x": 1}, config_hash="h1", created_at=0, source="s", workflow_id=None, actor=None, note=None)
    v2 = ws.add_baseline({"x": 2}, config_hash="h2", created_at=1, source="s", workflow_id="wf", actor="ana", note="n")
    assert (v1, v2) == (1, 2)
    assert [b["active"] for b in ws.baselines()] == [0, 1]
    ws.activate_baseline(1)
    assert [b["active"] for b in ws.baselines()] == [1, 0]
    with pytest.raises(StoreError):
        ws.activate_baseline(7)


def test_a_flipped_byte_in_the_middle_is_refused_with_its_line_and_nothing_is_deleted(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    for i in range(5):
        d.append_event({"type": "t", "at": float(i), "data": {"i": i}})
    raw = bytearray(d.events_path.read_bytes())
    second_line_start = raw.index(b"\n") + 1
    raw[second_line_start + 5] ^= 0x01  # one bit of event 1
    d.events_path.write_bytes(bytes(raw))
    before = d.events_path.read_bytes()
    with pytest.raises(CorruptLog, match="line 2"):
        d.events()
    with pytest.raises(CorruptLog, match="line 2"):
        d.append_event({"type": "t", "at": 9.0})
    assert d.events_path.read_bytes() == before  # readers and refused writers never truncate


def test_a_garbage_activity_line_is_refused(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    d.root.mkdir(parents=True)
    d.record_activity("run:baseline", {"ok": True})
    with open(d.activities_path, "a") as fh:
        fh.write('["not", "an", "activity"]\n')
    with pytest.raises(CorruptLog, match="line 2"):
        d.record_activity("run:candidate:1", {"ok": True})
    with pytest.raises(CorruptLog, match="line 2"):
        d.activities()


def test_a_damaged_state_file_is_a_clear_error(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    d.root.mkdir(parents=True)
    d.state_path.write_text('{"workflow": "gcv.workflow/1", "id": "wf-1"')  # truncated
    with pytest.raises(StoreError, match="not valid JSON"):
        d.read_state()


def test_the_lock_admits_one_writer_and_names_the_holder(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    d.root.mkdir(parents=True)
    script = ("import sys, time; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
              "from gcv.store.workflow_dir import WorkflowDir; d = WorkflowDir(Path(sys.argv[2])); "
              "lock = d.lock(); lock.acquire(); print('held', flush=True); time.sleep(30)")
    holder = subprocess.Popen([sys.executable, "-c", script, str(Path(__file__).resolve().parents[2]), str(d.root)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(WorkflowLocked, match=f"in use by PID {holder.pid}"):
            d.lock().acquire()
    finally:
        holder.kill()
        holder.wait()
    with d.lock():  # released when its holder died
        with d.lock():  # and re-entrant within one thread
            pass


def test_another_thread_is_another_writer(tmp_path: Path) -> None:
    d = Workspace(tmp_path).workflow_dir("wf-1")
    d.root.mkdir(parents=True)
    errors: list[BaseException] = []
    with d.lock():
        def other() -> None:
            try:
                d.lock().acquire()
            except WorkflowLocked as exc:
                errors.append(exc)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(errors) == 1


def test_the_first_baseline_is_registered_once(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    for _ in range(3):
        ws.register_first_baseline({"x": 1}, config_hash="h1", created_at=0, source="s", note="n")
    assert [b["version"] for b in ws.baselines()] == [1]
