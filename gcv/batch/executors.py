"""Executors: where cells run. Both give the same rows; only ``duration_ms`` differs.

Work is cut into *units*: plain dicts (engine, program, player objects, cells) handed to
:func:`run_unit`, a plain module-level function, so the same code runs in this process, in
a local worker process and on a Dask worker. Each worker resolves the engine name with its
*own* registry (``engine_runners.registry.get_runner``): the operator configures the
engines on each machine; a batch only ever names them.

* python-sim cells (the in-process reference runner, no frame capture) of one program go
  through a batch API in chunks: the native C++ core (``engine_runners.native``, parsed once
  per program and process) where this machine has it, else the simulator's
  (``gcv.simio.pool.run_batch``, one ``Simulation`` per player); the telemetry is then checked
  like any engine's (schema, hashes, seed, player). ``duration_ms`` of such a row is its
  share of the chunk's time.
* every other cell goes through ``runner.run`` with a request file under
  ``<output>/runs/<cell id>/a<attempt>/``, with the spec's timeout (the runner kills a hung
  engine's process tree).

**Chunk size** (:func:`chunk_size`, adaptive): a program's batch-API cells are cut into
chunks of ``ceil(cells / (slots x CHUNKS_PER_SLOT))``, at least 1 and at most the executor's
bound (``max_chunk``): where python-sim runs on the native core (a run takes 0.3-2 ms)
``MAX_CHUNK`` (64: tens of milliseconds a chunk) locally and ``DASK_MAX_CHUNK`` (512) on
Dask, whose tasks cost 5-10 ms of CPU each; in Python (20-80 ms a run) ``MAX_CHUNK_PYTHON``
(16: about a second a chunk) for both, so the last chunks balance across workers and the
progress bar moves. ``slots`` is the executor's worker count (Dask: the cluster's threads).
So 1,002 cells on 2 workers are 16 chunks of 63-64 locally and 8 of 125-126 on Dask
natively, 63 chunks of 16 in Python; 10 cells on 2 workers are 5 chunks of 2. The chunk size
never changes a row (a test runs the same cells in chunks of 1, 7 and 64 through every
executor).

**What is shipped once.** The matrix's programs, player objects and program hashes go to a
worker once (:func:`shared_data`: the process pool's initializer; ``Client.scatter`` with
``broadcast=True`` for Dask); a remote unit then names its program by config hash, and a
remote worker returns its rows *packed* (:func:`pack_rows`: each distinct key tuple once,
then value tuples), which the driver unpacks into the same dicts (same keys, same order, same
values). Units run in this process (inline, threads) are passed by reference.

``local``: with one worker everything runs inline, in order. With more:

* python-sim batch-API units on the **native core** run in a thread pool of ``workers``
  threads (up to ``NATIVE_THREADS_MAX``, 4): the core releases the GIL while it simulates
  (ctypes), so the threads run in parallel and a batch starts no process at all (no
  interpreter start-up, library load or self-test per worker; the program is parsed once for
  the whole batch). About a fifth of a native run is Python holding the GIL (parsing the
  telemetry, its schema check, the row), so threads stop scaling beyond a few: with more
  workers than that, the process pool below;
* python-sim units in **Python** (no native core here, ``GCV_NATIVE=off``, or frames
  captured) run in a process pool (``forkserver`` workers that ignore Ctrl-C, so only the
  driver handles it, and that end when the driver dies, even by SIGKILL:
  ``gcv.batch.lifeline``): the Python simulator holds the GIL;
* out-of-process engine units run in the thread pool (the engine process does the work; the
  thread only supervises it).

``dask`` submits units to a scheduler (``--scheduler``), or to a local cluster started for
the batch (:func:`local_dask_cluster`: worker threads of this process where python-sim runs
natively and ``workers`` is at most ``NATIVE_THREADS_MAX``, for the same reasons as above;
worker processes otherwise).

Interrupt order (``close(cancel=True)``, on Ctrl-C or SIGTERM): queued units are cancelled
first, so no queued cell starts after the interrupt; then every engine this process
supervises is ended (``engine_runners.supervision.stop_all``: a graceful request to each
process tree, one shared grace period, then a kill) and new launches are refused until the
pool has drained; then the pools are shut down (a native chunk already running in a thread
finishes: tens of milliseconds). Finished rows are already in the log.

The driver (:func:`iter_rows`) yields rows as units finish and resubmits a cell whose row
is an error, as a unit of its own, until it has had ``retries`` extra attempts.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Protocol

from engine_runners import native
from engine_runners.native import run_batch
from engine_runners.python_sim import PythonSimRunner
from engine_runners.registry import UnknownEngineError, get_runner
from engine_runners.requests import build_request
from engine_runners.supervision import allow_launches, stop_all
from gcv.batch import lifeline
from gcv.batch.results import make_row
from gcv.sim.program import program_hash
from gcv.sim.telemetry_model import Telemetry

BATCH_API_ENGINE = "python-sim"
CHUNKS_PER_SLOT = 4     # a few chunks per worker: the last ones balance the workers' finish
MAX_CHUNK = 64          # cells per chunk on the native core (0.3-2 ms a run)
MAX_CHUNK_PYTHON = 16   # cells per chunk in Python (20-80 ms a run: about a second a chunk)
DASK_MAX_CHUNK = 512    # native cells per Dask task: Dask costs 5-10 ms of CPU a task
# Up to this many workers, native units run in threads: about a fifth of a native run is
# Python holding the GIL (telemetry parsing, schema check, row), so threads stop scaling
# beyond a few; more workers than this get the process pool, whose start-up they amortize.
NATIVE_THREADS_MAX = 4


# --- the unit of work (runs anywhere) ----------------------------------------------------

def _batch_capable(runner: Any) -> bool:
    return isinstance(runner, PythonSimRunner) and getattr(runner, "mode", "") == "inprocess"


def check_telemetry_data(telemetry: dict[str, Any], *, cell: dict[str, Any], program_hash: str,
                         config_hash: str) -> tuple[str, str] | None:
    """None when the telemetry is schema-valid and belongs to the cell; else (kind, message)."""
    from pydantic import ValidationError


    try:
        Telemetry.model_validate(telemetry)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "$"
        return "bad_telemetry", f"telemetry does not match the schema at {where}: {first['msg']}"
    if telemetry["program_hash"] != program_hash or telemetry["config_hash"] != config_hash:
        return "hash_mismatch", "telemetry program/config hash does not match the cell's program"
    if telemetry["seed"] != cell["seed"] or telemetry["player"] != cell["player"]:
        return "hash_mismatch", "telemetry seed/player do not match the cell"
    return None


def _error_rows(unit: dict[str, Any], kind: str, message: str, duration_ms: int = 0) -> list[dict[str, Any]]:
    return [make_row(c, attempt=c["attempt"], telemetry=None, duration_ms=duration_ms, error_kind=kind,
                     error_message=message) for c in unit["cells"]]


def _sim_row(cell: dict[str, Any], telemetry: dict[str, Any], duration_ms: int, program_hash: str,
             config_hash: str) -> dict[str, Any]:
    telemetry = {**telemetry, "run_id": cell["cell_id"]}
    problem = check_telemetry_data(telemetry, cell=cell, program_hash=program_hash, config_hash=config_hash)
    if problem is not None:
        return make_row(cell, attempt=cell["attempt"], telemetry=None, duration_ms=duration_ms,
                        error_kind=problem[0], error_message=problem[1])
    return make_row(cell, attempt=cell["attempt"], telemetry=telemetry, duration_ms=duration_ms)


def _run_batch_api(unit: dict[str, Any]) -> list[dict[str, Any]]:
    # The native C++ core when this machine has it (engine_runners.native: the same telemetry,
    # parsed once per program and process), else the Python simulator's batch API.

    program, players, cells = unit["program"], unit["players"], unit["cells"]
    digest = unit.get("program_hash") or program_hash(program)
    started = time.perf_counter()
    try:
        telemetries, _ = run_batch(program, [(c["seed"], players[c["player"]]) for c in cells], digest=digest)
    except Exception:  # noqa: BLE001 - isolate the failing cell below, one run at a time
        telemetries = None
    if telemetries is not None and len(telemetries) == len(cells):
        share = int((time.perf_counter() - started) * 1000 / len(cells))
        return [_sim_row(c, t, share, digest, program["config_hash"]) for c, t in zip(cells, telemetries)]
    rows = []
    for c in cells:
        t0 = time.perf_counter()
        try:
            tel = run_batch(program, [(c["seed"], players[c["player"]])], digest=digest)[0][0]
        except Exception as exc:  # noqa: BLE001 - a simulator failure is an error row, not a crash
            rows.append(make_row(c, attempt=c["attempt"], telemetry=None,
                                 duration_ms=int((time.perf_counter() - t0) * 1000), error_kind="engine_error",
                                 error_message=f"{type(exc).__name__}: {exc}"))
            continue
        rows.append(_sim_row(c, tel, int((time.perf_counter() - t0) * 1000), digest, program["config_hash"]))
    return rows


def _run_with_runner(runner: Any, unit: dict[str, Any], cell: dict[str, Any]) -> dict[str, Any]:
    out = Path(unit["output_dir"]) / "runs" / cell["cell_id"] / f"a{cell['attempt']}"
    started = time.perf_counter()
    try:
        request = build_request(unit["program"], seed=cell["seed"], player=unit["players"][cell["player"]],
                                output_dir=out, run_id=cell["cell_id"], capture_ticks=unit["capture_ticks"])
        result = runner.run(request, timeout=unit["timeout"])
    except Exception as exc:  # noqa: BLE001 - a runner bug must not take the batch down
        return make_row(cell, attempt=cell["attempt"], telemetry=None,
                        duration_ms=int((time.perf_counter() - started) * 1000), error_kind="internal_error",
                        error_message=f"{type(exc).__name__}: {exc}")
    duration = result.duration_ms or int((time.perf_counter() - started) * 1000)
    if not result.ok or result.telemetry is None:
        return make_row(cell, attempt=cell["attempt"], telemetry=None, duration_ms=duration,
                        error_kind=result.error_kind or "engine_error", error_message=result.error)
    return make_row(cell, attempt=cell["attempt"], telemetry=result.telemetry, duration_ms=duration)


def shared_data(matrix: Any) -> dict[str, Any]:
    """What every unit of a matrix may need, shipped to a worker once: programs and their
    hashes by config hash, player objects by label."""
    return {"programs": dict(matrix.programs), "players": dict(matrix.players),
            "digests": {key: program_hash(program) for key, program in matrix.programs.items()}}


def lean_unit(unit: dict[str, Any]) -> dict[str, Any]:
    """A unit without its program and player objects (the worker has them: :func:`shared_data`)."""
    return {**{k: v for k, v in unit.items() if k not in ("program", "players")},
            "config_hash": unit["cells"][0]["config_hash"], "player_labels": list(unit["players"])}


def resolve_unit(unit: dict[str, Any], shared: dict[str, Any] | None) -> dict[str, Any]:
    """A whole unit again: a lean unit's program, players and program hash from ``shared``."""
    if "program" in unit or shared is None:
        return unit
    key = unit["config_hash"]
    rest = {k: v for k, v in unit.items() if k not in ("config_hash", "player_labels")}
    return {**rest, "program": shared["programs"][key], "program_hash": shared["digests"][key],
            "players": {label: shared["players"][label] for label in unit["player_labels"]}}


