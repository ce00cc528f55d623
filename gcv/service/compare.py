"""The comparison use cases: two workflows, or two batch results, side by side.

``gcv compare A B`` and the console's compare page (``/compare``) both read through here:

* **two workflows** (:func:`compare_workflows`): each one's side (its baseline and candidate
  configs, their recorded telemetry, the final evaluation, the safe-area curves of a fair-fight
  analysis when its targets asked for one), then the field diff of the candidates (A's -> B's,
  with the % change), of the baselines when they differ, each workflow's own change (its
  baseline -> its candidate) and the figures the evaluations judge (each check's telemetry
  field), baseline and candidate of each workflow, with B - A of the candidates;
* **two batch results** (:func:`compare_batch_files` for two output folders or ``summary.json``
  files, :func:`compare_workspace_batches` for two batches of the workspace by name): per cell
  (config label, player, engine) the statistics of A and B and the delta B - A; cells in only
  one of them are listed; for the workspace's batches also the field diff of a config whose
  label both ran but whose content changed.

The ``result`` dicts are what ``gcv compare --json`` prints. Refusals (``gcv.service.errors``)
name the side at fault in ``field`` (``a``, ``b``, or the console's ``batch_a``...):
``NotFound`` for a workflow or batch that is not there, ``Damaged`` for a record that cannot be
read, ``WrongState`` for a workflow that has no run yet (when the caller needs one),
``InvalidInput`` for a file that is no batch result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gcv.batch.results import MANIFEST_FILE, SUMMARY_FILE
from gcv.contract.loading import GcvInputError, load_json_file
from gcv.service import batches, workflows
from gcv.service.errors import InvalidInput, NotFound, Refusal, WrongState
from gcv.service.results import BatchComparison, WorkflowComparison
from gcv.sim.fixed import TICK_HZ
from gcv.store.catalog import Workspace
from gcv.validation.diff import diff_configs, percent_change
from gcv.workflow.loop import WorkflowLoop

# The figures a batch summary gives per cell, in the order a reviewer reads them.
BATCH_METRICS = ("runs", "error_rate", "survival_rate", "hits_mean", "hits_p90", "hits_p99", "peak_alive_mean",
                 "peak_alive_p99")
# how many of the catalog's latest workflows the console's picker offers
PICKER_LIMIT = 200


def _delta(a: Any, b: Any) -> float | None:
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, numbers) or not isinstance(b, numbers):
        return None
    return round(b - a, 6)


def _named(exc: Refusal, field: str | None) -> Refusal:
    """The refusal, naming the side it is about (unless it names a field already)."""
    if field and not exc.field:
        exc.field = field
    return exc


# --- workflows ------------------------------------------------------------------------------------

def _curve(d: Any, record: Any) -> list[int] | None:
    """The safe-area curve (thousandths of the arena per tick) of a fair-fight analysis record."""
    if record is None:
        return None
    report = d.get(record.report_hash)
    curve = ((report or {}).get("safe_area") or {}).get("curve_milli") if isinstance(report, dict) else None
    return [int(v) for v in curve] if isinstance(curve, list) else None


def workflow_side(ws: Workspace, wf_id: str, *, field: str | None = None, require_run: bool = False) -> dict[str, Any]:
    """What one workflow brings to a comparison: its request and status, its baseline and
    candidate configs, their telemetry, the final evaluation and the safe-area curves.

    ``require_run``: refuse (``WrongState``) a workflow with no recorded run yet."""
    loop = WorkflowLoop(ws)
    try:
        state = workflows.load(loop, wf_id)
        with workflows.refusals():
            d = ws.workflow_dir(wf_id)
            rnd = state.final_round()
            candidate_hash = state.final_candidate_hash or (rnd.candidate_hash if rnd else None)
            if candidate_hash is None and state.rounds:
                candidate_hash = state.rounds[-1].candidate_hash
            base_tel = (d.get(state.baseline_run.telemetry_hash)
                        if state.baseline_run and state.baseline_run.telemetry_hash else None)
            cand_tel = d.get(rnd.run.telemetry_hash) if rnd and rnd.run and rnd.run.telemetry_hash else None
            evaluation = d.get(rnd.evaluation_hash) if rnd and rnd.evaluation_hash else None
            side = {"workflow_id": wf_id, "status": str(state.status), "request": state.request,
                    "round": rnd.round if rnd else None, "baseline_hash": state.baseline_hash,
                    "candidate_hash": candidate_hash, "baseline": d.get(state.baseline_hash),
                    "candidate": d.get(candidate_hash) if candidate_hash else None,
                    "baseline_telemetry": base_tel, "candidate_telemetry": cand_tel, "evaluation": evaluation,
                    "baseline_safe_area": _curve(d, state.baseline_fairness),
                    "candidate_safe_area": _curve(d, rnd.fairness if rnd else None)}
    except Refusal as exc:
        raise _named(exc, field) from None
    if require_run and base_tel is None and cand_tel is None:
        raise WrongState(f"workflow {wf_id} has no run yet ({state.status.title.lower()}); a comparison needs the "
                         "telemetry of its runs", field=field)
    return side


def telemetry_value(tel: dict[str, Any] | None, field: str) -> Any:
    """A check's telemetry field: ``low_fps`` or ``phase_results[phase_2].bullets_spawned/ticks``."""
    if tel is None:
        return None
    if not field.startswith("phase_results["):
        value = tel.get(field)
        return value if not isinstance(value, (list, dict)) else None
    phase_id, _, rest = field[len("phase_results["):].partition("].")
    phase = next((p for p in tel.get("phase_results", []) if p.get("phase_id") == phase_id), None)
    if phase is None or not phase.get("reached", True):
        return None
    key, _, per = rest.partition("/")
    value, divisor = phase.get(key), phase.get(per) if per else 1
    if not isinstance(value, (int, float)) or not isinstance(divisor, (int, float)) or not divisor:
        return None
    # as gcv.evaluation.evaluate states them: spawned per second, alive per tick
    return round(value / divisor * (TICK_HZ if key == "bullets_spawned" and per == "ticks" else 1), 3)


