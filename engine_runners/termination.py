"""Ctrl-C, SIGTERM and exit: no engine process outlives the gcv command that started it.

``install_termination_handling()`` is called once at the start of ``gcv run``, ``gcv
resume`` and ``gcv batch``:

* **SIGTERM** (what a CI cancel sends; SIGBREAK on Windows) is turned into the same
  ``KeyboardInterrupt`` as Ctrl-C, so one code path handles both: the supervised run in
  progress ends its engine's tree in its ``finally`` block, a batch cancels its queued units
  first and then ends its running engines (:func:`engine_runners.supervision.stop_all`),
  and the workflow's interrupted step is not recorded, so ``gcv resume`` simply runs it again.
* **Linux**: the gcv process becomes a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``),
  so a grandchild that started its own session and lost its parent is re-parented to gcv
  rather than to init, where it can still be found and ended.
* **At exit**: every engine tree still registered is ended, then every descendant process
  still alive (adopted orphans included) is ended and reaped.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import signal
import sys
import threading
from typing import Any

import psutil

from engine_runners.supervision import stop_all

PR_SET_CHILD_SUBREAPER = 36
_installed = False


def make_subreaper() -> bool:
    """Linux only: adopt orphaned descendants. True when the kernel accepted it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def end_descendants(grace: float = 2.0) -> int:
    """End and reap every process below this one (used at exit). Returns how many."""
    try:
        procs = psutil.Process().children(recursive=True)
    except psutil.Error:
        return 0
    for proc in procs:
        try:
            proc.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=5)
    return len(procs)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _at_exit() -> None:
    stop_all()
    end_descendants()


def install_termination_handling(*, subreaper: bool = True) -> None:
    """Idempotent; a no-op for the signal part outside the main thread."""
    global _installed
    if _installed:
        return
    _installed = True
    if subreaper:
        make_subreaper()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_interrupt)
        if hasattr(signal, "SIGBREAK"):
            signal.signal(signal.SIGBREAK, _raise_interrupt)
    atexit.register(_at_exit)
