"""An engine's whole process tree (engine_runners.process_tree): a POSIX session ended with every
descendant, and the Windows job path driven through a simulated API."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from engine_runners.process_tree import PosixTree, WindowsTree, current_platform, descendants, make_tree
from tests.support.fakes.fake_windows import FakeJobApi
from tests.support.procutil import wait_gone

# a parent that starts a child and prints its pid, then both sleep
PARENT = ("import subprocess, sys, time; c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']);"
          " print(c.pid, flush=True); time.sleep(30)")


def _start(tree):  # type: ignore[no-untyped-def]
    proc = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, **tree.popen_kwargs())
    tree.attach(proc)
    child = int(proc.stdout.readline())
    tree.refresh()
    return proc, child


def test_make_tree_picks_the_platform() -> None:
    assert isinstance(make_tree("posix"), PosixTree)
    assert isinstance(make_tree("nt", win_api=FakeJobApi()), WindowsTree)
    assert current_platform() == ("nt" if os.name == "nt" else "posix")
    with pytest.raises(ValueError, match="unknown platform 'beos'"):
        make_tree("beos")


@pytest.mark.skipif(os.name == "nt", reason="the POSIX tree")
def test_ending_a_posix_tree_ends_the_child_too() -> None:
    tree = PosixTree()
    proc, child = _start(tree)
    assert tree.popen_kwargs() == {"start_new_session": True} and tree.pgid == proc.pid
    assert child in [p.pid for p in descendants(proc.pid)]
    started = time.monotonic()
    tree.end(proc, grace=0.5)
    assert proc.poll() is not None and wait_gone(child)
    assert time.monotonic() - started < 5


@pytest.mark.slow  # the simulated TerminateJobObject waits about 1.5 s for the killed grandchild
@pytest.mark.skipif(os.name == "nt", reason="the simulated Windows API runs on POSIX")
def test_the_windows_tree_ends_its_job_with_everything_in_it() -> None:
    api = FakeJobApi()
    tree = WindowsTree(api)
    proc = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE)
    tree.attach(proc)
    child = int(proc.stdout.readline())  # type: ignore[union-attr]
    assert tree.in_job and api.calls == [("create_job",), ("assign", 1, proc.pid)]
    tree.refresh()
    tree.sweep()  # TerminateJobObject, then the job is closed
    assert api.calls[2:] == [("terminate", 1, 1), ("close", 1)] and tree.job is None
    assert proc.wait(timeout=5) is not None and wait_gone(child)


@pytest.mark.skipif(os.name == "nt", reason="the simulated Windows API runs on POSIX")
def test_the_windows_tree_asks_with_ctrl_break_first() -> None:
    api = FakeJobApi()
    tree = WindowsTree(api)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    tree.attach(proc)
    tree.request_stop(proc)
    assert ("send_break", proc.pid) in api.calls
    assert proc.wait(timeout=5) != 0  # the simulated break ended it
    tree.job = None  # nothing left to terminate


def test_a_job_that_cannot_be_created_leaves_the_tree_outside_a_job() -> None:
    tree = WindowsTree(FakeJobApi(fail_create=True))
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    tree.attach(proc)
    proc.wait()
    assert not tree.in_job and not tree.job
