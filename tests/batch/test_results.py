"""The batch table without the ``tables`` extra: the CSV is the same table (columns, order,
values) as pandas writes, Parquet is skipped with a note naming the extra, a stale Parquet
file is removed, and ``gcv batch`` says so instead of printing a path that is not there.

The missing extra is simulated by hiding ``pyarrow`` (``sys.modules[name] = None`` makes
``find_spec`` and ``import`` fail as on a machine without it). After them, the rows, the log
and the final table of gcv.batch.results on their own."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gcv.batch import results as res
from gcv.batch.job import run_job
from gcv.batch.spec import load_batch
from tests.support.batchutil import batch_app, write_configs, write_spec

SPEC = """
configs = ["configs/shrine.json", "configs/dense.json"]
seeds = { start = 3, count = 2 }
players = ["scripted", "bot:average"]
output = "out"
"""


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return float(a) == float(b)  # pandas may print an integral float column as integers
    except ValueError:
        return False


@pytest.fixture
def hide_tables_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)


def test_parquet_available_follows_the_installed_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    assert res.parquet_available()  # the test environment installs the extra
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert not res.parquet_available()


def test_csv_fallback_is_the_table_pandas_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_configs(tmp_path / "configs")
    outcome = run_job(load_batch(write_spec(tmp_path, SPEC)), workers=1)
    assert outcome.exit_code == 0 and outcome.paths["parquet"] is not None
    with_pandas = (tmp_path / "out" / "results.csv").read_text(encoding="utf-8")

    fallback = tmp_path / "fallback.csv"
    res.write_csv(fallback, outcome.rows)
    ours, theirs = rows_of(fallback.read_text(encoding="utf-8")), rows_of(with_pandas)
    assert ours[0] == theirs[0]  # same columns, same order
    assert len(ours) == len(theirs) == 1 + len(outcome.rows)
    mismatches = [(r, c, a, b) for r, (row_a, row_b) in enumerate(zip(ours, theirs))
                  for c, (a, b) in enumerate(zip(row_a, row_b)) if not same_value(a, b)]
    assert not mismatches, mismatches[:5]
    assert {"True", "False"} & {v for row in ours[1:] for v in row}  # the `final` flag as pandas prints it


def test_without_the_extra_the_batch_writes_csv_and_names_the_extra(tmp_path: Path, hide_tables_extra: None) -> None:
    write_configs(tmp_path / "configs")
    out = tmp_path / "out"
    out.mkdir()
    (out / res.RESULTS_PARQUET).write_bytes(b"stale table of an earlier run")
    outcome = run_job(load_batch(write_spec(tmp_path, SPEC)), workers=1, overwrite=True)
    assert outcome.exit_code == 0
    assert outcome.paths["parquet"] is None and outcome.paths["csv"] == str(out / res.RESULTS_CSV)
    assert not (out / res.RESULTS_PARQUET).exists()
    assert any("gcv[tables]" in note for note in outcome.notes)
    table = rows_of((out / res.RESULTS_CSV).read_text(encoding="utf-8"))
    assert len(table) == 1 + 8 and table[0][:len(res.TABLE_COLUMNS_FIRST)] == list(res.TABLE_COLUMNS_FIRST)
    assert "pandas" not in sys.modules or sys.modules["pyarrow"] is None


def test_gcv_batch_without_the_extra_says_what_is_missing(tmp_path: Path, hide_tables_extra: None) -> None:
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, SPEC)
    env = {"NO_COLOR": "1", "COLUMNS": "200", "GCV_HOME": str(tmp_path / "ws")}
    human = CliRunner().invoke(batch_app(), ["batch", str(spec), "--workers", "1"], env=env)
    assert human.exit_code == 0, human.output
    assert "gcv[tables]" in human.stdout and "parquet: " not in human.stdout and "csv: " in human.stdout
    machine = CliRunner().invoke(batch_app(), ["batch", str(spec), "--workers", "1", "--overwrite", "--json"], env=env)
    doc: dict[str, Any] = json.loads(machine.stdout)
    assert doc["paths"]["parquet"] is None and any("gcv[tables]" in n for n in doc["notes"])


# --- rows, the log and the final table, without a batch ----------------------------------

CELL = {"cell_id": "c1", "config_hash": "h" * 64, "config_label": "shrine", "player": "scripted",
        "engine": "python-sim", "seed": 3}


def test_flatten_telemetry_keeps_scalar_figures_only() -> None:
    flat = res.flatten_telemetry({"ticks": 10, "engine": {"name": "python-sim", "version": "1"},
                                  "phase_results": [{"phase_id": "p1", "grazes": 2}], "hit_ticks": [1, 2],
                                  "seed": 3, "status": "completed"})
    assert flat == {"ticks": 10, "engine.name": "python-sim", "engine.version": "1",
                    "phase_results.0.phase_id": "p1", "phase_results.0.grazes": 2}


def test_make_row_for_a_run_and_for_an_error() -> None:
    ok = res.make_row(CELL, attempt=1, telemetry={"status": "died", "ticks": 5}, duration_ms=12.7)  # type: ignore[arg-type]
    assert ok == {**CELL, "attempt": 1, "status": "died", "error_kind": None, "error_message": None,
                  "duration_ms": 12, "ticks": 5}
    failed = res.make_row(CELL, attempt=2, telemetry=None, duration_ms=1, error_message="x" * 3000)
    assert failed["status"] == "error" and failed["error_kind"] == "error" and len(failed["error_message"]) == 2000
    assert "duration_ms" not in res.figures({**ok, "final": True}) and "final" not in res.figures({**ok, "final": True})


def test_the_log_appends_rows_and_reading_skips_what_is_not_one(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    with res.ResultsLog(path) as log:
        log.append({**CELL, "attempt": 1, "status": "error"})
    with open(path, "ab") as fh:
        fh.write(b"garbage\n" + json.dumps({**CELL, "attempt": 2, "status": "completed"}).encode() + b"\n{\"torn")
    skipped: list[int] = []
    rows = res.read_log(path, skipped=skipped)
    assert [r["attempt"] for r in rows] == [1, 2] and skipped == [2]
    with res.ResultsLog(path) as log:  # the torn tail goes before the next append
        log.append({**CELL, "attempt": 3, "status": "died"})
    assert [r["attempt"] for r in res.read_log(path)] == [1, 2, 3]
    assert res.read_log(tmp_path / "none.jsonl") == []


def test_the_final_row_is_the_latest_with_telemetry() -> None:
    rows = [{"cell_id": "a", "attempt": 1, "status": "completed"}, {"cell_id": "a", "attempt": 2, "status": "error"},
            {"cell_id": "b", "attempt": 1, "status": "error"}, {"cell_id": "b", "attempt": 2, "status": "error"},
            {"cell_id": "z", "attempt": 1, "status": "completed"}]
    final = res.final_rows(rows)
    assert final["a"]["attempt"] == 1 and final["b"]["attempt"] == 2
    table = res.table_rows(rows, {"b": 0, "a": 1})  # cells of the current matrix only, in its order
    assert [(r["cell_id"], r["attempt"], r["final"]) for r in table] == [
        ("b", 1, False), ("b", 2, True), ("a", 1, True), ("a", 2, False)]
