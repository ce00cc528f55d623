"""The baseline registry (gcv.workflow.baselines): v1 is the committed file, registered once;
versions are named v2 or 2; a rollback says who and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.contract.canonical import config_hash
from gcv.contract.loading import load_config
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import (BaselineError, active_baseline, active_version, ensure_registry, history,
                                    parse_version, resolve_baseline, rollback, show, version_name)
from tests.conftest import BASELINE_PATH
from tests.support.evalutil import base, variant


@pytest.mark.parametrize("text,number", [("v2", 2), ("V2", 2), ("2", 2), (" v12 ", 12), (3, 3)])
def test_versions_are_named_v2_or_2(text: str | int, number: int) -> None:
    assert parse_version(text) == number
    assert version_name(number) == f"v{number}"


@pytest.mark.parametrize("bad", ["v0", "0", "two", "v-1", "", "v1.5"])
def test_other_version_names_are_refused(bad: str) -> None:
    with pytest.raises(BaselineError, match="is not a baseline version"):
        parse_version(bad)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.delenv("GCV_BASELINE", raising=False)
    return Workspace(tmp_path)


def test_the_committed_baseline_is_v1_registered_once(ws: Workspace) -> None:
    committed = load_config(BASELINE_PATH)
    assert len(ensure_registry(ws, 1.0)) == 1 and len(ensure_registry(ws, 2.0)) == 1
    config, source = active_baseline(ws, 3.0)
    assert config == committed and source == "registry v1"
    assert active_version(ws, 3.0)["config_hash"] == config_hash(committed)
    assert [a["action"] for a in history(ws, 3.0)] == ["registered"]


def _promote(ws: Workspace) -> None:
    ensure_registry(ws, 1.0)
    cfg = variant(base(), "phase_1", bullet_speed=2.5)
    ws.add_baseline(cfg.model_dump(mode="json"), config_hash=config_hash(cfg), created_at=2.0, source="promoted",
                    workflow_id="wf-1", actor="ann", note="slower")


def test_rollback_to_the_previous_version_records_who_and_why(ws: Workspace) -> None:
    _promote(ws)
    assert active_baseline(ws, 3.0)[1] == "registry v2"
    with pytest.raises(BaselineError, match="actor"):
        rollback(ws, None, 4.0, actor=" ", note="x")
    with pytest.raises(BaselineError, match="note"):
        rollback(ws, None, 4.0, actor="bob", note="")
    with pytest.raises(BaselineError, match="v2 is already the active version"):
        rollback(ws, "v2", 4.0, actor="bob", note="x")
    with pytest.raises(BaselineError, match="no baseline version v7"):
        rollback(ws, 7, 4.0, actor="bob", note="x")
    done = rollback(ws, None, 4.0, actor="bob", note="too slow")
    assert done == {"from_version": 2, "to_version": 1, "actor": "bob", "note": "too slow", "at": 4.0}
    assert active_baseline(ws, 5.0)[1] == "registry v1"
    with pytest.raises(BaselineError, match="v1 is the first version"):
        rollback(ws, None, 6.0, actor="bob", note="again")


def test_show_and_resolve(ws: Workspace, tmp_path: Path) -> None:
    _promote(ws)
    shown = show(ws, "v2")
    assert shown["name"] == "v2" and shown["config"]["phases"][0]["pattern"]["bullet_speed"] == 2.5
    assert [a["action"] for a in shown["activations"]] == ["promoted"]
    with pytest.raises(BaselineError, match="no baseline version v3"):
        show(ws, 3)
    assert resolve_baseline(ws, BASELINE_PATH, 0.0) == (load_config(BASELINE_PATH), str(BASELINE_PATH))
    assert resolve_baseline(ws, None, 0.0)[1] == "registry v2"
