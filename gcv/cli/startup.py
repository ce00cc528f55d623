"""The cyclic garbage collector while the CLI starts.

Starting a command is almost all imports: modules, classes and functions that live until
the process ends. With the default thresholds (700, 10, 10) the collector still walks them
again and again as they pile up: about 50 ms of the README's ``gcv run`` (154 young and 14
middle collections and one full one), 13 ms of ``gcv validate``. So the CLI starts with a
high first threshold (``hold``): nothing is collected while it imports. Commands that go on
to do long work (a workflow, a batch, the console) call ``imports_done`` once their imports
are in: everything alive then moves to the permanent generation (``gc.freeze``: never walked
again, and left unwritten in forked workers) and the usual thresholds return. A short command
that never calls it still collects once a million objects are held, so memory stays bounded.
"""

from __future__ import annotations

import gc
import os

STARTUP_GEN0 = 1_000_000
_usual: tuple[int, int, int] | None = None


def hold() -> None:
    """No collection until ``imports_done`` (or a million tracked objects). Idempotent."""
    global _usual
    if _usual is None:
        _usual = gc.get_threshold()
        gc.set_threshold(STARTUP_GEN0, _usual[1], _usual[2])


def imports_done() -> None:
    """Freeze what start-up built and collect as usual from here on. Idempotent."""
    global _usual
    if _usual is not None:
        gc.freeze()
        gc.set_threshold(*_usual)
        _usual = None


def prepare() -> None:
    """Everything the CLI sets before it imports a library. Idempotent."""
    hold()
    # gcv does no linear algebra: one BLAS thread. Otherwise OpenBLAS starts a spinning thread
    # per core when numpy is imported, which costs every numpy-using command about 50 ms of CPU.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # gcv uses no pydantic plugins. Looking for them scans the entry points of every installed
    # distribution at the first model build: about 30 ms of every command's CPU with the test
    # extras installed. Set PYDANTIC_DISABLE_PLUGINS yourself (even to "") to have them loaded.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
