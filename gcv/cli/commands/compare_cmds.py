"""``gcv compare A B``: two workflows, or two batch results, side by side.

* Two workflow ids: the field diff of their candidates (A's -> B's, with the % change), their
  baselines when they differ, and the figures their evaluations judge (each check's telemetry
  field), baseline and candidate of each workflow.
* Two batch results (an output folder or its ``summary.json``): per cell (config label, player,
  engine) the statistics of A and B and the delta B - A; cells in only one of them are listed.

With ``--json`` the same as one object. Exit 0, or 2 when an input cannot be read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.text import Text

from gcv.cli.output import console, emit_json, fail_usage
from gcv.cli.tables import Col, print_table
from gcv.contract.names import figure_text, signed_text

app = typer.Typer()

# The figures a batch summary gives per cell, in the order a reviewer reads them.
BATCH_METRICS = ("runs", "error_rate", "survival_rate", "hits_mean", "hits_p90", "hits_p99", "peak_alive_mean",
                 "peak_alive_p99")


def _delta(a: Any, b: Any) -> float | None:
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, numbers) or not isinstance(b, numbers):
        return None
    return round(b - a, 6)


# --- workflows ------------------------------------------------------------------------------------

def _workflow_side(ws: Any, wf_id: str) -> dict[str, Any]:
    from gcv.workflow.loop import WorkflowLoop  # lazy: the loop imports every layer below it

    d, state = WorkflowLoop(ws).load(wf_id)
    rnd = state.final_round()
    candidate_hash = state.final_candidate_hash or (rnd.candidate_hash if rnd else None)
    if candidate_hash is None and state.rounds:
        candidate_hash = state.rounds[-1].candidate_hash
    base_tel = d.get(state.baseline_run.telemetry_hash) if state.baseline_run and state.baseline_run.telemetry_hash \
        else None
    cand_tel = d.get(rnd.run.telemetry_hash) if rnd and rnd.run and rnd.run.telemetry_hash else None
    evaluation = d.get(rnd.evaluation_hash) if rnd and rnd.evaluation_hash else None
    return {"workflow_id": wf_id, "status": str(state.status), "request": state.request,
            "round": rnd.round if rnd else None, "baseline_hash": state.baseline_hash,
            "candidate_hash": candidate_hash, "baseline": d.get(state.baseline_hash),
            "candidate": d.get(candidate_hash) if candidate_hash else None,
            "baseline_telemetry": base_tel, "candidate_telemetry": cand_tel, "evaluation": evaluation}


def _telemetry_value(tel: dict[str, Any] | None, field: str) -> Any:
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
    from gcv.sim.fixed import TICK_HZ  # lazy: start-up time

    key, _, per = rest.partition("/")
    value, divisor = phase.get(key), phase.get(per) if per else 1
    if not isinstance(value, (int, float)) or not isinstance(divisor, (int, float)) or not divisor:
        return None
    # as gcv.evaluation.evaluate states them: spawned per second, alive per tick
    return round(value / divisor * (TICK_HZ if key == "bullets_spawned" and per == "ticks" else 1), 3)


def compare_workflows(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    from gcv.validation.diff import diff_configs, percent_change  # lazy: start-up time

    def changes(before: Any, after: Any) -> list[dict[str, Any]]:
        if before is None or after is None:
            return []
        return [{"path": c.path, "kind": c.kind, "a": c.before, "b": c.after,
                 "percent": percent_change(c.before, c.after)} for c in diff_configs(before, after)]

    fields: list[str] = []
    for side in (a, b):  # the evaluations' telemetry figures, each once, in check order
        for check in (side["evaluation"] or {}).get("checks", []) + (side["evaluation"] or {}).get("intent_checks", []):
            field = check.get("field", "")
            if not field.startswith("$") and field not in fields:
                fields.append(field)
    figures = [{"figure": f, "a_baseline": _telemetry_value(a["baseline_telemetry"], f),
                "a_candidate": _telemetry_value(a["candidate_telemetry"], f),
                "b_baseline": _telemetry_value(b["baseline_telemetry"], f),
                "b_candidate": _telemetry_value(b["candidate_telemetry"], f)} for f in fields]
    for row in figures:
        row["candidate_delta"] = _delta(row["a_candidate"], row["b_candidate"])

    def head(side: dict[str, Any]) -> dict[str, Any]:
        return {k: side[k] for k in ("workflow_id", "status", "request", "round", "baseline_hash", "candidate_hash")}

    return {"kind": "workflows", "a": head(a), "b": head(b),
            "same_baseline": a["baseline_hash"] == b["baseline_hash"],
            "candidate_changes": changes(a["candidate"], b["candidate"]),
            "baseline_changes": changes(a["baseline"], b["baseline"]), "figures": figures, "exit_code": 0}


def short_figure(field: str) -> str:
    """A judged figure in a few words: ``phase_results[phase_2].bullets_spawned/ticks`` is
    ``phase_2 spawn/s`` (the per-second rate the evaluation states), ``.../alive_tick_sum/ticks``
    ``phase_2 mean alive``; other figures keep their names."""
    if not field.startswith("phase_results["):
        return field
    phase_id, _, rest = field[len("phase_results["):].partition("].")
    words = {"bullets_spawned/ticks": "spawn/s", "alive_tick_sum/ticks": "mean alive"}.get(rest, rest)
    return f"{phase_id} {words}"


def _print_workflows(result: dict[str, Any]) -> None:
    con = console()
    for name in ("a", "b"):
        side = result[name]
        con.print(f"{name.upper()}: {side['workflow_id']}  {side['status']}  (candidate {side['round']})",
                  markup=False)
        con.print(f"   {side['request']}", markup=False)

    def change_rows(changes: list[dict[str, Any]]) -> list[list[Any]]:
        return [[c["path"], f"{figure_text(c['a'])} -> {figure_text(c['b'])}",
                 "" if c["percent"] is None else f"{c['percent']:+g}%"] for c in changes]

    if not result["same_baseline"]:
        print_table(con, [Col("field", "path"), Col("A -> B"), Col("change", "num")],
                    change_rows(result["baseline_changes"]), title="the baselines differ")
    if result["candidate_changes"]:
        print_table(con, [Col("field", "path"), Col("A -> B"), Col("change", "num")],
                    change_rows(result["candidate_changes"]), title="candidates: A -> B")
    else:
        con.print("candidates: identical", markup=False)
    if result["figures"]:
        # one baseline column when both share it: five narrow columns fit 80 columns as a table
        same = result["same_baseline"]
        columns = [Col("figure", "path"), *([Col("baseline", "num")] if same else
                                            [Col("A base", "num"), Col("B base", "num")]),
                   Col("A", "num"), Col("B", "num"), Col("B - A", "num")]
        rows = [[short_figure(r["figure"]), figure_text(r["a_baseline"]), *([] if same else [figure_text(r["b_baseline"])]),
                 figure_text(r["a_candidate"]), figure_text(r["b_candidate"]), signed_text(r["candidate_delta"])]
                for r in result["figures"]]
        print_table(con, columns, rows, title="figures the evaluations judge (A, B: the candidates)")


# --- batch results --------------------------------------------------------------------------------

def _read_batch(arg: str, json_mode: bool) -> dict[str, Any]:
    from gcv.batch.results import SUMMARY_FILE  # lazy: start-up time
    from gcv.contract.loading import GcvInputError, load_json_file

    path = Path(arg)
    file = path / SUMMARY_FILE if path.is_dir() else path
    try:
        data = load_json_file(file, "batch result")
    except GcvInputError as exc:
        fail_usage(exc.message, json_mode=json_mode, file=str(file), role="batch result")
    keys = ("config_label", "player", "engine", "config_hash")
    if not isinstance(data, dict) or not isinstance(data.get("summary"), list) or not all(
            isinstance(g, dict) and all(isinstance(g.get(k), str) for k in keys) and isinstance(g.get("metrics"), dict)
            for g in data["summary"]):
        fail_usage(f"not a batch result: expected the summary.json of a `gcv batch` output folder "
                   f"(an object with a 'summary' list)", json_mode=json_mode, file=str(file), role="batch result")
    return {"path": str(file), "summary": data["summary"]}


def compare_batches(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
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


def _print_batches(result: dict[str, Any]) -> None:
    con = console()
    con.print(f"A: {result['a']}", markup=False)
    con.print(f"B: {result['b']}", markup=False)
    rows = []
    for cell in result["cells"]:
        name = f"{cell['config']} / {cell['player']} / {cell['engine']}"
        if cell["in"] != "both":
            con.print(f"only in {cell['in'].upper()}: {name}", markup=False)
            continue
        first = True
        for m in BATCH_METRICS:
            v = cell["metrics"][m]
            if v["a"] is None and v["b"] is None:
                continue
            delta = v["delta"]
            style = "" if not delta else ("green" if (delta > 0) == (m == "survival_rate") else "yellow")
            rows.append([name + (" (config changed)" if cell["config_changed"] else "") if first else "", m,
                         figure_text(v["a"]), figure_text(v["b"]), Text(signed_text(delta), style=style)])
            first = False
    if rows:
        print_table(con, [Col("cell"), Col("metric", "id"), Col("A", "num"), Col("B", "num"), Col("B - A", "num")],
                    rows, title="cells in both: A -> B")


@app.command("compare")
def compare(
    a: str = typer.Argument(..., metavar="A", help="a workflow id, or a batch output folder / summary.json"),
    b: str = typer.Argument(..., metavar="B", help="the same kind as A"),
    html: Optional[Path] = typer.Option(None, "--html", metavar="FILE",
                                        help="also write a page to look at: curves overlaid, figures side by side"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Compare two workflows (candidates' field diff, judged figures side by side) or two batch results
    (per-cell statistics and their deltas)."""
    kinds = [Path(x).exists() for x in (a, b)]
    if kinds[0] != kinds[1]:
        which = a if not kinds[0] else b
        fail_usage(f"{which!r} is neither an existing batch result nor of the same kind as the other argument; "
                   "compare two workflow ids or two batch results", json_mode=json_mode)
    if kinds[0]:
        result = compare_batches(_read_batch(a, json_mode), _read_batch(b, json_mode))
        if html is not None:
            from gcv.evidence.compare_page import batches_html  # lazy: Jinja2 only for --html

            result["html"] = _write_html(html, batches_html(result, BATCH_METRICS), json_mode)
        if json_mode:
            emit_json(result)
        else:
            _print_batches(result)
        return
    from gcv.store.catalog import Workspace  # lazy: the store only for workspace commands
    from gcv.store.errors import StoreError
    from gcv.store.paths import workspace_root
    from gcv.workflow.loop import WorkflowError

    def fail(exc: Exception) -> NoReturn:
        fail_usage(str(exc), json_mode=json_mode)

    try:
        ws = Workspace(workspace_root())
        sides = [_workflow_side(ws, wf) for wf in (a, b)]
    except (WorkflowError, StoreError) as exc:
        fail(exc)
    result = compare_workflows(*sides)
    if html is not None:
        from gcv.evidence.compare_page import workflows_html  # lazy: Jinja2 only for --html

        result["html"] = _write_html(html, workflows_html(result, sides), json_mode)
    if json_mode:
        emit_json(result)
    else:
        _print_workflows(result)


def _write_html(path: Path, page: str, json_mode: bool) -> str:
    from gcv.cli.failures import raise_if_environment
    from gcv.store.atomic import atomic_write_bytes

    try:
        atomic_write_bytes(path, page.encode("utf-8"))
    except OSError as exc:
        raise_if_environment(exc, path)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write the page: {exc.strerror or exc}", json_mode=json_mode, file=str(path))
    if not json_mode:
        console(stderr=True).print(f"page: {path}", markup=False, soft_wrap=True)
    return str(path)


__all__ = ["app", "compare_workflows", "compare_batches", "BATCH_METRICS"]