def pack_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows for the wire: each distinct key tuple once, then (key tuple index, values)."""
    keys: dict[tuple[str, ...], int] = {}
    packed = []
    for row in rows:
        names = tuple(row)
        index = keys.setdefault(names, len(keys))
        packed.append((index, tuple(row.values())))
    return {"keys": list(keys), "rows": packed}


def unpack_rows(packed: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows :func:`pack_rows` packed: the same keys in the same order, the same values."""
    keys = packed["keys"]
    return [dict(zip(keys[index], values)) for index, values in packed["rows"]]


_SHARED: dict[str, Any] | None = None  # a pool worker's copy of shared_data (its initializer)


def _worker_init(driver: tuple[int, float] | None, shared: dict[str, Any] | None) -> None:
    global _SHARED
    lifeline.worker_init(driver)
    _SHARED = shared


def run_packed_unit(unit: dict[str, Any], shared: dict[str, Any] | None = None) -> dict[str, Any]:
    """:func:`run_unit` for another process: a lean unit in (the shared data given, or this
    pool worker's), packed rows out."""
    return pack_rows(run_unit(resolve_unit(unit, shared if shared is not None else _SHARED)))


def run_unit(unit: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one unit with this machine's engine runners; one row per cell, in cell order.

    Plain data in and out (dicts, lists, numbers, strings), so any executor can ship it.
    """

    try:
        runner = get_runner(unit["engine"])
    except UnknownEngineError as exc:
        return _error_rows(unit, "unknown_engine", f"{exc} (on {os.uname().nodename})")
    if _batch_capable(runner) and not unit["capture_ticks"]:
        return _run_batch_api(unit)
    return [_run_with_runner(runner, unit, c) for c in unit["cells"]]


def native_here() -> bool:
    """Whether python-sim's batch API runs on the native core in this process (loads it once;
    builds it the first time on this machine)."""
    try:
        return native.core() is not None
    except native.NativeUnavailable:
        return False


def chunk_size(cells: int, slots: int, *, fast: bool, bound: int | None = None) -> int:
    """Cells per batch-API chunk: a few chunks per worker slot, at most ``bound`` (default:
    ``MAX_CHUNK`` when ``fast``, python-sim on the native core, else ``MAX_CHUNK_PYTHON``)."""
    if bound is None:
        bound = MAX_CHUNK if fast else MAX_CHUNK_PYTHON
    return max(1, min(bound, math.ceil(cells / (max(1, slots) * CHUNKS_PER_SLOT))))


def plan_units(cells: list[Any], matrix: Any, *, attempts: dict[str, int], slots: int,
               capture_ticks: list[int], timeout: float, output_dir: Path,
               fast: bool | None = None, digests: dict[str, str] | None = None,
               max_chunk: Callable[[bool], int] | None = None) -> list[dict[str, Any]]:
    """Cut cells into units: batch-API cells of one program and engine in chunks of
    :func:`chunk_size` (``fast``: python-sim runs natively, None asks this process;
    ``max_chunk(fast)``: the executor's bound); every other cell alone."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for cell in cells:
        groups.setdefault((cell.config_hash, cell.engine), []).append(cell)
    units = []
    for (config_hash, engine), members in groups.items():
        batched = engine == BATCH_API_ENGINE and not capture_ticks
        if batched and fast is None:
            fast = native_here()
        bound = max_chunk(bool(fast)) if max_chunk is not None else None
        size = chunk_size(len(members), slots, fast=bool(fast), bound=bound) if batched else 1
        for start in range(0, len(members), size):
            units.append(make_unit(members[start:start + size], matrix, attempts=attempts,
                                   capture_ticks=capture_ticks, timeout=timeout, output_dir=output_dir,
                                   digests=digests))
    return units


def make_unit(cells: list[Any], matrix: Any, *, attempts: dict[str, int], capture_ticks: list[int],
              timeout: float, output_dir: Path, digests: dict[str, str] | None = None) -> dict[str, Any]:
    first = cells[0]
    labels = dict.fromkeys(c.player for c in cells)
    unit = {
        "engine": first.engine,
        "program": matrix.programs[first.config_hash],
        "players": {label: matrix.players[label] for label in labels},
        "cells": [{**c.as_dict(), "attempt": attempts[c.cell_id]} for c in cells],
        "capture_ticks": list(capture_ticks),
        "timeout": float(timeout),
        "output_dir": str(output_dir),
    }
    if digests and first.config_hash in digests:
        unit["program_hash"] = digests[first.config_hash]
    return unit


# --- executors ---------------------------------------------------------------------------

class Executor(Protocol):
    name: str

    def slots(self) -> int: ...

    def max_chunk(self, fast: bool) -> int: ...

    def share(self, data: dict[str, Any]) -> None: ...

    def submit(self, unit: dict[str, Any]) -> Any: ...

    def wait(self, handles: list[Any], timeout: float) -> list[Any]: ...

    def result(self, handle: Any) -> list[dict[str, Any]]: ...

    def close(self, *, cancel: bool) -> None: ...


class ExecutorError(RuntimeError):
    """The executor cannot start (for example the Dask scheduler is unreachable)."""


class _Inline:
    """A unit run lazily, on the driver's thread, when the driver waits for it."""

    def __init__(self, unit: dict[str, Any]) -> None:
        self.unit = unit
        self.rows: list[dict[str, Any]] | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.rows = run_unit(self.unit)
        except Exception as exc:  # noqa: BLE001 - reported as error rows by the driver
            self.error = exc


class LocalExecutor:
    """Inline with 1 worker; else native python-sim units and engine units in a thread pool,
    Python python-sim units in a process pool (the module docstring says why)."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, int(workers))
        self._procs: cf.ProcessPoolExecutor | None = None
        self._threads: cf.ThreadPoolExecutor | None = None
        self._inline: deque[_Inline] = deque()
        self._futures: list[cf.Future[Any]] = []
        self._packed: set[cf.Future[Any]] = set()
        self._shared: dict[str, Any] | None = None
        self._native: bool | None = None

    def slots(self) -> int:
        return self.workers

    def max_chunk(self, fast: bool) -> int:
        return MAX_CHUNK if fast else MAX_CHUNK_PYTHON

    def share(self, data: dict[str, Any]) -> None:
        """The matrix's programs and players: a process pool's workers get them once, at start."""
        self._shared = data

    def where(self, unit: dict[str, Any]) -> str:
        """"inline", "threads" or "processes": where ``unit`` runs."""
        if self.workers == 1:
            return "inline"
        try:
            runner = get_runner(unit["engine"])
        except UnknownEngineError:
            return "threads"  # becomes an error row at once
        if not _batch_capable(runner):
            return "threads"  # an engine process does the work
        if not unit["capture_ticks"] and self.workers <= NATIVE_THREADS_MAX:
            if self._native is None:
                self._native = native_here()
            if self._native:
                return "threads"  # the native core releases the GIL
        return "processes"

    def _process_pool(self) -> cf.ProcessPoolExecutor:
        if self._procs is None:
            import multiprocessing

            # the forkserver (started now, by this thread) and its workers die with this
            # process, a SIGKILL included (gcv.batch.lifeline says how)
            os.environ[lifeline.DRIVER_ENV] = str(os.getpid())
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["gcv.batch.lifeline", "gcv.batch.executors", "gcv.simio.pool",
                                        "engine_runners.python_sim"])
            self._procs = cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                                 initializer=_worker_init,
                                                 initargs=(lifeline.process_identity(os.getpid()), self._shared))
        return self._procs

    def submit(self, unit: dict[str, Any]) -> Any:
        where = self.where(unit)
        if where == "inline":
            job = _Inline(unit)
            self._inline.append(job)
            return job
        future: cf.Future[Any]
        if where == "processes":
            pool = self._process_pool()
            shipped = lean_unit(unit) if self._shared is not None else unit
            future = pool.submit(run_packed_unit, shipped)
            self._packed.add(future)
        else:
            if self._threads is None:
                self._threads = cf.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="gcv-batch")
            future = self._threads.submit(run_unit, unit)
        self._futures.append(future)
        return future

    def wait(self, handles: list[Any], timeout: float) -> list[Any]:
        inline = [h for h in handles if isinstance(h, _Inline)]
        futures = [h for h in handles if not isinstance(h, _Inline)]
        if futures:
            done, _ = cf.wait(futures, timeout=0 if inline else timeout, return_when=cf.FIRST_COMPLETED)
            if done:
                return list(done)
        if inline:
            job = inline[0]
            self._inline.remove(job)
            job.run()
            return [job]
        return []

    def result(self, handle: Any) -> list[dict[str, Any]]:
        if isinstance(handle, _Inline):
            if handle.error is not None:
                raise handle.error
            assert handle.rows is not None
            return handle.rows
        if handle in self._packed:
            self._packed.discard(handle)
            return unpack_rows(handle.result())
        rows: list[dict[str, Any]] = handle.result()
        return rows

    def close(self, *, cancel: bool) -> None:
        self._inline.clear()
        stopped = False
        if cancel:
            # 1. nothing queued may start after the interrupt
            for future in self._futures:
                future.cancel()
            # 2. engines run in their own process trees, so Ctrl-C never reached them: end
            #    them now (and refuse launches) so their supervising threads return at once
            if self._threads is not None:
                stop_all()
                stopped = True
        self._futures.clear()
        self._packed.clear()
        if cancel and self._procs is not None:
            # the running chunks' rows would be thrown away: do not wait for them
            # (ProcessPoolExecutor has no public way to stop its workers before Python 3.14)
            for process in list(getattr(self._procs, "_processes", {}).values()):
                process.terminate()
        for pool in (self._threads, self._procs):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=cancel)
        self._threads = self._procs = None
        if stopped:
            allow_launches()  # the pool has drained; a later batch in this process may launch again


class DaskExecutor:
    """Units submitted to an existing Dask scheduler; each worker uses its own engine runners.

    The output folder path is sent as is: engines other than python-sim write their request
    and log files there on the worker's machine, so give workers a shared file system (or
    accept that those files stay on the workers).
    """

    name = "dask"

    def __init__(self, address: str, *, connect_timeout: float = 10.0, cluster: Any = None) -> None:
        self.cluster = cluster  # a LocalCluster this executor started, closed with it
        self.note: str | None = None
        try:
            from distributed import Client
        except ImportError as exc:
            raise ExecutorError("the dask executor needs the 'distributed' package: "
                                "pip install 'gcv[dask]'") from exc
        try:
            self.client = Client(address, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        from distributed import as_completed

        self.address = address
        self._submitted: list[Any] = []
        self._completed = as_completed(loop=self.client.loop)
        self._shared: Any = None  # the scattered shared data (a Dask future), once shared

    def slots(self) -> int:
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - only a chunk-size hint
            return 1

    def max_chunk(self, fast: bool) -> int:
        """Larger native chunks than local: a Dask task costs milliseconds of CPU (scheduler,
        worker, client), a native run a fraction of one."""
        return DASK_MAX_CHUNK if fast else MAX_CHUNK_PYTHON

    def share(self, data: dict[str, Any]) -> None:
        """Scatter the matrix's programs and players to every worker once; units name them."""
        [self._shared] = self.client.scatter([data], broadcast=True, hash=False)

    def submit(self, unit: dict[str, Any]) -> Any:
        if self._shared is not None:
            future = self.client.submit(run_packed_unit, lean_unit(unit), self._shared, pure=False)
        else:
            future = self.client.submit(run_packed_unit, unit, pure=False)
        self._submitted.append(future)
        self._completed.add(future)
        return future

    def wait(self, handles: list[Any], timeout: float) -> list[Any]:
        deadline = time.monotonic() + timeout
        while True:
            done = self._completed.next_batch(block=False)
            if done or time.monotonic() >= deadline:
                return done
            time.sleep(0.01)

    def result(self, handle: Any) -> list[dict[str, Any]]:
        return unpack_rows(handle.result())

    def close(self, *, cancel: bool) -> None:
        try:
            pending = [f for f in self._submitted if not f.done()]
            if cancel and pending:
                self.client.cancel(pending)
        finally:
            self._submitted.clear()
            self._shared = None
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()


