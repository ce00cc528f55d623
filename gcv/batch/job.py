"""One batch, start to end: matrix -> executor -> results log -> table -> statistics -> gate.

``run_job`` is what ``gcv batch`` calls; it never prints (the CLI passes callbacks for the
progress bar) and never exits: it returns a :class:`BatchOutcome` whose ``exit_code`` is
0 (every cell produced telemetry, the gate passed), 9 (some cell's final row is an error),
8 (the gate failed) or 130 (interrupted). Errors win over a failed gate: a gate computed
without every cell is not evidence either way. Usage problems raise
:class:`BatchUsageError` before anything runs.

Ctrl-C (KeyboardInterrupt) at any point while cells run: the executor is closed (pending
units cancelled, engine processes of this batch ended), the rows that arrived are kept in
the log, and the table and summary are written from them, so the folder is consistent
and ``--resume`` continues from there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from engine_runners.registry import unavailable_reason
from gcv.analysis import analyze
from gcv.batch import results as res
from gcv.batch.executors import ExecutorError, iter_rows, make_executor
from gcv.batch.gate import GateResult, GateRule, evaluate_gate
from gcv.batch.matrix import Matrix, expand_batch
from gcv.batch.spec import ResolvedBatch
from gcv.batch.stats import summarize, telling_apart_notes
from gcv.contract.canonical import content_hash
from gcv.contract.exits import ExitCode

EXIT_OK = ExitCode.OK
EXIT_USAGE = ExitCode.USAGE
EXIT_GATE_FAILED = ExitCode.GATE_FAILED
EXIT_CELL_ERRORS = ExitCode.CELL_ERRORS
EXIT_INTERRUPTED = ExitCode.INTERRUPTED


class BatchUsageError(Exception):
    """The batch cannot start as asked (output folder in use, engine unavailable, ...)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass
class BatchOutcome:
    exit_code: int
    interrupted: bool
    counts: dict[str, int]
    summary: list[dict[str, Any]]
    gate: GateResult
    paths: dict[str, str | None]  # "parquet" is None without the `tables` extra
    rows: list[dict[str, Any]]            # the table (every attempt, matrix order)
    notes: list[str] = field(default_factory=list)
    elapsed_seconds: float = 0.0
    fair_fight: list[dict[str, Any]] = field(default_factory=list)  # per config, when the spec asks

    def as_dict(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "interrupted": self.interrupted, "counts": self.counts,
                "summary": self.summary, "gate": self.gate.as_dict(), "paths": self.paths,
                "notes": self.notes, "elapsed_seconds": round(self.elapsed_seconds, 3),
                **({"fair_fight": self.fair_fight} if self.fair_fight else {})}


FAIR_FIGHT_BUDGET_SECONDS = 60.0


def fair_fight_row(config: Any, label: str, seed: int) -> dict[str, Any]:
    """One config's fair-fight verdict and its tightest moment (the designer's "how tight is it")."""
    report = analyze(config, seed=seed, budget_seconds=FAIR_FIGHT_BUDGET_SECONDS)
    area = report.safe_area
    return {"config_label": label, "seed": seed, "verdict": report.verdict,
            "min_safe_area_percent": None if area.tightest_milli is None else area.tightest_milli / 10,
            "tightest_tick": area.tightest_tick, "tightest_phase_id": area.tightest_phase_id,
            "unfair_tick": report.unfair.tick if report.unfair else None,
            "phases": [{"phase_id": p.phase_id, "min_safe_area_percent": p.min_milli / 10, "tick": p.min_tick}
                       for p in area.phases]}


def _manifest(resolved: ResolvedBatch, matrix: Matrix) -> dict[str, Any]:
    spec = resolved.spec.model_dump(mode="json")
    return {
        "batch": "gcv.batch_run/1",
        "spec_file": str(resolved.spec_path),
        "spec": spec,
        "spec_hash": content_hash(spec),
        "matrix_hash": matrix.digest(),
        "cells": len(matrix),
        "configs": [{"entry": c.entry, "label": c.label, "config_hash": c.config_hash, "source": c.source}
                    for c in resolved.configs],
        "players": [{"entry": p.entry, "label": p.label, "seeds": len(p.seeds)} for p in resolved.players],
        "engines": list(resolved.spec.engines),
    }


def check_engines(engines: list[str]) -> None:
    """Fail before running when a local engine cannot run here (names what to fix)."""
    for name in engines:
        reason = unavailable_reason(name)
        if reason is not None:
            raise BatchUsageError(reason, hint="see `gcv engines`; configure it or remove it from `engines`")


