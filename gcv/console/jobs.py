"""Background work: the console runs the durable workflow loop in worker threads.

A job is ``WorkflowLoop.advance`` (then the evidence, as ``gcv run`` / ``gcv resume`` write
it), in its own thread, under the workflow's lock like any other writer. Nothing about a
job lives only in memory: the loop records every step before it counts, so the server can
be killed at any moment; restarted, a workflow left between two steps of the loop shows as
*interrupted* and an operator resumes it (``POST /api/workflows/{id}/resume``, the same as
``gcv resume``), which redoes the interrupted step from its recorded activities: nothing
is lost or run twice.

Threads are daemons: stopping the server abandons a job exactly like a kill would, which
the loop is built for, rather than holding the server up for a long engine run.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from engine_runners.build_agents import agent_runner
from gcv.evidence.notify import CONFIG_FILE as NOTIFY_CONFIG
from gcv.evidence.notify import notify
from gcv.service import workflows
from gcv.service.errors import Locked, Refusal
from gcv.service.evidence import finish
from gcv.store.catalog import Workspace
from gcv.store.errors import WorkflowLocked
from gcv.workflow.activities import Activities
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import WorkflowState

log = logging.getLogger("gcv.console")


@dataclass
class Job:
    wf_id: str
    what: str
    started: float
    thread: threading.Thread | None = None
    error: str | None = None
    finished: float | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


class Jobs:
    """The console's background runs, at most one per workflow."""

    def __init__(self, ws: Workspace, *, activities_factory: Callable[[], Activities | None] = lambda: None,
                 clock: Callable[[], float] = time.time) -> None:
        self.ws = ws
        self.activities_factory = activities_factory
        self.clock = clock
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}

    def loop(self) -> WorkflowLoop:
        return WorkflowLoop(self.ws, clock=self.clock, activities=self.activities_factory(),
                            build_agents=partial(agent_runner, self.ws.root))

    def get(self, wf_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(wf_id)

    def running(self, wf_id: str) -> bool:
        job = self.get(wf_id)
        return job is not None and job.running

    def start(self, wf_id: str, what: str) -> bool:
        """Advance ``wf_id`` in the background; False when a job of ours already runs it."""
        with self._lock:
            job = self._jobs.get(wf_id)
            if job is not None and job.running:
                return False
            job = Job(wf_id=wf_id, what=what, started=time.time())
            job.thread = threading.Thread(target=self._run, args=(job,), name=f"gcv-{what}-{wf_id}", daemon=True)
            self._jobs[wf_id] = job
            job.thread.start()
        return True

    def wait(self, wf_id: str, timeout: float | None = None) -> Job | None:
        job = self.get(wf_id)
        if job is not None and job.thread is not None:
            job.thread.join(timeout)
        return job

    def _run(self, job: Job) -> None:
        loop = self.loop()
        try:
            with workflows.writer(loop, job.wf_id):  # the run and its evidence, as one writer (as `gcv resume`)
                state = workflows.resume(loop, job.wf_id).state
                job.evidence = write_evidence(self.ws, state)
        except Locked as exc:
            job.error = str(exc)
        except Refusal as exc:
            job.error = str(exc)
            log.warning("workflow %s: %s", job.wf_id, exc)
        except Exception as exc:  # noqa: BLE001 - a job must never take the server down; the state says where it is
            job.error = f"internal error ({type(exc).__name__}); the workflow is recorded as far as it got: resume it"
            log.exception("workflow %s: background run failed", job.wf_id)
        finally:
            job.finished = time.time()


def write_evidence(ws: Workspace, state: WorkflowState) -> dict[str, Any]:
    """The next evidence version (report and bundle), where ``gcv run`` / ``resume`` /
    ``decide`` put it (``gcv.service.evidence.finish``: it never fails a run or a decision;
    ``{}`` when it was not written, and the reason goes to the server's log)."""
    tell_people(ws, state.id)
    outcome = finish(ws, state)
    if outcome.failure is not None:
        log.warning("workflow %s: %s", state.id, outcome.failure.message)
    return outcome.as_dict()


def tell_people(ws: Workspace, wf_id: str) -> None:
    """The workspace's webhooks (gcv.evidence.notify), on a thread of their own: the server is
    long-lived, so a slow or failing receiver is retried there and never holds a request."""
    if not (ws.root / NOTIFY_CONFIG).is_file():
        return

    def deliver() -> None:
        outcome = notify(ws.root, wf_id)
        if outcome.warning:
            log.warning("workflow %s: %s", wf_id, outcome.warning)

    threading.Thread(target=deliver, name=f"notify-{wf_id}", daemon=True).start()


def lock_holder(ws: Workspace, wf_id: str) -> str | None:
    """Who holds the workflow's lock right now (None: nobody). Takes the lock for an instant
    when it is free, so call it only for a workflow that looks interrupted."""
    d = ws.workflow_dir(wf_id)
    try:
        with d.lock():
            return None
    except WorkflowLocked as exc:
        return str(exc)


__all__ = ["Jobs", "Job", "write_evidence", "lock_holder"]