def local_dask_cluster(workers: int, *, threads: bool | None = None) -> Any:
    """A Dask cluster on this machine (``--executor dask`` without ``--scheduler``): ``workers``
    workers of one thread each, no dashboard, quiet logs. ``threads`` (None: where python-sim
    runs on the native core here, which releases the GIL): worker threads in this process,
    no process started; else worker processes on 127.0.0.1."""
    try:
        import logging

        from distributed import LocalCluster
    except ImportError as exc:
        raise ExecutorError("the dask executor needs the 'distributed' package: pip install 'gcv[dask]'") from exc
    import dask

    if threads is None:
        threads = workers <= NATIVE_THREADS_MAX and native_here()
    # nobody reads the workers' statistical profiles (no dashboard): not sampled every 10 ms
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        if threads:
            # tcp on loopback: an in-process (inproc) address would look up this machine's IP
            return LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=False, protocol="tcp://",
                                host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
        return LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
                            dashboard_address=None, worker_dashboard_address=None,
                            silence_logs=logging.ERROR)


def make_executor(kind: str, *, workers: int = 1, scheduler: str | None = None,
                  connect_timeout: float = 10.0) -> Executor:
    if kind == "local":
        return LocalExecutor(workers)
    if kind == "dask":
        if not scheduler:
            threads = workers <= NATIVE_THREADS_MAX and native_here()
            cluster = local_dask_cluster(workers, threads=threads)
            try:
                executor = DaskExecutor(cluster.scheduler_address, connect_timeout=connect_timeout, cluster=cluster)
            except BaseException:
                cluster.close()
                raise
            kind_of = ("threads of this process: python-sim runs on the native C++ core here, which releases "
                       "the GIL" if threads else "processes")
            executor.note = (f"no --scheduler: started a local Dask cluster of {max(1, workers)} worker(s) on "
                             f"this machine for this batch ({kind_of}; pass --scheduler ADDRESS to use a real "
                             "cluster; --executor local costs less CPU on one machine)")
            return executor
        return DaskExecutor(scheduler, connect_timeout=connect_timeout)
    raise ExecutorError(f"unknown executor {kind!r}; use local or dask")