def run_job(resolved: ResolvedBatch, *, executor: str = "local", workers: int = 1,
            scheduler: str | None = None, scheduler_timeout: float = 10.0, resume: bool = False,
            overwrite: bool = False,
            fail_if: list[GateRule] | None = None,
            on_start: Callable[[int, int], None] | None = None,
            on_row: Callable[[dict[str, Any], bool], None] | None = None) -> BatchOutcome:
    """Run a resolved batch. ``on_start(total_cells, already_finished)`` and
    ``on_row(row, final)`` report progress; ``final`` is False for an error row that will be
    retried. ``on_row`` may raise KeyboardInterrupt: that is an interruption."""
    started = time.monotonic()
    matrix = expand_batch(resolved)
    out = resolved.output_dir
    log_path = out / res.RESULTS_LOG
    existing = res.read_log(log_path)
    if existing and not (resume or overwrite):
        raise BatchUsageError(f"{out} already holds {len(existing)} result rows of an earlier run",
                              hint="add --resume to continue it, --overwrite to start again, "
                                   "or set another `output` in the spec")
    if overwrite and not resume:
        for name in (res.RESULTS_LOG, res.RESULTS_PARQUET, res.RESULTS_CSV, res.SUMMARY_FILE):
            (out / name).unlink(missing_ok=True)
        existing = []
    if executor == "local":
        check_engines(list(resolved.spec.engines))
    order = {c.cell_id: c.index for c in matrix.cells}
    notes = list(resolved.notes)
    foreign = sum(1 for r in existing if r["cell_id"] not in order)
    if foreign:
        notes.append(f"{foreign} earlier row(s) belong to cells no longer in the spec; kept in "
                     f"{res.RESULTS_LOG}, left out of the table")
    finished = {cid for cid, row in res.final_rows(existing).items()
                if row["status"] in res.OK_STATUSES and cid in order}
    attempts_before: dict[str, int] = {}
    for row in existing:
        attempts_before[row["cell_id"]] = max(attempts_before.get(row["cell_id"], 0), int(row["attempt"]))
    todo = [c for c in matrix.cells if c.cell_id not in finished]
    try:
        runner = (make_executor(executor, workers=workers, scheduler=scheduler, connect_timeout=scheduler_timeout)
                  if todo else None)
    except ExecutorError as exc:
        raise BatchUsageError(str(exc)) from None
    note: str | None = getattr(runner, "note", None)  # the Dask executor's note, if any
    if note:
        notes.append(note)
    out.mkdir(parents=True, exist_ok=True)
    res.write_json(out / res.MANIFEST_FILE, _manifest(resolved, matrix))
    if on_start:
        on_start(len(matrix), len(finished))
    new_rows: list[dict[str, Any]] = []
    interrupted = False
    log = res.ResultsLog(log_path)
    rows_iter = None
    try:
        if runner is not None:
            rows_iter = iter_rows(runner, matrix, todo, attempts_before=attempts_before,
                                  retries=resolved.spec.retries, capture_ticks=list(resolved.spec.capture_ticks),
                                  timeout=resolved.spec.timeout_seconds, output_dir=out)
            tries: dict[str, int] = {}
            for row in rows_iter:
                log.append(row)
                new_rows.append(row)
                tries[row["cell_id"]] = tries.get(row["cell_id"], 0) + 1
                if on_row:
                    ok = row["status"] in res.OK_STATUSES
                    on_row(row, ok or tries[row["cell_id"]] > resolved.spec.retries)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if rows_iter is not None:
            rows_iter.close()
        log.close()
    # the log is the source of truth: the table is rebuilt from what it holds, so the two
    # agree even when an interruption landed between writing a row and counting it
    all_rows = res.read_log(log_path)
    new_rows = all_rows[len(existing):]
    table = res.table_rows(all_rows, order)
    finals = res.final_rows(table)
    paths = {k: None if v is None else str(v) for k, v in res.write_table(out, table).items()}
    if paths["parquet"] is None:
        notes.append(res.PARQUET_MISSING)
    summary = summarize(finals, matrix.cells)
    notes.extend(telling_apart_notes(finals))
    rules = list(resolved.gate_rules) + list(fail_if or [])
    gate = evaluate_gate(rules, summary)
    final_list = list(finals.values())
    counts = {
        "cells": len(matrix),
        "skipped_finished": len(finished),
        "runs_this_time": len(new_rows),
        "retried": sum(1 for r in new_rows if r["attempt"] > attempts_before.get(r["cell_id"], 0) + 1),
        "completed": sum(1 for r in final_list if r["status"] == "completed"),
        "died": sum(1 for r in final_list if r["status"] == "died"),
        "error": sum(1 for r in final_list if r["status"] == "error"),
        "pending": len(matrix) - len(final_list),
        "rows": len(table),
    }
    if interrupted:
        code = EXIT_INTERRUPTED
    elif counts["error"] or counts["pending"]:
        code = EXIT_CELL_ERRORS
    elif not gate.passed:
        code = EXIT_GATE_FAILED
    else:
        code = EXIT_OK
    paths.update(log=str(log_path), manifest=str(out / res.MANIFEST_FILE),
                 summary=str(out / res.SUMMARY_FILE), output_dir=str(out))
    fair = ([fair_fight_row(c.config, c.label, matrix.cells[0].seed if matrix.cells else 0)
             for c in resolved.configs] if resolved.spec.fair_fight and not interrupted else [])
    outcome = BatchOutcome(code, interrupted, counts, summary, gate, paths, table, notes,
                           time.monotonic() - started, fair)
    res.write_json(out / res.SUMMARY_FILE, outcome.as_dict())
    return outcome
