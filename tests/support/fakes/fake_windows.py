"""A simulated Windows process surface, so the Windows supervision branch runs on Linux CI.

:class:`FakeJobApi` stands in for kernel32's job objects: a job holds the processes assigned
to it and, as on Windows, everything they start later (membership is inherited; here it is
read from the live process tree). ``terminate`` kills every member, ``send_break`` delivers
what CTRL_BREAK_EVENT does to a console process group (here SIGTERM to the process).
:func:`windows_popen` records the keyword arguments the supervisor passes (Windows creation
flags) and launches the process without them; a command-line *string* is split with the
Microsoft C runtime's rules (no runner passes one now: UE gets an argument list, issue 28.1).
Every call is recorded, so a test can assert what the Windows branch asked for.
"""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

import psutil

from tests.support.fakes.engine_cmdline import windows_argv


class FakeJobApi:
    def __init__(self, *, fail_create: bool = False) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.members: dict[int, list[psutil.Process]] = {}
        self.fail_create = fail_create
        self._next = 1

    def create_job(self) -> Any:
        self.calls.append(("create_job",))
        if self.fail_create:
            return None
        job = self._next
        self._next += 1
        self.members[job] = []
        return job

    def assign(self, job: Any, pid: int) -> bool:
        self.calls.append(("assign", job, pid))
        try:
            self.members[job].append(psutil.Process(pid))
        except psutil.Error:
            return False
        return True

    def _tree(self, job: Any) -> list[psutil.Process]:
        procs = []
        for proc in self.members.get(job, []):
            procs.append(proc)
            try:
                procs.extend(proc.children(recursive=True))
            except psutil.Error:
                pass
        return procs

    def terminate(self, job: Any, exit_code: int) -> None:
        self.calls.append(("terminate", job, exit_code))
        procs = self._tree(job)
        for proc in procs:
            try:
                proc.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(procs, timeout=5)

    def close(self, job: Any) -> None:
        self.calls.append(("close", job))
        self.members.pop(job, None)

    def send_break(self, pid: int) -> None:
        self.calls.append(("send_break", pid))
        os.kill(pid, signal.SIGTERM)


class WindowsPopen:
    """``subprocess.Popen`` as the Windows branch calls it, run on POSIX."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, cmd: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        record = {"cmd": cmd, **{k: v for k, v in kwargs.items() if k not in ("stdout", "stderr", "stdin", "env")}}
        self.calls.append(record)
        if "start_new_session" in kwargs:
            raise AssertionError("the Windows branch must not ask for a POSIX session")
        kwargs.pop("creationflags", None)
        argv = windows_argv(cmd) if isinstance(cmd, str) else list(cmd)
        return subprocess.Popen(argv, **kwargs)
