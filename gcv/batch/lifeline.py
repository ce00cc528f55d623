"""Pool workers end when the batch that started them dies, however it dies.

Why this exists: a ``gcv batch`` killed with SIGKILL (an OOM killer, a CI runner's hard
timeout) runs no cleanup. Its ``forkserver`` process, the ``multiprocessing`` resource
tracker and the pool workers then keep each other alive: every worker holds the write end
of its own task queue (so it never sees end-of-file) and the forkserver's "alive" pipe (so
the forkserver never exits either), and all of them inherited the caller's stdout. A CI
step waiting for that pipe to close waited minutes.

Three layers, each enough on its own for the case it covers:

* **the forkserver dies with the driver** (Linux): this module is in the forkserver's
  preload list; imported there (recognised by ``GCV_BATCH_DRIVER_PID`` naming its parent) it
  asks the kernel for ``PR_SET_PDEATHSIG``/SIGKILL;
* **each worker dies with the forkserver** (Linux): the pool's initializer asks for the
  same signal, the worker's parent being the forkserver;
* **each worker watches the driver** (every platform): a daemon thread checks every
  ``WATCH_SECONDS`` that the driver process (pid *and* creation time, so a reused pid does
  not fool it) still runs, and ends the worker otherwise. Once the workers are gone the
  forkserver's alive pipe and the resource tracker's pipe reach end-of-file and both exit.

Windows would need a job object created with ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`` that the
driver joins its workers to (``engine_runners.process_tree.WindowsTree`` does this for
engines); the watch thread already covers it, only later (``WATCH_SECONDS``).

Rows are unaffected: only the driver writes them, each row whole and fsync'd, so a worker
ended mid-chunk loses nothing that was recorded, and ``--resume`` reruns what was not.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

DRIVER_ENV = "GCV_BATCH_DRIVER_PID"
WATCH_SECONDS = 0.25
_PR_SET_PDEATHSIG = 1


def die_with_parent(expected_parent: int | None = None) -> bool:
    """Ask the kernel to SIGKILL this process when its parent ends (Linux only).

    ``expected_parent``: if the parent already changed (it died before the request was
    made, so the signal will never come), end now. Returns whether the request was made.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)  # orphaned before the request: the kernel will not tell us any more
    return True


def process_identity(pid: int) -> tuple[int, float] | None:
    """(pid, creation time) of a running process, None when there is none."""
    import psutil

    try:
        return pid, psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def _alive(identity: tuple[int, float]) -> bool:
    import psutil

    pid, created = identity
    try:
        proc = psutil.Process(pid)
        return proc.create_time() == created and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def watch(identity: tuple[int, float], *, every: float = WATCH_SECONDS) -> threading.Thread:
    """Start a daemon thread that ends this process once ``identity`` no longer runs."""

    def loop() -> None:
        while _alive(identity):
            time.sleep(every)
        os._exit(1)  # nobody is left to read this worker's rows

    thread = threading.Thread(target=loop, name="gcv-batch-lifeline", daemon=True)
    thread.start()
    return thread


def worker_init(driver: tuple[int, float] | None) -> None:
    """The pool's initializer: Ctrl-C is the driver's to handle; die with the forkserver
    (the parent) and with the driver (watched)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(os.getppid())
    if driver is not None:
        watch(driver)


def _in_forkserver() -> None:
    """Imported as a forkserver preload: the forkserver's parent is the driver named in the
    environment. Anywhere else (the driver itself, a worker) this does nothing."""
    driver = os.environ.get(DRIVER_ENV, "")
    if driver.isdigit() and int(driver) == os.getppid() and int(driver) != os.getpid():
        die_with_parent(int(driver))


_in_forkserver()
