"""Running a batch's cells (gcv.batch.executors): units planned per program and engine in chunks of
an adaptive size, telemetry checked against its cell, a failing cell retried as a unit of its own,
the inline executor, the thread and process pools, shared data shipped once and packed rows: the
same rows, key order included, whatever the chunk size and the executor. The Dask executor
against worker processes is tests/batch/test_executors_dask.py; interrupts are tests/hostile."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine_runners import native
from gcv.batch import executors
from gcv.batch.executors import (DASK_MAX_CHUNK, MAX_CHUNK, MAX_CHUNK_PYTHON, NATIVE_THREADS_MAX, ExecutorError,
                                 LocalExecutor, check_telemetry_data, chunk_size, iter_rows, lean_unit, make_executor,
                                 make_unit, pack_rows, plan_units, resolve_unit, run_packed_unit, run_unit,
                                 shared_data, unpack_rows)
from gcv.batch.matrix import expand
from gcv.batch.results import make_row
from gcv.sim.program import compile_program, program_hash
from gcv.simio import pool
from tests.support.evalutil import base


@pytest.fixture(autouse=True)
def python_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python batch API in place of the native core (no compiler needed, same telemetry)."""
    monkeypatch.setattr(executors, "run_batch", lambda program, runs, digest=None: (pool.run_batch(program, runs),
                                                                                    "python"))


def _matrix(seeds: list[int], engines: tuple[str, ...] = ("python-sim",), *,  # type: ignore[no-untyped-def]
            bots: bool = False):
    program = compile_program(base())
    config = SimpleNamespace(config_hash=program["config_hash"], label="shrine", program=program)
    players = [SimpleNamespace(label="scripted", spec={"kind": "scripted"}, seeds=seeds)]
    if bots:
        players.append(SimpleNamespace(label="bot:novice", spec={"kind": "bot", "skill": "novice"}, seeds=seeds))
    return expand([config], players, list(engines))


def _plan(matrix: Any, *, slots: int = 1, capture: list[int] | None = None, fast: bool = False) -> list[dict[str, Any]]:
    return plan_units(matrix.cells, matrix, attempts={c.cell_id: 1 for c in matrix.cells}, slots=slots,
                      capture_ticks=capture or [], timeout=60.0, output_dir=Path("."), fast=fast)


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


def test_chunk_size_aims_for_a_few_chunks_per_worker_within_bounds() -> None:
    assert chunk_size(1002, 2, fast=True) == MAX_CHUNK == 64  # 16 chunks: 8 per worker
    assert chunk_size(1002, 2, fast=False) == MAX_CHUNK_PYTHON == 16  # about a second each in Python
    assert chunk_size(200, 2, fast=True) == 25  # 8 chunks: 4 per worker
    assert chunk_size(10, 2, fast=True) == 2 and chunk_size(3, 8, fast=True) == 1
    assert chunk_size(10, 0, fast=False) == 3  # no slot count: one
    assert chunk_size(1002, 2, fast=True, bound=512) == 126 and chunk_size(9000, 2, fast=True, bound=512) == 512
    assert LocalExecutor(2).max_chunk(True) == MAX_CHUNK and LocalExecutor(2).max_chunk(False) == MAX_CHUNK_PYTHON
    matrix = _matrix(list(range(300)))
    assert [len(u["cells"]) for u in _plan(matrix, slots=2, fast=True)] == [38] * 7 + [34]
    assert [len(u["cells"]) for u in _plan(matrix, slots=2, fast=False)] == [16] * 18 + [12]


def _reference_rows(matrix: Any, run_batch: Any) -> list[str]:
    """Each cell on its own, its row made as the executors made it before chunks and packing."""
    out = []
    for cell in matrix.cells:
        telemetry = run_batch(matrix.programs[cell.config_hash], [(cell.seed, matrix.players[cell.player])])[0][0]
        row = make_row({**cell.as_dict(), "attempt": 1}, attempt=1, telemetry={**telemetry, "run_id": cell.cell_id},
                       duration_ms=0)
        out.append(json.dumps({k: v for k, v in row.items() if k != "duration_ms"}))
    return out


def _as_text(rows: list[dict[str, Any]], matrix: Any) -> list[str]:
    order = {c.cell_id: c.index for c in matrix.cells}
    ordered = sorted(rows, key=lambda r: order[r["cell_id"]])
    return [json.dumps({k: v for k, v in r.items() if k != "duration_ms"}) for r in ordered]


