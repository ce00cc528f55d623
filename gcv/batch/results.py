"""The results table: one row per run attempt, appended as it arrives, written at the end.

Files in the output folder::

    batch.json       manifest: spec, matrix digest, cell count (written before any run)
    results.jsonl    the log: one JSON row per attempt, appended and flushed as rows arrive
    results.parquet  the table (pyarrow), written atomically (temporary name + rename); only
                     with the ``tables`` extra installed (pandas, pyarrow)
    results.csv      the same table as CSV, written atomically (always: without the extra,
                     by the standard library's csv writer, the same columns and values)
    summary.json     per-group statistics, the gate and the counts
    runs/<cell>/a<N>/  request, telemetry and log of out-of-process engine runs

``results.jsonl`` is the source of truth: the Parquet and CSV files are rebuilt from it, so
a run stopped at any point (Ctrl-C, a killed machine) leaves a log that ``--resume`` reads
back; a torn last line (the process died mid-write) is cut off on reading.

A row holds the cell (id, config hash and label, player, engine, seed), the ``attempt``,
``status`` (``completed`` / ``died`` from the telemetry, or ``error``), ``error_kind`` and
``error_message``, ``duration_ms`` and every scalar telemetry figure, flattened with dots
(``engine.name``, ``phase_results.0.peak_alive_bullets``). Per-tick lists (``hit_ticks``,
``alive_per_second``, ``state_hashes``) are not scalars and are left out (``player_hits`` and
``state_hash`` summarize them); ``wall_time_ms`` is left out in favour of ``duration_ms``.
In the table, ``final`` marks the row that counts for its cell (its latest attempt).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
from pathlib import Path
from typing import Any, Iterable

CELL_COLUMNS = ("cell_id", "config_hash", "config_label", "player", "engine", "seed", "attempt", "status",
                "error_kind", "error_message", "duration_ms")
TABLE_COLUMNS_FIRST = CELL_COLUMNS + ("final",)
# telemetry keys that are cell columns already (checked equal), per-tick lists, or timing
_SKIP = frozenset({"telemetry", "run_id", "seed", "player", "config_hash", "status", "wall_time_ms",
                   "hit_ticks", "alive_per_second", "state_hashes"})
RESULTS_LOG = "results.jsonl"
RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"
SUMMARY_FILE = "summary.json"
MANIFEST_FILE = "batch.json"
OK_STATUSES = ("completed", "died")
TABLES_EXTRA = "tables"
PARQUET_MISSING = (f"results.parquet not written: Parquet needs pandas and pyarrow, the `{TABLES_EXTRA}` extra "
                   f"(pip install 'gcv[{TABLES_EXTRA}]'); results.csv and results.jsonl hold the same table")


def flatten_telemetry(telemetry: dict[str, Any]) -> dict[str, Any]:
    """Scalar figures of a telemetry document, nested keys joined with dots."""
    out: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, sub in value.items():
                walk(f"{prefix}.{key}" if prefix else key, sub)
        elif isinstance(value, list):
            if value and all(isinstance(v, dict) for v in value):
                for i, sub in enumerate(value):
                    walk(f"{prefix}.{i}", sub)
            # lists of scalars are per-tick series: not table columns
        else:
            out[prefix] = value

    for key, value in telemetry.items():
        if key not in _SKIP:
            walk(key, value)
    return out


def make_row(cell: dict[str, Any], *, attempt: int, telemetry: dict[str, Any] | None, duration_ms: int,
             error_kind: str | None = None, error_message: str | None = None) -> dict[str, Any]:
    """One table row (plain JSON data). ``cell`` needs the :class:`~gcv.batch.matrix.Cell` fields."""
    row: dict[str, Any] = {key: cell[key] for key in CELL_COLUMNS[:6]}
    row["attempt"] = attempt
    if telemetry is not None:
        row.update(status=telemetry["status"], error_kind=None, error_message=None)
    else:
        row.update(status="error", error_kind=error_kind or "error",
                   error_message=(error_message or "the run failed")[:2000])
    row["duration_ms"] = int(duration_ms)
    if telemetry is not None:
        row.update(flatten_telemetry(telemetry))
    return row


def figures(row: dict[str, Any]) -> dict[str, Any]:
    """The run's outcome without timing: what must agree between executors and reruns."""
    return {k: v for k, v in row.items() if k not in ("duration_ms", "final")}


# --- the log ------------------------------------------------------------------------------

def read_log(path: Path, *, skipped: list[int] | None = None) -> list[dict[str, Any]]:
    """Every valid row of a results log. A line that is not a row (damaged, or garbage) is
    skipped and its number added to ``skipped``; the rows around it are kept, and the file is
    never modified by reading it. A torn last line (a crash mid-write, no newline) is not a row."""
    if not path.is_file():
        return []
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_bytes().splitlines(keepends=True), start=1):
        if not line.endswith(b"\n"):
            break  # the torn tail of an interrupted append
        try:
            row = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            row = None
        if not isinstance(row, dict) or "cell_id" not in row:
            if line.strip() and skipped is not None:
                skipped.append(number)
            continue
        rows.append(row)
    return rows


