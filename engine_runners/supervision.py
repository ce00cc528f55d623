"""Process supervision shared by every out-of-process runner (python-sim, Unity, UE5).

An engine is launched in its own session (process group), its stdout/stderr are copied
line by line into the run log, the handshake line must arrive within the startup timeout,
the whole run within the overall timeout; on any timeout the whole process group is
terminated, then killed, and reaped, so nothing is left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine_runners.protocol import parse_handshake

KILL_GRACE_SECONDS = 2.0


@dataclass
class Supervised:
    exit_code: int | None
    handshake: dict[str, Any] | None
    timed_out: str | None  # None, "startup" or "overall"
    duration_ms: int
    log_path: Path
    tail: list[str] = field(default_factory=list)
    launch_error: str | None = None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        pgid = None
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_SECONDS), (signal.SIGKILL, 5.0)):
        if pgid is not None:
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=wait)
            # The leader is gone; make sure no member of its group survives it.
            if pgid is not None and sig == signal.SIGTERM:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            return
        except subprocess.TimeoutExpired:
            continue


def supervise(cmd: list[str], *, log_path: Path, startup_timeout: float, timeout: float,
              cwd: Path | None = None, env: dict[str, str] | None = None) -> Supervised:
    """Run ``cmd`` to completion under supervision. Never raises for engine misbehaviour."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    tail: deque[str] = deque(maxlen=40)
    handshake: dict[str, Any] | None = None
    got_handshake = threading.Event()
    lock = threading.Lock()
    try:
        log = open(log_path, "w", encoding="utf-8", errors="replace")
    except OSError as exc:
        return Supervised(None, None, None, 0, log_path, [], f"cannot write log {log_path}: {exc.strerror}")
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        log.close()
        return Supervised(None, None, None, 0, log_path, [], f"cannot launch {cmd[0]}: {exc.strerror}")

    def pump(stream: Any, label: str) -> None:
        nonlocal handshake
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            with lock:
                log.write(f"[{label}] {line}\n")
                log.flush()
                tail.append(f"[{label}] {line}")
            if handshake is None and label == "stdout":
                payload = parse_handshake(line)
                if payload is not None:
                    handshake = payload
                    got_handshake.set()
        stream.close()

    threads = [threading.Thread(target=pump, args=(proc.stdout, "stdout"), daemon=True),
               threading.Thread(target=pump, args=(proc.stderr, "stderr"), daemon=True)]
    for th in threads:
        th.start()
    timed_out: str | None = None
    deadline = started + timeout
    startup_deadline = started + min(startup_timeout, timeout)
    while True:
        code = proc.poll()
        if code is not None:
            break
        now = time.monotonic()
        if handshake is None and now >= startup_deadline:
            timed_out = "startup"
            break
        if now >= deadline:
            timed_out = "overall"
            break
        got_handshake.wait(0.01) if handshake is None else time.sleep(0.01)
    if timed_out:
        _kill_group(proc)
    else:
        # The leader exited; children it left in its group must not outlive the run.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for th in threads:
        th.join(timeout=5)
    log.close()
    duration = int((time.monotonic() - started) * 1000)
    exit_code = None if timed_out else proc.returncode
    return Supervised(exit_code, handshake, timed_out, duration, log_path, list(tail))
