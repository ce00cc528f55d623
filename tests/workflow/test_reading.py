"""Reading a workflow without the loop (gcv.workflow.reading): what `gcv status` and the
console read is what WorkflowLoop.load reads, refused the same way, and it imports none of
the layers the loop drives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.store.catalog import Workspace
from gcv.workflow import loop, reading
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.reading import WorkflowError, read_workflow
from gcv.workflow.summary import summary_object
from tests.support.evidenceutil import run_workflow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("ws")
    return root, run_workflow(root)[1]


@pytest.fixture
def copy(made: tuple[Path, str], tmp_path: Path) -> tuple[Workspace, str]:
    """A copy of the workflow's workspace that a test may damage."""
    shutil.copytree(made[0], tmp_path / "ws")
    return Workspace(tmp_path / "ws"), made[1]


def test_the_loop_reads_through_it(made: tuple[Path, str]) -> None:
    ws = Workspace(made[0])
    d, state = read_workflow(ws, made[1])
    d2, state2 = WorkflowLoop(ws).load(made[1])
    assert d.root == d2.root and state == state2 and state.status == "evidence_ready"
    assert loop.WorkflowError is reading.WorkflowError  # `except WorkflowError` catches both ways
    assert summary_object(d, state) == summary_object(d2, state2)


def test_an_unknown_workflow_is_refused_naming_the_list(made: tuple[Path, str]) -> None:
    ws = Workspace(made[0])
    with pytest.raises(WorkflowError, match="no workflow 'wf-nope' in .*see `gcv list`"):
        read_workflow(ws, "wf-nope")
    with pytest.raises(WorkflowError):
        read_workflow(ws, "../outside")


def test_a_state_that_is_no_workflow_state_is_refused(copy: tuple[Workspace, str]) -> None:
    ws, wf_id = copy
    path = ws.workflow_dir(wf_id).state_path
    data = json.loads(path.read_text())
    data["workflow"] = "another.program/2"  # (the suite's own schema check skips what is not ours)
    path.write_text(json.dumps(data))
    with pytest.raises(WorkflowError, match=r"does not hold a workflow state \(workflow: "):
        read_workflow(ws, wf_id)


def test_a_truncated_event_log_is_refused_before_the_state_is_believed(copy: tuple[Workspace, str]) -> None:
    ws, wf_id = copy
    events = ws.workflow_dir(wf_id).events_path
    events.write_text("".join(events.read_text().splitlines(keepends=True)[:2]))
    with pytest.raises(WorkflowError, match="event"):
        read_workflow(ws, wf_id)


def test_reading_and_summarizing_import_none_of_the_loop_s_layers(made: tuple[Path, str], tmp_path: Path) -> None:
    probe = ("import json, sys\n"
             "from gcv.store.catalog import Workspace\n"
             "from gcv.workflow.reading import read_workflow\n"
             "from gcv.workflow.summary import summary_object\n"
             "d, state = read_workflow(Workspace(__import__('pathlib').Path(sys.argv[1])), sys.argv[2])\n"
             "summary_object(d, state)\n"
             "print(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", probe, str(made[0]), made[1]], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=120, check=True)
    modules = set(json.loads(done.stdout))
    heavy = {"numpy", "PIL", "jsonschema", "filelock", "rapidfuzz", "engine_runners", "typer", "rich"}
    assert not heavy & {m.split(".")[0] for m in modules}
    layers = ("gcv.workflow.loop", "gcv.agents", "gcv.sim", "gcv.evaluation.evaluate", "gcv.validation.validate",
              "gcv.repair.search", "gcv.repair.calculators", "gcv.contract.jsonschema_check")
    assert not sorted(m for m in modules if m.startswith(layers))
