"""The batch an operator started on the batches page, run in a background thread.

One batch at a time per console (a batch uses the machine's cores; a second one waits for the
first to end). What it does is ``gcv.service.batches.start_batch``; this only keeps the thread
and its progress (cells done of all) for the page. Nothing lives only in memory that matters:
the batch writes its rows to ``results.jsonl`` as they arrive, so a server stopped mid-batch
leaves the rows so far, and ``gcv batch SPEC --resume`` continues them.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from gcv.service import batches
from gcv.service.errors import Busy, Refusal
from gcv.store.catalog import Workspace

log = logging.getLogger("gcv.console")


@dataclass
class BatchJob:
    spec: str
    name: str  # the output folder under batches/
    actor: str
    started: float
    total: int = 0
    done: int = 0
    errors: int = 0
    thread: threading.Thread | None = None
    finished: float | None = None
    error: str | None = None
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


class BatchJobs:
    def __init__(self, ws: Workspace, *, workers: int = 1) -> None:
        self.ws = ws
        self.workers = workers
        self._lock = threading.Lock()
        self.last: BatchJob | None = None

    def start(self, spec: str, *, actor: str, overwrite: bool) -> BatchJob:
        """Start ``spec`` (a committed spec's file name) in the background; ``Busy`` while one runs.
        What the use case refuses before running (an unknown spec, earlier results kept) is
        refused here, before the thread starts, so the page can say it at once."""
        name = batches.output_name(self.ws, spec)  # InvalidInput for a spec that is not committed
        with self._lock:
            if self.last is not None and self.last.running:
                raise Busy(f"batch {self.last.name} is running (started by {self.last.actor}); wait for it to end")
            if not overwrite:
                batches.check_free(self.ws, spec)
            job = BatchJob(spec=spec, name=name, actor=actor, started=time.time())
            job.thread = threading.Thread(target=self._run, args=(job, overwrite), name=f"gcv-batch-{name}",
                                          daemon=True)
            self.last = job
            job.thread.start()
        return job

    def wait(self, timeout: float | None = None) -> BatchJob | None:
        job = self.last
        if job is not None and job.thread is not None:
            job.thread.join(timeout)
        return job

    def _run(self, job: BatchJob, overwrite: bool) -> None:
        def on_start(total: int, finished: int) -> None:
            job.total, job.done = total, finished

        def on_row(row: dict[str, Any], final: bool) -> None:
            if final:
                job.done += 1
                job.errors += row["status"] == "error"

        try:
            started = batches.start_batch(self.ws, job.spec, overwrite=overwrite, workers=self.workers,
                                          on_start=on_start, on_row=on_row)
            job.result = started.as_dict()
            log.info("batch %s (started by %s) ended with exit code %s", job.name, job.actor,
                     job.result["exit_code"])
        except Refusal as exc:
            job.error = exc.message
        except Exception as exc:  # noqa: BLE001 - a batch must never take the server down
            job.error = f"internal error ({type(exc).__name__}); the rows so far are in results.jsonl"
            log.exception("batch %s: background run failed", job.name)
        finally:
            job.finished = time.time()


__all__ = ["BatchJobs", "BatchJob"]
