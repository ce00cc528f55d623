"""Running a batch's cells (gcv.batch.executors): units planned per program and engine, telemetry
checked against its cell, a failing cell retried as a unit of its own, the inline executor.
The Dask executor is tests/batch/test_executors_dask.py; interrupts are tests/hostile."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gcv.batch import executors
from gcv.batch.executors import (ExecutorError, LocalExecutor, check_telemetry_data, iter_rows, make_executor,
                                 make_unit, plan_units, run_unit)
from gcv.batch.matrix import expand
from gcv.sim.program import compile_program, program_hash
from gcv.simio import pool
from tests.support.evalutil import base


@pytest.fixture(autouse=True)
def python_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python batch API in place of the native core (no compiler needed, same telemetry)."""
    monkeypatch.setattr(executors, "run_batch", lambda program, runs, digest=None: (pool.run_batch(program, runs),
                                                                                    "python"))


def _matrix(seeds: list[int], engines: tuple[str, ...] = ("python-sim",)):  # type: ignore[no-untyped-def]
    program = compile_program(base())
    config = SimpleNamespace(config_hash=program["config_hash"], label="shrine", program=program)
    players = [SimpleNamespace(label="scripted", spec={"kind": "scripted"}, seeds=seeds)]
    return expand([config], players, list(engines))


def _plan(matrix: Any, *, slots: int = 1, capture: list[int] | None = None) -> list[dict[str, Any]]:
    return plan_units(matrix.cells, matrix, attempts={c.cell_id: 1 for c in matrix.cells}, slots=slots,
                      capture_ticks=capture or [], timeout=60.0, output_dir=Path("."))


def test_units_are_chunked_per_program_and_engine() -> None:
    matrix = _matrix(list(range(10)), engines=("python-sim", "unity"))
    units = _plan(matrix, slots=1)
    sizes = [(u["engine"], len(u["cells"])) for u in units]
    assert sizes == [("python-sim", 3), ("python-sim", 3), ("python-sim", 3), ("python-sim", 1)] + [("unity", 1)] * 10
    assert units[0]["players"] == {"scripted": {"kind": "scripted"}} and units[0]["cells"][0]["attempt"] == 1
    assert [len(u["cells"]) for u in _plan(matrix, capture=[0])][:2] == [1, 1]  # captures run one by one


def test_run_unit_gives_one_checked_row_per_cell_in_order() -> None:
    matrix = _matrix([4, 5])
    unit = make_unit(matrix.cells, matrix, attempts={c.cell_id: 1 for c in matrix.cells}, capture_ticks=[],
                     timeout=60.0, output_dir=Path("."))
    rows = run_unit(unit)
    assert [r["cell_id"] for r in rows] == [c.cell_id for c in matrix.cells]
    assert all(r["status"] == "completed" and r["attempt"] == 1 for r in rows)
    single = pool.run_batch(unit["program"], [(4, {"kind": "scripted"})])[0]
    assert rows[0]["state_hash"] == single["state_hash"]
    unknown = run_unit({**unit, "engine": "godot"})
    assert {r["status"] for r in unknown} == {"error"} and unknown[0]["error_kind"] == "unknown_engine"


def test_telemetry_must_belong_to_its_cell() -> None:
    program = compile_program(base())
    telemetry = pool.run_batch(program, [(4, {"kind": "scripted"})])[0]
    cell = {"seed": 4, "player": "scripted"}
    digest, config = program_hash(program), program["config_hash"]
    assert check_telemetry_data(telemetry, cell=cell, program_hash=digest, config_hash=config) is None
    assert check_telemetry_data(telemetry, cell={**cell, "seed": 5}, program_hash=digest, config_hash=config) == (
        "hash_mismatch", "telemetry seed/player do not match the cell")
    assert check_telemetry_data(telemetry, cell=cell, program_hash="0" * 64, config_hash=config)[0] == "hash_mismatch"  # type: ignore[index]
    kind, message = check_telemetry_data({**telemetry, "status": "won"}, cell=cell, program_hash=digest,  # type: ignore[misc]
                                         config_hash=config)
    assert kind == "bad_telemetry" and "at status" in message


def test_iter_rows_retries_a_failing_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    matrix = _matrix([1, 2])
    calls: list[list[int]] = []
    real = executors.run_unit

    def flaky(unit: dict[str, Any]) -> list[dict[str, Any]]:
        calls.append([(c["seed"], c["attempt"]) for c in unit["cells"]])
        rows = real(unit)
        return [{**r, "status": "error", "error_kind": "engine_error"} if (c["seed"], c["attempt"]) == (2, 1) else r
                for r, c in zip(rows, unit["cells"])]  # seed 2 fails its first attempt

    monkeypatch.setattr(executors, "run_unit", flaky)
    rows = list(iter_rows(LocalExecutor(1), matrix, matrix.cells, retries=1))
    assert [(r["cell_id"].rsplit(".", 1)[1], r["attempt"], r["status"]) for r in rows] == [
        ("1", 1, "completed"), ("2", 1, "error"), ("2", 2, "completed")]
    assert calls == [[(1, 1)], [(2, 1)], [(2, 2)]]
    monkeypatch.setattr(executors, "run_unit", flaky)
    calls.clear()
    no_retry = list(iter_rows(LocalExecutor(1), matrix, matrix.cells, retries=0))
    assert [r["status"] for r in no_retry] == ["completed", "error"]


def test_a_worker_that_raises_becomes_error_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    matrix = _matrix([1])

    def broken(unit: dict[str, Any]) -> list[dict[str, Any]]:
        raise RuntimeError("worker lost")

    monkeypatch.setattr(executors, "run_unit", broken)
    (row,) = iter_rows(LocalExecutor(1), matrix, matrix.cells)
    assert row["status"] == "error" and row["error_kind"] == "worker_error"
    assert row["error_message"] == "RuntimeError: worker lost"


def test_make_executor() -> None:
    assert isinstance(make_executor("local", workers=3), LocalExecutor) and make_executor("local").slots() == 1
    with pytest.raises(ExecutorError, match="unknown executor 'ray'; use local or dask"):
        make_executor("ray")
