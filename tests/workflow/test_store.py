"""The workspace store: content-addressed artifacts, the hash chain, torn writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.store.catalog import Workspace
from gcv.store.errors import StoreError
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
