"""``gcv batch SPEC``: run a build machine's matrix of configs x seeds x players x engines.

Exit codes: 0 every cell produced telemetry and the gate passed; 9 some cell ended in an
error row (after its retries); 8 the gate failed; 2 usage or input error (nothing ran);
130 interrupted (Ctrl-C; the rows so far are kept and the table is written).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                           TaskID, TimeElapsedColumn, TimeRemainingColumn)
from rich.text import Text

from gcv.cli.output import console, emit_json, fail_usage
from gcv.cli.failures import raise_if_environment
from gcv.cli.tables import Col, print_table
from gcv.contract.exits import ExitCode

SCHEDULER_ENV = "GCV_DASK_SCHEDULER"


class _RateColumn(ProgressColumn):
    """Runs per second since this invocation started (resumed cells do not count)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.monotonic()
        self.done = 0

    def render(self, task: Any) -> Text:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 and self.done else 0.0
        return Text(f"{rate:6.1f} runs/s", style="progress.data.speed")


def _baseline_resolver():
    """``baseline:vN`` / ``baseline:active`` from the workspace's baseline registry (the use case's
    resolver, imported when a spec names a baseline: ``gcv --help`` stays fast)."""
    def resolve(ref: str) -> tuple[Any, str]:
        from gcv.service.batches import baseline_resolver
        from gcv.store.catalog import Workspace
        from gcv.store.paths import workspace_root

        return baseline_resolver(Workspace(workspace_root()))(ref)

    return resolve


def print_summary(outcome: Any, spec_path: Path) -> None:
    from rich import box

    from gcv.batch import figures  # the console's batches page writes them the same way

    out = console()
    failing = {(f["config_hash"], f["player"], f["engine"]) for f in outcome.gate.failures}
    engines = len({g["engine"] for g in outcome.summary}) > 1
    columns = [Col("config", "id"), Col("player", "id")] + ([Col("engine", "id")] if engines else []) + [
        Col("runs", "num"), Col("err", "num"), Col("survival% [95%]", "num"), Col("hits mean [95%]", "num"),
        Col("hits p50/90/99", "num", optional=True), Col("peak mean", "num", optional=True),
        Col("peak p50/90/99", "num", optional=True), Col("gate", "id")]
    rows = []
    for g in outcome.summary:
        m = g["metrics"]
        survival = figures.survival(m)
        gate = Text("FAIL", style="red") if (g["config_hash"], g["player"], g["engine"]) in failing \
            else Text("pass", style="green")
        if not outcome.gate.rules:
            gate = Text("-")
        errors = str(m["errors"]) if not g["pending"] else f"{m['errors']}+{g['pending']} pending"
        cells = [g["config_label"], g["player"]] + ([g["engine"]] if engines else []) + [
            m["runs"], Text(errors, style="red" if m["errors"] or g["pending"] else ""), survival,
            figures.hits_mean(m), figures.quantiles(m, "hits"), figures.fmt(m["peak_alive_mean"]),
            figures.quantiles(m, "peak_alive"),
            gate]
        rows.append(cells)
    print_table(out, columns, rows, title=f"batch {spec_path}", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0),
                pad_edge=False)
    c = outcome.counts
    out.print(f"cells {c['cells']}: completed {c['completed']}, died {c['died']}, error {c['error']}, "
              f"pending {c['pending']}; ran {c['runs_this_time']} run(s) this time "
              f"({c['retried']} retries), skipped {c['skipped_finished']} finished, "
              f"{outcome.elapsed_seconds:.1f} s", markup=False)
    for note in outcome.notes:
        out.print(f"note: {note}", markup=False)
    for fair in outcome.fair_fight:
        tight = (f"min safe area {fair['min_safe_area_percent']:g}% at tick {fair['tightest_tick']} "
                 f"({fair['tightest_phase_id']})" if fair["min_safe_area_percent"] is not None else "no safe-area curve")
        out.print(f"fair fight {fair['config_label']}: {fair['verdict']}"
                  + (f" (every reachable position hit at tick {fair['unfair_tick']})" if fair["unfair_tick"] else "")
                  + f"; {tight}", markup=False)
    for failure in outcome.gate.failures:
        values = ", ".join(f"{k}={figures.fmt(v, 3)}" for k, v in failure["values"].items())
        out.print(f"[red]gate failed:[/] {escape(failure['config_label'])} {escape(failure['player'])} "
                  f"{escape(failure['engine'])}: {escape(failure['condition'])} ({escape(values)}) "
                  f"[{escape(failure['origin'])}]")
    for key in ("parquet", "csv", "log", "summary", "junit"):
        if outcome.paths.get(key) is not None:  # no Parquet without the `tables` extra (a note says so)
            out.print(f"{key}: {outcome.paths[key]}", markup=False)
    verdict = {0: "[green]passed[/]", 8: "[red]gate failed[/] (exit 8)", 9: "[red]cells errored[/] (exit 9)",
               130: "[yellow]interrupted[/] (exit 130; --resume continues)"}[outcome.exit_code]
    out.print(f"batch {verdict}")


app = typer.Typer()


