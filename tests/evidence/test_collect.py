"""Laying out a workflow as bundle files (gcv.evidence.collect): the request, the baseline, the
agents' records, the state and the hash-chained events, scrubbed; a workflow that is missing or
damaged is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.evidence.collect import EvidenceError, collect
from gcv.store.catalog import Workspace
from gcv.store.logs import verify_chain
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from tests.support.simutil import Clock

BLOCKED = "make the boss health 9000"  # blocked by the safety layer before anything runs


def blocked_workflow(root: Path, request: str = BLOCKED) -> tuple[Workspace, str]:
    loop = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(request, baseline, Settings(), baseline_source=source)
    assert loop.advance(wf).status == "blocked"
    return loop.ws, wf


def test_a_blocked_workflows_files(tmp_path: Path) -> None:
    ws, wf = blocked_workflow(tmp_path)
    ev = collect(ws, wf)
    assert sorted(ev.files) == ["agents/requirement.json", "configs/baseline.json", "index.json", "request.txt",
                                "workflow/events.jsonl", "workflow/state.json"]
    assert ev.files["request.txt"] == (BLOCKED + "\n").encode()
    assert ev.wf_id == wf and ev.state.status == "blocked" and ev.rounds() == []
    assert verify_chain(ev.events()) is None and [e["type"] for e in ev.events()][0] == "created"
    assert ev.index.requirement is not None and ev.index.requirement.agent == "agents/requirement.json"
    assert ev.json("configs/baseline.json") == ws.workflow_dir(wf).get(ev.state.baseline_hash)


def test_the_machines_paths_do_not_leave_it(tmp_path: Path) -> None:
    ws, wf = blocked_workflow(tmp_path, f"make the boss health 9000 like {tmp_path}/notes.txt")
    ev = collect(ws, wf)
    assert str(tmp_path).encode() not in b"".join(ev.files.values())
    assert b"$GCV_HOME" in ev.files["request.txt"] or b"$CWD" in ev.files["request.txt"]
    assert ev.index.redactions.kinds == ["absolute path"]


def test_a_missing_or_damaged_workflow_is_refused(tmp_path: Path) -> None:
    ws, wf = blocked_workflow(tmp_path)
    with pytest.raises(EvidenceError, match="no workflow 'wf-none'"):
        collect(ws, "wf-none")
    state = ws.workflow_dir(wf).state_path
    state.write_text(state.read_text()[:40])  # a truncated state file
    with pytest.raises(EvidenceError, match=f"workflow {wf} cannot be exported") as caught:
        collect(ws, wf)
    assert caught.value.damaged