# --- the driver --------------------------------------------------------------------------

def iter_rows(executor: Executor, matrix: Any, cells: list[Any], *, attempts_before: dict[str, int] | None = None,
              retries: int = 0, capture_ticks: list[int] | None = None, timeout: float = 600.0,
              output_dir: Path | str = ".") -> Generator[dict[str, Any], None, None]:
    """Run ``cells``; yield each row as it arrives (retried cells yield one row per attempt).

    Closing the generator (or an exception, such as KeyboardInterrupt, while it waits)
    cancels what has not started and closes the executor.
    """
    before = attempts_before or {}
    attempts = {c.cell_id: before.get(c.cell_id, 0) + 1 for c in cells}
    first_attempt = dict(attempts)
    by_id = {c.cell_id: c for c in cells}
    options: dict[str, Any] = dict(capture_ticks=list(capture_ticks or []), timeout=timeout, output_dir=Path(output_dir))
    inflight: dict[Any, dict[str, Any]] = {}
    finished = False
    try:
        shared = shared_data(matrix)
        executor.share(shared)
        options["digests"] = shared["digests"]
        for unit in plan_units(cells, matrix, attempts=attempts, slots=executor.slots(), max_chunk=executor.max_chunk,
                               **options):
            inflight[executor.submit(unit)] = unit
        while inflight:
            for handle in executor.wait(list(inflight), timeout=0.25):
                unit = inflight.pop(handle)
                try:
                    rows = executor.result(handle)
                    ids = [r.get("cell_id") for r in rows]
                    if ids != [c["cell_id"] for c in unit["cells"]]:
                        raise RuntimeError("the worker returned rows for other cells")
                except Exception as exc:  # noqa: BLE001 - a lost worker is an error row per cell
                    rows = _error_rows(unit, "worker_error", f"{type(exc).__name__}: {exc}")
                for row in rows:
                    yield row
                    cid = row["cell_id"]
                    if row["status"] == "error" and attempts[cid] - first_attempt[cid] < retries:
                        attempts[cid] += 1
                        retry = make_unit([by_id[cid]], matrix, attempts=attempts, **options)
                        inflight[executor.submit(retry)] = retry
        finished = True
    finally:
        executor.close(cancel=not finished)