def _drop_torn_tail(path: Path) -> None:
    """Before appending: an interrupted last append (no newline) would merge with the next row."""
    if not path.is_file():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)


class ResultsLog:
    """Append-only JSON lines; each row is flushed, and fsync-ed at least once a second."""

    def __init__(self, path: Path) -> None:
        import time

        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        _drop_torn_tail(path)
        self._fh = open(path, "a", encoding="utf-8")
        self._clock = time.monotonic
        self._synced = self._clock()

    def append(self, row: dict[str, Any]) -> None:
        self._fh.write(json.dumps(row, sort_keys=False, ensure_ascii=False, allow_nan=False) + "\n")
        self._fh.flush()
        if self._clock() - self._synced >= 1.0:
            os.fsync(self._fh.fileno())
            self._synced = self._clock()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()

    def __enter__(self) -> "ResultsLog":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --- the table ----------------------------------------------------------------------------

def final_rows(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """cell id -> the row that counts: a telemetry row if any attempt produced one (the
    latest such), else the latest attempt."""
    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        current = best.get(row["cell_id"])
        ok = row["status"] in OK_STATUSES
        if current is None:
            best[row["cell_id"]] = row
            continue
        current_ok = current["status"] in OK_STATUSES
        if (ok, row["attempt"]) >= (current_ok, current["attempt"]):
            best[row["cell_id"]] = row
    return best


def table_rows(rows: list[dict[str, Any]], order: dict[str, int]) -> list[dict[str, Any]]:
    """Rows of the current matrix in matrix order, then by attempt, with the ``final`` flag."""
    mine = [r for r in rows if r["cell_id"] in order]
    finals = {id(r) for r in final_rows(mine).values()}
    out = [{**r, "final": id(r) in finals} for r in mine]
    out.sort(key=lambda r: (order[r["cell_id"]], r["attempt"]))
    return out


def to_frame(rows: list[dict[str, Any]]) -> Any:
    """A pandas DataFrame with a stable column order and nullable Arrow-backed types."""
    import pandas as pd  # the `tables` extra: only when a Parquet table is written

    columns = table_columns(rows)
    frame = pd.DataFrame.from_records(rows, columns=columns)
    if rows:
        frame = frame.convert_dtypes(dtype_backend="pyarrow")
    # the cell columns keep one type whatever the rows hold (all-null error columns included)
    return frame.astype(_CELL_DTYPES)


_CELL_DTYPES = {**{c: "string[pyarrow]" for c in ("cell_id", "config_hash", "config_label", "player", "engine",
                                                  "status", "error_kind", "error_message")},
                "seed": "int64[pyarrow]", "attempt": "int64[pyarrow]", "duration_ms": "int64[pyarrow]",
                "final": "bool[pyarrow]"}


def _atomic(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def parquet_available() -> bool:
    """Whether the ``tables`` extra (pandas and pyarrow) is installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("pandas", "pyarrow"))


def table_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The table's columns: the cell columns first, then every other key in first-seen order."""
    extra: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key not in TABLE_COLUMNS_FIRST:
                extra.setdefault(key, None)
    return list(TABLE_COLUMNS_FIRST) + list(extra)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """The CSV table without pandas: the same columns in the same order; a missing value is
    an empty field, booleans are ``True``/``False``, numbers as Python prints them."""
    columns = table_columns(rows)

    def write(p: Path) -> None:
        with open(p, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, lineterminator=os.linesep)
            writer.writerow(columns)
            for row in rows:
                writer.writerow(["" if row.get(c) is None else row[c] for c in columns])

    _atomic(path, write)


def write_table(directory: Path, rows: list[dict[str, Any]]) -> dict[str, Path | None]:
    """Write the Parquet and CSV tables atomically; return their paths. Without the
    ``tables`` extra only the CSV is written (``"parquet": None``; see ``PARQUET_MISSING``)
    and a Parquet file of an earlier run is removed rather than left disagreeing."""
    parquet, csv_path = directory / RESULTS_PARQUET, directory / RESULTS_CSV
    if not parquet_available():
        write_csv(csv_path, rows)
        parquet.unlink(missing_ok=True)
        return {"parquet": None, "csv": csv_path}
    frame = to_frame(rows)
    _atomic(parquet, lambda p: frame.to_parquet(p, engine="pyarrow", index=False))
    _atomic(csv_path, lambda p: frame.to_csv(p, index=False))
    return {"parquet": parquet, "csv": csv_path}


def write_json(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    _atomic(path, lambda p: p.write_text(text, encoding="utf-8"))