@app.command("batch")
def batch(
    spec_path: Path = typer.Argument(..., metavar="SPEC", help="a TOML batch spec (see docs/batch.md)"),
    executor: str = typer.Option("local", "--executor", help="local | dask"),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, max=256,
                                          help="local worker processes (default: CPU count)"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", envvar=SCHEDULER_ENV,
                                            help=f"Dask scheduler address (or ${SCHEDULER_ENV})"),
    resume: bool = typer.Option(False, "--resume", help="keep finished rows; run only the rest"),
    overwrite: bool = typer.Option(False, "--overwrite", help="discard earlier results in the output folder"),
    fail_if: Optional[list[str]] = typer.Option(None, "--fail-if", metavar="EXPR",
                                                help="fail (exit 8) when true for a config/player group, "
                                                     "e.g. 'survival_rate < 0.9'; repeatable"),
    junit: Optional[Path] = typer.Option(None, "--junit", metavar="FILE",
                                         help="also write JUnit XML for a CI test tab: a test per cell and per gate"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Run every config x player x seed x engine of a batch spec; write the table and the summary."""
    from engine_runners.termination import install_termination_handling  # engine processes end with gcv
    from gcv.batch.gate import GateRule, GateSyntaxError, parse_condition

    install_termination_handling()
    from gcv.batch.job import BatchUsageError, run_job
    from gcv.batch.spec import BatchSpecError, load_batch
    from gcv.cli import startup

    startup.imports_done()  # a long job from here on (and forked workers share the frozen start-up)
    if executor not in ("local", "dask"):
        fail_usage(f"--executor {executor!r}: use local or dask", json_mode=json_mode)
    if resume and overwrite:
        fail_usage("--resume and --overwrite contradict each other", json_mode=json_mode)
    rules = []
    for expr in fail_if or []:
        try:
            rules.append(GateRule(parse_condition(expr), origin="--fail-if"))
        except GateSyntaxError as exc:
            fail_usage(f"--fail-if: {exc.reason}", json_mode=json_mode,
                       detail=f"{exc.expression}\n  {' ' * exc.position}^",
                       hint="grammar: METRIC OP NUMBER [and|or ...], e.g. 'survival_rate < 0.9 or hits_p90 > 3'")
    try:
        resolved = load_batch(spec_path, baseline_resolver=_baseline_resolver())
    except BatchSpecError as exc:
        fail_usage(exc.message, json_mode=json_mode, file=exc.file, detail=exc.path_in_doc, role="batch spec")
    except KeyboardInterrupt:  # nothing ran yet
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    err = console(stderr=True)
    if "python-sim" in resolved.spec.engines:
        from engine_runners import native  # settle python-sim's path (builds the native core once)

        path = native.status(build=True, announce=err.print)
        if not path.ok:
            fail_usage(path.reason, json_mode=json_mode, hint="set GCV_NATIVE=auto (or off) to run in Python")
        err.print(f"python-sim runs on the {escape(path.line())}" if path.path == "native"
                  else f"python-sim runs in {escape(path.line())}")
    progress = Progress(TextColumn("[bold]batch"), BarColumn(), MofNCompleteColumn(), _RateColumn(),
                        TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                        TextColumn("{task.fields[errors]}"), console=err, transient=False)
    rate = progress.columns[3]
    assert isinstance(rate, _RateColumn)
    task: TaskID | None = None  # the bar, made when the job starts
    errors = 0

    def on_start(total: int, finished: int) -> None:
        nonlocal task
        progress.start()
        rate.started = time.monotonic()
        task = progress.add_task("batch", total=total, completed=finished, errors="")

    def on_row(row: dict[str, Any], final: bool) -> None:
        nonlocal errors
        if row["status"] == "error" and final:
            errors += 1
        if final:
            rate.done += 1
            assert task is not None  # run_job calls on_start before any row
            progress.update(task, advance=1, errors=f"[red]{errors} error(s)[/]" if errors else "")

    try:
        outcome = run_job(resolved, executor=executor, workers=workers or os.cpu_count() or 1,
                          scheduler=scheduler, resume=resume, overwrite=overwrite, fail_if=rules,
                          on_start=on_start, on_row=on_row)
    except BatchUsageError as exc:
        progress.stop()
        fail_usage(str(exc), json_mode=json_mode, file=str(spec_path), hint=exc.hint, role="batch")
    except OSError as exc:
        progress.stop()
        raise_if_environment(exc, resolved.output_dir)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write the output folder: {exc.strerror or exc}", json_mode=json_mode,
                   file=str(getattr(exc, "filename", None) or resolved.output_dir))
    progress.stop()
    if junit is not None:
        from gcv.evidence.junit import batch_junit, write_junit

        try:
            write_junit(junit, batch_junit(outcome, name=resolved.spec.name or spec_path.stem))
        except OSError as exc:
            raise_if_environment(exc, junit)  # a full or read-only disk: exit 70
            fail_usage(f"cannot write the JUnit file: {exc.strerror or exc}", json_mode=json_mode, file=str(junit))
        outcome.paths["junit"] = str(junit)
    if json_mode:
        emit_json({"spec": str(spec_path), **outcome.as_dict(),
                   **({"python_sim_path": path.as_dict()} if "python-sim" in resolved.spec.engines else {})})
    else:
        print_summary(outcome, spec_path)
    raise typer.Exit(outcome.exit_code)
