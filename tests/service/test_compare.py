"""The comparison use cases (gcv.service.compare): two workflows' sides read from the workspace,
two batch results from files or by name, and the refusals naming the side at fault."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gcv.batch import results as res
from gcv.service import compare, workflows
from gcv.service.errors import Damaged, InvalidInput, NotFound, WrongState
from gcv.store.catalog import Workspace
from gcv.workflow.loop import WorkflowLoop
from tests.support.simutil import Clock

REPO = Path(__file__).resolve().parents[2]
DENSER = "make phase 3 much denser"
DODGEABLE = "make phase 2 a much denser ring but keep it dodgeable"  # its targets ask for a fair-fight analysis


def _run(loop: WorkflowLoop, request: str) -> str:
    wf = workflows.submit(loop, workflows.Submission(request=request)).wf_id
    workflows.authorize(loop, wf, actor="omar")
    workflows.resume(loop, wf)
    return wf


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, str, str, str]:
    """A workspace with two workflows that ran (one with a fair-fight analysis) and one that did not."""
    ws = Workspace(tmp_path_factory.mktemp("cmp") / "ws")
    loop = WorkflowLoop(ws, clock=Clock(0.5))
    a, b = _run(loop, DENSER), _run(loop, DODGEABLE)
    waiting = workflows.submit(loop, workflows.Submission(request=DENSER)).wf_id  # proposed, not authorized
    return ws, a, b, waiting


@pytest.mark.slow
def test_two_workflows_side_by_side(ran: tuple[Workspace, str, str, str]) -> None:
    ws, a, b, _ = ran
    done = compare.compare_workflows(ws, a, b, require_runs=True)
    r = done.result
    assert r["kind"] == "workflows" and r["a"]["workflow_id"] == a and r["b"]["workflow_id"] == b
    assert r["same_baseline"] is True and r["baseline_changes"] == []
    state_a, state_b = workflows.load(WorkflowLoop(ws), a), workflows.load(WorkflowLoop(ws), b)
    assert r["a"]["candidate_hash"] == state_a.final_candidate_hash
    # the figures: each one the evaluation judged, read back from the recorded telemetry
    ev = ws.workflow_dir(a).get(state_a.final_round().evaluation_hash)
    peak = next(f for f in r["figures"] if f["figure"] == "peak_alive_bullets")
    assert peak["a_candidate"] == next(c["actual"] for c in ev["checks"] if c["field"] == "peak_alive_bullets")
    assert peak["candidate_delta"] == peak["b_candidate"] - peak["a_candidate"]
    # each workflow's own change is its baseline -> its candidate
    own_a = {c["path"]: c for c in done.own_changes[0]}
    assert own_a and all(c["kind"] in ("changed", "added", "removed") for c in own_a.values())
    cand_a = ws.workflow_dir(a).get(state_a.final_candidate_hash)
    some = next(iter(own_a.values()))
    phase, field = some["path"].removeprefix("$.phases[").split("].pattern.")
    assert cand_a["phases"][int(phase)]["pattern"][field] == some["after"]
    # the sides carry what the page draws: telemetry, and the safe area only where an analysis ran
    side_a, side_b = done.sides
    assert side_a["candidate_telemetry"]["alive_per_second"] and side_a["candidate_safe_area"] is None
    assert state_b.baseline_fairness is not None and side_b["baseline_safe_area"]
    report = ws.workflow_dir(b).get(state_b.baseline_fairness.report_hash)
    assert side_b["baseline_safe_area"] == report["safe_area"]["curve_milli"]


@pytest.mark.slow
def test_a_missing_or_unrun_workflow_is_refused_naming_its_side(ran: tuple[Workspace, str, str, str]) -> None:
    ws, a, _, waiting = ran
    with pytest.raises(NotFound) as missing:
        compare.compare_workflows(ws, a, "wf-nope")
    assert missing.value.field == "b" and "no workflow 'wf-nope'" in missing.value.message
    with pytest.raises(NotFound) as bad:
        compare.compare_workflows(ws, "../x", a, fields=("left", "right"))
    assert bad.value.field == "left"
    with pytest.raises(WrongState) as unrun:
        compare.compare_workflows(ws, a, waiting, require_runs=True)
    assert unrun.value.field == "b" and "has no run yet" in unrun.value.message
    # the CLI compares the candidates of a workflow that did not run yet (no figures to read)
    loose = compare.compare_workflows(ws, a, waiting).result
    assert loose["b"]["candidate_hash"] is not None
    assert all(f["b_candidate"] is None for f in loose["figures"])
    # the picker offers the workflows that ran, not the one waiting for authorization
    offered = [r["id"] for r in compare.comparable_workflows(ws)]
    assert a in offered and waiting not in offered


@pytest.mark.slow
def test_a_damaged_record_is_refused_as_damaged(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    loop = WorkflowLoop(ws, clock=Clock(0.5))
    wf = _run(loop, DENSER)
    state = workflows.load(loop, wf)
    assert state.baseline_run is not None and state.baseline_run.telemetry_hash
    (ws.workflow_dir(wf).artifacts / f"{state.baseline_run.telemetry_hash}.json").write_text("{}", encoding="utf-8")
    with pytest.raises(Damaged) as damaged:
        compare.compare_workflows(ws, wf, wf)
    assert damaged.value.field == "a"


# --- batches --------------------------------------------------------------------------------------

def _summary(path: Path, cells: list[tuple[str, str, str, dict[str, Any]]]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / res.SUMMARY_FILE).write_text(json.dumps({"summary": [
        {"config_label": label, "config_hash": chash, "player": player, "engine": "python-sim", "metrics": m}
        for label, chash, player, m in cells], "counts": {}}), encoding="utf-8")
    return path


def test_two_batch_files_per_cell_with_deltas_and_refusals(tmp_path: Path) -> None:
    a = _summary(tmp_path / "a", [("shrine", "h1", "scripted", {"runs": 4, "survival_rate": 0.75, "hits_mean": 2.5}),
                                  ("dense", "h2", "scripted", {"runs": 4})])
    b = _summary(tmp_path / "b", [("shrine", "h1", "scripted", {"runs": 8, "survival_rate": 1.0, "hits_mean": 1.0})])
    done = compare.compare_batch_files(a, b / res.SUMMARY_FILE)
    r = done.result
    assert r["a"] == str(a / res.SUMMARY_FILE) and r["b"] == str(b / res.SUMMARY_FILE)
    shrine, dense = r["cells"]
    assert shrine["in"] == "both" and shrine["config_changed"] is False
    assert shrine["metrics"]["survival_rate"] == {"a": 0.75, "b": 1.0, "delta": 0.25}
    assert shrine["metrics"]["hits_mean"]["delta"] == -1.5 and shrine["metrics"]["hits_p99"]["delta"] is None
    assert dense["in"] == "a"
    (tmp_path / "bad.json").write_text('{"rows": []}', encoding="utf-8")
    with pytest.raises(InvalidInput) as shape:
        compare.compare_batch_files(a, tmp_path / "bad.json")
    assert shape.value.field == "b" and "not a batch result" in shape.value.message
    (tmp_path / "dup.json").write_text('{"summary": [], "summary": []}', encoding="utf-8")
    with pytest.raises(InvalidInput) as strict:  # read by the strict loader, as every input file
        compare.compare_batch_files(tmp_path / "dup.json", a)
    assert strict.value.field == "a" and "summary" in strict.value.message


def _batch(ws: Workspace, name: str, config: Path, seeds: int) -> None:
    from gcv.batch.job import run_job
    from gcv.batch.spec import load_batch

    spec = ws.root.parent / f"{name}.toml"
    spec.write_text(f'batch = "gcv.batch/1"\nconfigs = ["{config}"]\nseeds = {seeds}\nplayers = ["scripted"]\n'
                    f'engines = ["python-sim"]\noutput = "{ws.root / "batches" / name}"\n', encoding="utf-8")
    outcome = run_job(load_batch(spec, output_root=ws.root))
    assert outcome.exit_code == 0, outcome.notes


@pytest.mark.slow
def test_two_batches_of_the_workspace_with_the_diff_of_a_changed_config(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    shipped = REPO / "artifacts" / "baselines" / "shrine_trial.json"
    edited_dir = tmp_path / "edited"
    edited_dir.mkdir()
    edited = edited_dir / shipped.name  # the same label, another content
    data = json.loads(shipped.read_text(encoding="utf-8"))
    before = data["phases"][1]["pattern"]["bullet_speed"]
    data["phases"][1]["pattern"]["bullet_speed"] = before * 2
    edited.write_text(json.dumps(data), encoding="utf-8")
    _batch(ws, "one", shipped, 1)
    _batch(ws, "two", edited, 2)
    assert compare.comparable_batches(ws.root) == ["two", "one"]  # the latest first
    done = compare.compare_workspace_batches(ws, "one", "two", fields=("batch_a", "batch_b"))
    (cell,) = done.result["cells"]
    assert cell["in"] == "both" and cell["config_changed"] is True
    assert cell["metrics"]["runs"] == {"a": 1, "b": 2, "delta": 1}
    assert done.result["a"] == "one" and done.sides[0]["listing"].name == "one"
    (label,) = done.config_changes
    assert done.config_changes[label] == [{"path": "$.phases[1].pattern.bullet_speed", "kind": "changed",
                                           "a": before, "b": before * 2, "percent": 100.0}]
    # the config file the batch read is gone: the diff says why it cannot be made
    shutil.rmtree(edited_dir)
    gone = compare.compare_workspace_batches(ws, "one", "two")
    assert gone.config_changes == {} and "cannot be read again" in gone.config_unknown[label]
    with pytest.raises(NotFound) as missing:
        compare.compare_workspace_batches(ws, "one", "nope", fields=("batch_a", "batch_b"))
    assert missing.value.field == "batch_b"
    with pytest.raises(NotFound) as outside:
        compare.compare_workspace_batches(ws, "..", "one", fields=("batch_a", "batch_b"))
    assert outside.value.field == "batch_a"
    (ws.root / "batches" / "one" / res.SUMMARY_FILE).write_text("not json", encoding="utf-8")
    with pytest.raises(NotFound) as unreadable:
        compare.compare_workspace_batches(ws, "one", "two")
    assert unreadable.value.field == "a" and "cannot be read" in unreadable.value.message


def test_short_figure_names() -> None:
    assert compare.short_figure("phase_results[phase_2].bullets_spawned/ticks") == "phase_2 spawn/s"
    assert compare.short_figure("low_fps") == "low_fps"
    tel = {"low_fps": 58.5, "hit_ticks": [1, 2], "phase_results": [
        {"phase_id": "phase_2", "reached": True, "bullets_spawned": 120, "ticks": 600},
        {"phase_id": "phase_3", "reached": False, "bullets_spawned": 0, "ticks": 0}]}
    assert compare.telemetry_value(tel, "low_fps") == 58.5
    assert compare.telemetry_value(tel, "hit_ticks") is None  # a list is no figure
    assert compare.telemetry_value(tel, "phase_results[phase_2].bullets_spawned/ticks") == 12.0  # per second
    assert compare.telemetry_value(tel, "phase_results[phase_3].bullets_spawned/ticks") is None