@pytest.mark.parametrize("size", [1, 7, 64])
@pytest.mark.parametrize("route", ["inline", "threads", "processes", "dask-threads"])
def test_rows_are_identical_across_chunk_sizes_and_executors(size: int, route: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Byte for byte, key order included (only duration_ms is timing): the rows a cell got
    before chunks, shared data and packed rows, whichever executor runs it."""
    if route == "processes" and size != 7:
        pytest.skip("one chunk size is enough for a pool that starts its own processes")
    matrix = _matrix([0, 1, 2, 3, 4, 5, 6], bots=True)
    monkeypatch.setattr(executors, "chunk_size", lambda cells, slots, *, fast, bound: size)
    monkeypatch.setattr(executors, "native_here", lambda: route != "processes")  # where LocalExecutor sends them
    if route == "dask-threads":
        pytest.importorskip("distributed")
        executor: Any = make_executor("dask", workers=2)
        assert "threads of this process" in (executor.note or "")
        assert executor.max_chunk(True) == DASK_MAX_CHUNK and executor.max_chunk(False) == MAX_CHUNK_PYTHON
        workers = list(executor.cluster.workers.values())
        assert len(workers) == 2 and not any("profile" in w.periodic_callbacks for w in workers)  # not sampled
    else:
        executor = LocalExecutor(1 if route == "inline" else 2)
        assert executor.where(make_unit(matrix.cells[:1], matrix, attempts={matrix.cells[0].cell_id: 1},
                                        capture_ticks=[], timeout=1.0, output_dir=Path("."))) == route
    rows = list(iter_rows(executor, matrix, matrix.cells))
    # pool workers run this machine's path (this fixture does not reach them): the native core
    # gives the same values as Python, its telemetry keys in the order its writer writes them
    path = native.run_batch if route == "processes" else executors.run_batch
    assert _as_text(rows, matrix) == _reference_rows(matrix, path)
    assert len(rows) == 14 and {r["status"] for r in rows} <= {"completed", "died"}


def test_packed_rows_and_lean_units_come_back_the_same() -> None:
    matrix = _matrix([3, 4], bots=True)
    attempts = {c.cell_id: 1 for c in matrix.cells}
    unit = make_unit(matrix.cells, matrix, attempts=attempts, capture_ticks=[], timeout=60.0, output_dir=Path("."))
    rows = run_unit(unit)
    rows[1] = make_row(unit["cells"][1], attempt=1, telemetry=None, duration_ms=3, error_kind="crashed",
                       error_message="exit 139")  # another set of keys
    packed = pack_rows(rows)
    assert len(packed["keys"]) == 2 and [i for i, _ in packed["rows"]] == [0, 1, 0, 0]
    assert [json.dumps(r) for r in unpack_rows(packed)] == [json.dumps(r) for r in rows]
    shared = shared_data(matrix)
    lean = lean_unit(unit)
    assert "program" not in lean and "players" not in lean and lean["config_hash"] == unit["cells"][0]["config_hash"]
    assert resolve_unit(lean, shared) == {**unit, "program_hash": program_hash(unit["program"])}
    assert resolve_unit(unit, shared) is unit  # a whole unit is left alone
    again = unpack_rows(run_packed_unit(lean, shared))
    assert [r["state_hash"] for r in again] == [r["state_hash"] for r in run_unit(unit)]


def test_the_local_executor_sends_each_unit_where_it_runs_best(monkeypatch: pytest.MonkeyPatch) -> None:
    matrix = _matrix([1], engines=("python-sim", "unity"))
    attempts = {c.cell_id: 1 for c in matrix.cells}
    sim, unity = (make_unit([c], matrix, attempts=attempts, capture_ticks=[], timeout=1.0, output_dir=Path("."))
                  for c in matrix.cells)
    captured = {**sim, "capture_ticks": [0]}
    assert {LocalExecutor(1).where(u) for u in (sim, unity, captured)} == {"inline"}
    monkeypatch.setattr(executors, "native_here", lambda: True)
    two = LocalExecutor(2)
    assert (two.where(sim), two.where(unity), two.where(captured)) == ("threads", "threads", "processes")
    assert LocalExecutor(NATIVE_THREADS_MAX + 1).where(sim) == "processes"  # past what threads gain
    monkeypatch.setattr(executors, "native_here", lambda: False)
    assert LocalExecutor(2).where(sim) == "processes"  # the Python simulator holds the GIL
    assert LocalExecutor(2).where({**sim, "engine": "godot"}) == "threads"  # an error row at once
