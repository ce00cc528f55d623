"""Each layer of ``gcv.batch.lifeline`` on its own: the kernel's parent-death signal, and the
watch thread that covers every platform (and a parent that is not the one to watch)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from gcv.batch.lifeline import process_identity
from tests.support.batchutil import REPO
from tests.support.procutil import process_alive, wait_gone


def _python(code: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True,
                            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


def test_the_watch_thread_ends_a_worker_whose_driver_is_gone() -> None:
    driver = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        identity = process_identity(driver.pid)
        assert identity is not None
        worker = _python("import time\nfrom gcv.batch.lifeline import watch\n"
                         f"watch({identity!r}, every=0.05)\nprint('ready', flush=True)\ntime.sleep(60)\n")
        assert worker.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        assert worker.poll() is None, "the worker ended while its driver ran"
        driver.kill()
        driver.wait()
        worker.wait(timeout=5)  # before: nothing ended it
    finally:
        driver.kill()


def test_a_reused_pid_does_not_keep_a_worker_alive() -> None:
    """The identity is the pid and its creation time: another process with the pid is not the driver."""
    me = process_identity(os.getpid())
    assert me is not None
    worker = _python("import time\nfrom gcv.batch.lifeline import watch\n"
                     f"watch(({me[0]}, {me[1] - 1.0}), every=0.05)\ntime.sleep(60)\n")
    worker.wait(timeout=5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_parent_death_signal_ends_a_child_when_its_parent_is_killed() -> None:
    parent = _python("import subprocess, sys, time\n"
                     "child = subprocess.Popen([sys.executable, '-c', 'import os, time\\n"
                     "from gcv.batch.lifeline import die_with_parent\\n"
                     "assert die_with_parent(os.getppid())\\nprint(os.getpid(), flush=True)\\ntime.sleep(60)'])\n"
                     "time.sleep(60)\n")
    try:
        pid = int(parent.stdout.readline())
        assert process_alive(pid)
        parent.kill()
        parent.wait()
        assert wait_gone(pid, 5), "the child outlived its SIGKILLed parent"
    finally:
        parent.kill()