def _changes(before: Any, after: Any, a: str = "a", b: str = "b") -> list[dict[str, Any]]:
    if before is None or after is None:
        return []
    return [{"path": c.path, "kind": c.kind, a: c.before, b: c.after, "percent": percent_change(c.before, c.after)}
            for c in diff_configs(before, after)]


def workflow_result(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The comparison of two sides (:func:`workflow_side`): what ``gcv compare A B --json`` prints."""
    fields: list[str] = []
    for side in (a, b):  # the evaluations' telemetry figures, each once, in check order
        for check in (side["evaluation"] or {}).get("checks", []) + (side["evaluation"] or {}).get("intent_checks", []):
            field = check.get("field", "")
            if not field.startswith("$") and field not in fields:
                fields.append(field)
    figures = [{"figure": f, "a_baseline": telemetry_value(a["baseline_telemetry"], f),
                "a_candidate": telemetry_value(a["candidate_telemetry"], f),
                "b_baseline": telemetry_value(b["baseline_telemetry"], f),
                "b_candidate": telemetry_value(b["candidate_telemetry"], f)} for f in fields]
    for row in figures:
        row["candidate_delta"] = _delta(row["a_candidate"], row["b_candidate"])

    def head(side: dict[str, Any]) -> dict[str, Any]:
        return {k: side[k] for k in ("workflow_id", "status", "request", "round", "baseline_hash", "candidate_hash")}

    return {"kind": "workflows", "a": head(a), "b": head(b),
            "same_baseline": a["baseline_hash"] == b["baseline_hash"],
            "candidate_changes": _changes(a["candidate"], b["candidate"]),
            "baseline_changes": _changes(a["baseline"], b["baseline"]), "figures": figures, "exit_code": 0}


def compare_workflows(ws: Workspace, a: str, b: str, *, fields: tuple[str, str] = ("a", "b"),
                      require_runs: bool = False) -> WorkflowComparison:
    """Workflows ``a`` and ``b`` side by side; ``fields`` name them in a refusal."""
    sides = (workflow_side(ws, a, field=fields[0], require_run=require_runs),
             workflow_side(ws, b, field=fields[1], require_run=require_runs))
    own = tuple(_changes(s["baseline"], s["candidate"], "before", "after") for s in sides)
    return WorkflowComparison(workflow_result(*sides), sides, (own[0], own[1]))


def short_figure(field: str) -> str:
    """A judged figure in a few words: ``phase_results[phase_2].bullets_spawned/ticks`` is
    ``phase_2 spawn/s`` (the per-second rate the evaluation states), ``.../alive_tick_sum/ticks``
    ``phase_2 mean alive``; other figures keep their names."""
    if not field.startswith("phase_results["):
        return field
    phase_id, _, rest = field[len("phase_results["):].partition("].")
    words = {"bullets_spawned/ticks": "spawn/s", "alive_tick_sum/ticks": "mean alive"}.get(rest, rest)
    return f"{phase_id} {words}"


def comparable_workflows(ws: Workspace, limit: int = PICKER_LIMIT) -> list[dict[str, Any]]:
    """The catalog's latest workflows that ran in an engine (the rows of ``gcv list``), newest first."""
    with workflows.refusals():
        rows = ws.list_workflows(limit=limit)
    return [r for r in rows if r.get("engines_used")]


# --- batch results --------------------------------------------------------------------------------

_SUMMARY_KEYS = ("config_label", "player", "engine", "config_hash")


def _check_summary(data: Any, field: str | None) -> list[dict[str, Any]]:
    if not isinstance(data, dict) or not isinstance(data.get("summary"), list) or not all(
            isinstance(g, dict) and all(isinstance(g.get(k), str) for k in _SUMMARY_KEYS)
            and isinstance(g.get("metrics"), dict) for g in data["summary"]):
        raise InvalidInput("not a batch result: expected the summary.json of a `gcv batch` output folder "
                           "(an object with a 'summary' list)", field=field)
    return data["summary"]


def summary_file(path: Path) -> Path:
    """A batch result's ``summary.json``: ``path`` itself, or the one in the output folder ``path``."""
    return path / SUMMARY_FILE if path.is_dir() else path


def read_batch_file(path: Path, *, field: str | None = None) -> dict[str, Any]:
    """A batch result from an output folder or its ``summary.json`` (``InvalidInput`` naming ``field``)."""
    file = summary_file(path)
    try:
        data = load_json_file(file, "batch result")
    except GcvInputError as exc:
        raise InvalidInput(exc.message, field=field) from None
    return {"path": str(file), "summary": _check_summary(data, field)}


def read_batch(root: Path, name: str, *, field: str | None = None) -> dict[str, Any]:
    """Batch ``name`` of the workspace (``batches/<name>/``): ``NotFound`` when it is not there
    or its summary cannot be read, ``InvalidInput`` when the summary is not a batch result."""
    try:
        found = batches.listing(root, name)
    except Refusal as exc:
        raise _named(exc, field) from None
    if found.summary is None:
        raise NotFound(f"batch {name}: {found.error}", field=field)
    return {"path": name, "summary": _check_summary(found.summary, field), "listing": found}


def batch_result(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Per cell (config label, player, engine) the figures of A and B and B - A: what
    ``gcv compare A B --json`` prints for two batch results."""
    def cells(result: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
        return {(g["config_label"], g["player"], g["engine"]): g for g in result["summary"]}

    ca, cb = cells(a), cells(b)
    rows = []
    for key in [*ca, *[k for k in cb if k not in ca]]:
        ga, gb = ca.get(key), cb.get(key)
        row: dict[str, Any] = {"config": key[0], "player": key[1], "engine": key[2],
                               "in": "both" if ga and gb else ("a" if ga else "b"),
                               "config_changed": bool(ga and gb and ga["config_hash"] != gb["config_hash"]),
                               "metrics": {}}
        for m in BATCH_METRICS:
            va = ga["metrics"].get(m) if ga else None
            vb = gb["metrics"].get(m) if gb else None
            row["metrics"][m] = {"a": va, "b": vb, "delta": _delta(va, vb)}
        rows.append(row)
    return {"kind": "batches", "a": a["path"], "b": b["path"], "cells": rows, "exit_code": 0}


def compare_batch_files(a: Path, b: Path) -> BatchComparison:
    """Two batch results given as output folders or ``summary.json`` files (``gcv compare``)."""
    sides = read_batch_file(a, field="a"), read_batch_file(b, field="b")
    return BatchComparison(batch_result(*sides), sides)


def _manifest_configs(root: Path, name: str) -> dict[str, dict[str, Any]]:
    try:
        manifest = load_json_file(batches.batch_dir(root, name) / MANIFEST_FILE, "batch result")  # a batch's file: its size cap
    except (GcvInputError, Refusal):
        return {}
    configs = manifest.get("configs") if isinstance(manifest, dict) else None
    return {str(c["label"]): c for c in configs or [] if isinstance(c, dict) and "label" in c}


def compare_workspace_batches(ws: Workspace, a: str, b: str, *,
                              fields: tuple[str, str] = ("a", "b")) -> BatchComparison:
    """Batches ``a`` and ``b`` of the workspace, and for each config label both ran with another
    config, the field diff of A's config -> B's (from the registry or the file each batch read)."""
    sides = read_batch(ws.root, a, field=fields[0]), read_batch(ws.root, b, field=fields[1])
    result = batch_result(*sides)
    changed = sorted({c["config"] for c in result["cells"] if c["config_changed"]})
    entries = _manifest_configs(ws.root, a), _manifest_configs(ws.root, b)
    diffs: dict[str, list[dict[str, Any]]] = {}
    unknown: dict[str, str] = {}
    for label in changed:
        ea, eb = entries[0].get(label), entries[1].get(label)
        if ea is None or eb is None:
            unknown[label] = "a batch's manifest does not name this config"
            continue
        (ca, wa), (cb, wb) = batches.config_of(ws, ea), batches.config_of(ws, eb)
        if ca is None or cb is None:
            unknown[label] = wa if ca is None else wb
            continue
        diffs[label] = _changes(ca, cb)
    return BatchComparison(result, sides, diffs, unknown)


def comparable_batches(root: Path) -> list[str]:
    """The names of the workspace's batches whose summary can be read, the latest first."""
    return [b.name for b in batches.list_batches(root) if b.summary is not None]


__all__ = ["BATCH_METRICS", "PICKER_LIMIT", "workflow_side", "workflow_result", "compare_workflows", "short_figure",
           "telemetry_value", "comparable_workflows", "summary_file", "read_batch_file", "read_batch", "batch_result",
           "compare_batch_files", "compare_workspace_batches", "comparable_batches"]
