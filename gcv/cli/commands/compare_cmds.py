"""``gcv compare A B``: two workflows, or two batch results, side by side.

* Two workflow ids: the field diff of their candidates (A's -> B's, with the % change), their
  baselines when they differ, and the figures their evaluations judge (each check's telemetry
  field), baseline and candidate of each workflow.
* Two batch results (an output folder or its ``summary.json``): per cell (config label, player,
  engine) the statistics of A and B and the delta B - A; cells in only one of them are listed.

With ``--json`` the same as one object. Exit 0, or 2 when an input cannot be read. The reading
and the comparing are the use case ``gcv.service.compare`` (the console's compare page reads
through it too); this module prints.
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


# --- workflows ------------------------------------------------------------------------------------

def _print_workflows(result: dict[str, Any]) -> None:
    from gcv.service.compare import short_figure  # lazy: the use case imports the loop (start-up time)

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

def _print_batches(result: dict[str, Any]) -> None:
    from gcv.service.compare import BATCH_METRICS  # lazy: start-up time

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
    from gcv.service.errors import Refusal  # lazy: start-up time

    if kinds[0]:
        _compare_batches(Path(a), Path(b), html, json_mode)
        return
    from gcv.service.compare import compare_workflows  # lazy: the loop imports every layer below it
    from gcv.store.catalog import Workspace  # lazy: the store only for workspace commands
    from gcv.store.errors import StoreError
    from gcv.store.paths import workspace_root

    try:
        ws = Workspace(workspace_root())
    except StoreError as exc:
        fail_usage(str(exc), json_mode=json_mode)
    try:
        compared = compare_workflows(ws, a, b)
    except Refusal as exc:
        _refused(exc, json_mode)
    result = compared.result
    if html is not None:
        from gcv.evidence.compare_page import workflows_html  # lazy: Jinja2 only for --html

        result["html"] = _write_html(html, workflows_html(result, list(compared.sides)), json_mode)
    if json_mode:
        emit_json(result)
    else:
        _print_workflows(result)


def _compare_batches(a: Path, b: Path, html: Optional[Path], json_mode: bool) -> None:
    from gcv.service.compare import BATCH_METRICS, compare_batch_files, summary_file  # lazy: start-up time
    from gcv.service.errors import InvalidInput

    try:
        result = compare_batch_files(a, b).result
    except InvalidInput as exc:  # the side it names is the file it could not use
        fail_usage(exc.message, json_mode=json_mode, file=str(summary_file(a if exc.field == "a" else b)),
                   role="batch result")
    if html is not None:
        from gcv.evidence.compare_page import batches_html  # lazy: Jinja2 only for --html

        result["html"] = _write_html(html, batches_html(result, BATCH_METRICS), json_mode)
    if json_mode:
        emit_json(result)
    else:
        _print_batches(result)


def _refused(exc: Any, json_mode: bool) -> NoReturn:
    """A use case's refusal as every workflow command says it (``workflow_cmds._refused``): exit
    2, or a failure of the store itself as ``gcv.cli.failures`` reports one (damaged 2, environment 70)."""
    if exc.origin is not None:
        from gcv.cli.failures import report  # lazy: only on a failure

        raise typer.Exit(report(exc.origin, json_mode=json_mode))
    fail_usage(exc.message, json_mode=json_mode, hint=exc.hint)


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


__all__ = ["app"]
