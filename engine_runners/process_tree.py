"""An engine's whole process tree, started and ended the same way on Linux, macOS and Windows.

Engines start helpers (Unity's licensing client and asset workers, UE's shader compile
workers, crash reporters), and some of those leave the engine's process group or session.
Ending only the leader leaves them running, holding the project's lock files.

* POSIX (:class:`PosixTree`): the engine leads a new session (``start_new_session``); the
  tree is its process group plus every descendant ``psutil`` finds (a grandchild that called
  ``setsid`` is outside the group but still a descendant). Descendants are re-listed while
  the run goes on, so one whose parent already exited is still known. Ending: SIGTERM to the
  group and to each known process, a grace period, then SIGKILL to whatever is left.
  Descendants orphaned before they could be listed are re-parented to the gcv process when
  :mod:`engine_runners.termination` made it a child subreaper (Linux).
* Windows (:class:`WindowsTree`): the engine starts in a new process group
  (``CREATE_NEW_PROCESS_GROUP``) and is put in a job object created with
  ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``, so everything it starts belongs to the job and
  dies with it, even if gcv itself is killed. Ending: CTRL_BREAK to the group, a grace
  period, then ``TerminateJobObject`` plus a ``psutil`` sweep of known descendants. No
  POSIX call (``os.killpg``, ``os.getpgid``, ``SIGKILL``) is made on this path.

The Windows API is reached through a small object (:class:`WinJobApi`), so CI on Linux runs
the Windows branch with a simulated API (``tests/support/fakes/fake_windows.py``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Any, Protocol

import psutil

KILL_WAIT_SECONDS = 5.0


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


class ProcessTree(Protocol):
    platform: str

    def popen_kwargs(self) -> dict[str, Any]: ...

    def attach(self, proc: subprocess.Popen[bytes]) -> None: ...

    def refresh(self) -> None: ...

    def request_stop(self, proc: subprocess.Popen[bytes]) -> None: ...

    def end(self, proc: subprocess.Popen[bytes], grace: float) -> None: ...

    def sweep(self) -> None: ...


class _Known:
    """Processes of the tree seen so far, keyed by (pid, create time) so a reused pid is not hit."""

    def __init__(self) -> None:
        self.procs: dict[tuple[int, float], psutil.Process] = {}
        self.root: int | None = None

    def add_root(self, pid: int) -> None:
        self.root = pid
        try:
            p = psutil.Process(pid)
            self.procs[(pid, p.create_time())] = p
        except psutil.Error:
            pass

    def refresh(self) -> None:
        if self.root is None:
            return
        for child in descendants(self.root):
            try:
                self.procs.setdefault((child.pid, child.create_time()), child)
            except psutil.Error:
                continue

    def living(self) -> list[psutil.Process]:
        out = []
        for proc in list(self.procs.values()):
            if _alive(proc):
                out.append(proc)
                for child in descendants(proc.pid):  # started since the last refresh
                    try:
                        key = (child.pid, child.create_time())
                    except psutil.Error:
                        continue
                    if key not in self.procs:
                        self.procs[key] = child
                        out.append(child)
        return out


def _signal_each(procs: list[psutil.Process], kill: bool) -> None:
    for proc in procs:
        try:
            proc.kill() if kill else proc.terminate()
        except psutil.Error:
            pass


def _wait_gone(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    try:
        _, alive = psutil.wait_procs(procs, timeout=timeout)
    except psutil.Error:
        alive = [p for p in procs if _alive(p)]
    return [p for p in alive if _alive(p)]


class PosixTree:
    platform = "posix"

    def __init__(self) -> None:
        self.known = _Known()
        self.pgid: int | None = None

    def popen_kwargs(self) -> dict[str, Any]:
        return {"start_new_session": True}

    def attach(self, proc: subprocess.Popen[bytes]) -> None:
        self.pgid = proc.pid  # the session leader's pid is its group id
        self.known.add_root(proc.pid)

    def refresh(self) -> None:
        self.known.refresh()

    def _signal_group(self, sig: int) -> None:
        if self.pgid is None:
            return
        try:
            os.killpg(self.pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def request_stop(self, proc: subprocess.Popen[bytes]) -> None:
        """Ask the whole tree to end (SIGTERM to the group and to every known descendant)."""
        self.known.refresh()
        self._signal_group(signal.SIGTERM)
        _signal_each(self.known.living(), kill=False)

    def end(self, proc: subprocess.Popen[bytes], grace: float) -> None:
        self.request_stop(proc)
        deadline = time.monotonic() + max(0.0, grace)
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        self.sweep()
        try:
            proc.wait(timeout=KILL_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            pass

    def sweep(self) -> None:
        """SIGKILL whatever is left of the tree (the leader has exited or ignored SIGTERM)."""
        self._signal_group(signal.SIGKILL)
        left = self.known.living()
        _signal_each(left, kill=True)
        _wait_gone(left, KILL_WAIT_SECONDS)


class WinJobApi(Protocol):
    """The few Windows calls a job-object tree needs (real: :class:`Kernel32Jobs`)."""

    def create_job(self) -> Any: ...

    def assign(self, job: Any, pid: int) -> bool: ...

    def terminate(self, job: Any, exit_code: int) -> None: ...

    def close(self, job: Any) -> None: ...

    def send_break(self, pid: int) -> None: ...


class Kernel32Jobs:
    """Job objects through ctypes (Windows only)."""

    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
    JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
    PROCESS_SET_QUOTA = 0x0100
    PROCESS_TERMINATE = 0x0001

    def __init__(self, k32: Any = None) -> None:
        """``k32`` is kernel32 (loaded here on Windows; a test passes a stand-in)."""
        import ctypes
        from ctypes import wintypes

        self.ctypes = ctypes
        self.k32 = k32 if k32 is not None else ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]

        class IoCounters(ctypes.Structure):
            _fields_ = [(n, ctypes.c_ulonglong) for n in ("ReadOperationCount", "WriteOperationCount",
                                                           "OtherOperationCount", "ReadTransferCount",
                                                           "WriteTransferCount", "OtherTransferCount")]

        class BasicLimits(ctypes.Structure):
            _fields_ = [("PerProcessUserTimeLimit", ctypes.c_longlong), ("PerJobUserTimeLimit", ctypes.c_longlong),
                        ("LimitFlags", wintypes.DWORD), ("MinimumWorkingSetSize", ctypes.c_size_t),
                        ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", wintypes.DWORD),
                        ("Affinity", ctypes.c_size_t), ("PriorityClass", wintypes.DWORD),
                        ("SchedulingClass", wintypes.DWORD)]

        class ExtendedLimits(ctypes.Structure):
            _fields_ = [("BasicLimitInformation", BasicLimits), ("IoInfo", IoCounters),
                        ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                        ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]

        self.ExtendedLimits = ExtendedLimits
        # Every call declares its signature: without argtypes ctypes passes a Python int as a
        # 32-bit C int, which truncates a 64-bit HANDLE (issue 28.5).
        k32, H, B, D = self.k32, wintypes.HANDLE, wintypes.BOOL, wintypes.DWORD
        for name, restype, argtypes in (
                ("CreateJobObjectW", H, [wintypes.LPVOID, wintypes.LPCWSTR]),
                ("SetInformationJobObject", B, [H, ctypes.c_int, wintypes.LPVOID, D]),
                ("OpenProcess", H, [D, B, D]),
                ("AssignProcessToJobObject", B, [H, H]),
                ("TerminateJobObject", B, [H, wintypes.UINT]),
                ("CloseHandle", B, [H])):
            fn = getattr(k32, name)
            fn.restype, fn.argtypes = restype, argtypes

    def create_job(self) -> Any:
        job = self.k32.CreateJobObjectW(None, None)
        if not job:
            return None
        info = self.ExtendedLimits()
        info.BasicLimitInformation.LimitFlags = self.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        if not self.k32.SetInformationJobObject(job, self.JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
                                                self.ctypes.byref(info), self.ctypes.sizeof(info)):
            # A job without kill-on-close would let the engine outlive gcv: no job then, and the
            # tree is ended process by process (WindowsTree's fallback).
            error = getattr(self.ctypes, "get_last_error", lambda: 0)()  # Windows-only in ctypes
            self.k32.CloseHandle(job)
            raise OSError(error, "SetInformationJobObject failed")
        return job

    def assign(self, job: Any, pid: int) -> bool:
        handle = self.k32.OpenProcess(self.PROCESS_SET_QUOTA | self.PROCESS_TERMINATE, False, pid)
        if not handle:
            return False
        try:
            return bool(self.k32.AssignProcessToJobObject(job, handle))
        finally:
            self.k32.CloseHandle(handle)

    def terminate(self, job: Any, exit_code: int) -> None:
        self.k32.TerminateJobObject(job, exit_code)

    def close(self, job: Any) -> None:
        self.k32.CloseHandle(job)

    def send_break(self, pid: int) -> None:
        os.kill(pid, signal.CTRL_BREAK_EVENT)  # type: ignore[attr-defined]


CREATE_NEW_PROCESS_GROUP = 0x00000200


class WindowsTree:
    platform = "nt"

    def __init__(self, api: WinJobApi | None = None) -> None:
        self.api = api if api is not None else Kernel32Jobs()
        self.known = _Known()
        self.job: Any = None
        self.in_job = False

    def popen_kwargs(self) -> dict[str, Any]:
        return {"creationflags": CREATE_NEW_PROCESS_GROUP}

    def attach(self, proc: subprocess.Popen[bytes]) -> None:
        self.known.add_root(proc.pid)
        try:
            self.job = self.api.create_job()
            self.in_job = bool(self.job) and self.api.assign(self.job, proc.pid)
        except OSError:
            self.in_job = False

    def refresh(self) -> None:
        self.known.refresh()

    def request_stop(self, proc: subprocess.Popen[bytes]) -> None:
        """CTRL_BREAK to the engine's console process group (what a console Ctrl-C would do)."""
        self.known.refresh()
        try:
            self.api.send_break(proc.pid)
        except (OSError, ValueError):
            pass

    def end(self, proc: subprocess.Popen[bytes], grace: float) -> None:
        self.request_stop(proc)
        deadline = time.monotonic() + max(0.0, grace)
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        self.sweep()
        try:
            proc.wait(timeout=KILL_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            pass

    def sweep(self) -> None:
        if self.job:
            try:
                self.api.terminate(self.job, 1)
            except OSError:
                pass
        left = self.known.living()  # covers processes that escaped the job (created before assignment)
        _signal_each(left, kill=True)
        _wait_gone(left, KILL_WAIT_SECONDS)
        if self.job:
            try:
                self.api.close(self.job)
            finally:
                self.job = None


def current_platform() -> str:
    return "nt" if os.name == "nt" else "posix"


def make_tree(platform: str | None = None, *, win_api: WinJobApi | None = None) -> ProcessTree:
    chosen = platform or current_platform()
    if chosen == "nt":
        return WindowsTree(win_api)
    if chosen == "posix":
        return PosixTree()
    raise ValueError(f"unknown platform {chosen!r}; use 'posix' or 'nt'")
