"""The workspace and its catalog (gcv.store.catalog): workflow ids, the index and its filters,
reindexing from the folders, and the baseline registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.contract.canonical import canonical_bytes, sha256_hex
from gcv.store.catalog import WorkflowFilter, Workspace
from gcv.store.errors import StoreError


def _register(ws: Workspace, wf: str, at: float, request: str, status: str = "proposed",
              actor: str | None = None) -> None:
    ws.register(wf, created_at=at, request=request, engine="python-sim", provider="offline",
                baseline_hash="b" * 64, status=status, actor=actor)


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "-x", "a" * 81, "wf 1"])
def test_a_workflow_id_is_a_plain_folder_name(tmp_path: Path, bad: str) -> None:
    ws = Workspace(tmp_path)
    with pytest.raises(StoreError, match="invalid workflow id"):
        ws.workflow_dir(bad)
    assert not ws.exists(bad)
    assert ws.workflow_dir("wf-1_a").root == tmp_path / "workflows" / "wf-1_a"


def test_the_index_lists_newest_first_and_filters(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    _register(ws, "wf-a", 10.0, "make phase 1 slower", actor="ann")
    _register(ws, "wf-b", 20.0, "Make Phase 2 DENSER")
    _register(ws, "wf-a", 30.0, "ignored: the id exists")  # INSERT OR IGNORE
    ws.update_status("wf-b", "blocked", 25.0, engines_used=["python-sim", "unity"], terminal_reason="x")
    rows = ws.list_workflows()
    assert [r["id"] for r in rows] == ["wf-b", "wf-a"]
    assert rows[0]["status"] == "blocked" and rows[0]["engines_used"] == ["python-sim", "unity"]
    assert rows[1]["engines_used"] == [] and rows[1]["request"] == "make phase 1 slower"
    assert [r["id"] for r in ws.list_workflows(filter=WorkflowFilter(text="denser"))] == ["wf-b"]
    assert [r["id"] for r in ws.list_workflows(filter=WorkflowFilter(actor="ann"))] == ["wf-a"]
    assert ws.count_workflows(WorkflowFilter(since=15.0)) == 1 and ws.count_workflows(WorkflowFilter(until=15.0)) == 1
    assert ws.count_workflows(WorkflowFilter(status="blocked")) == 1 and ws.count_workflows() == 2
    assert [r["id"] for r in ws.list_workflows(limit=1, offset=1)] == ["wf-a"]


def test_reindex_rebuilds_the_index_from_the_folders(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    _register(ws, "wf-gone", 1.0, "not on disk")
    for wf in ("wf-1", "wf-2"):
        (ws.workflows_root / wf).mkdir(parents=True)
        (ws.workflows_root / wf / "state.json").write_text("{}")
    (ws.workflows_root / "no-state").mkdir()
    assert ws.workflow_ids_on_disk() == ["wf-1", "wf-2"]
    rows = {"wf-1": {"id": "wf-1", "created_at": 5.0, "updated_at": 5.0, "status": "failed", "request": "r",
                     "engine": "python-sim", "provider": "offline", "baseline_hash": "b"}}
    assert ws.reindex(rows.get) == {"indexed": 1, "unreadable": 1}
    assert [r["id"] for r in ws.list_workflows()] == ["wf-1"]


def test_the_baseline_registry(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    v1, v2 = {"v": 1}, {"v": 2}
    h1, h2 = sha256_hex(canonical_bytes(v1)), sha256_hex(canonical_bytes(v2))
    ws.register_first_baseline(v1, config_hash=h1, created_at=1.0, source="committed", note="first")
    ws.register_first_baseline(v2, config_hash=h2, created_at=2.0, source="committed", note="again")  # once only
    assert [(b["version"], b["active"]) for b in ws.baselines()] == [(1, 1)]
    assert ws.add_baseline(v2, config_hash=h2, created_at=3.0, source="promoted", workflow_id="wf-1", actor="ann",
                           note="better") == 2
    assert [(b["version"], b["active"]) for b in ws.baselines()] == [(1, 0), (2, 1)]
    assert ws.activate_baseline(1, at=4.0, actor="bob", note="oops") == 2
    assert [(a["action"], a["version"], a["from_version"]) for a in ws.baseline_activations()] == [
        ("registered", 1, None), ("promoted", 2, 1), ("rolled_back", 1, 2)]
    assert ws.baseline_config(h2) == v2
    with pytest.raises(StoreError, match="no baseline version v9"):
        ws.activate_baseline(9)
    (ws.baseline_store() / f"{h1}.json").write_bytes(b'{"v": 3}')
    with pytest.raises(StoreError, match="is corrupted"):
        ws.baseline_config(h1)
    with pytest.raises(StoreError, match="is missing"):
        ws.baseline_config("f" * 64)


def test_a_workspace_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError):
        Workspace(tmp_path / "file")
