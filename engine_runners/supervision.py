"""Process supervision shared by every out-of-process runner (python-sim, Unity, UE5).

An engine is launched as its own process tree (:mod:`engine_runners.process_tree`: a new
session on POSIX, a job object on Windows); its stdout/stderr are copied line by line into
the run log and read as they come, in lines of at most 64 KiB (``MAX_LINE_BYTES``: the rest
of a longer line is counted in the log, not kept; a cut ``GCV-ERROR`` line is still read as
the engine's error). Four clocks bound a run, each with its own reason:

* the **start-up budget** (launch -> handshake): a first run imports the project, compiles
  scripts or fills a cold shader cache, which takes tens of minutes on a real project, so
  this budget is long and configurable;
* **liveness**: the longest silence allowed, once the engine has handshaken. Before the
  handshake only the start-up budget applies (issue 28.4): a Shipping UE game prints nothing
  before its handshake and a Unity import can be silent for minutes, so silence there is no
  sign of a hang. After the handshake only protocol lines
  (``GCV-HEARTBEAT`` with the last tick simulated, or another ``GCV-`` line) and the
  engine's own progress lines count, so an engine that hangs while its logger spams
  warnings is still found hung;
* the **timeout** of the whole run, start-up included, and an absolute **deadline** (wall
  clock, ``time.time()``), given by the workflow, that bounds the run the same way and is
  reported as its own reason;
* after ``GCV-DONE`` the engine gets ``shutdown_grace`` seconds to exit (UE prints its own
  shutdown lines, and may hang in shutdown); then it is ended, and the run is still judged
  by its telemetry.

On any of these, or on :func:`stop_all` (Ctrl-C, SIGTERM), the whole tree is ended: a
graceful request, a grace period, then a kill of every process still alive. Which phase the
run was in (``startup``, ``import_compile``, ``simulation``, ``shutdown``) and the last
heartbeat's tick are returned, so a terminal reason can say "hung in simulation at tick
1234" or "start-up budget spent importing". Lines that match the runner's problem patterns
(licence and activation failures, missing modules, no graphics device) are returned too.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from engine_runners.process_tree import ProcessTree, make_tree
from engine_runners.protocol import parse_cut_error, parse_line

KILL_GRACE_SECONDS = 2.0
POLL_SECONDS = 0.02
# An engine's output is read in lines of at most MAX_LINE_BYTES: the rest of a longer line is
# counted, not kept (an engine printing 300 MB without a newline must not cost 300 MB here),
# except its last LINE_TAIL_BYTES, where a protocol line may carry its exit code and kind.
MAX_LINE_BYTES = 64 * 1024
LINE_TAIL_BYTES = 4 * 1024
TAIL_LINE_CHARS = 2000  # a line in Supervised.tail (quoted in messages) is cut to this


@dataclass(frozen=True)
class Limits:
    """What bounds one run. ``deadline`` is absolute (``time.time()``); the rest are seconds."""

    startup: float
    liveness: float
    timeout: float
    deadline: float | None = None
    shutdown_grace: float = 60.0
    kill_grace: float = KILL_GRACE_SECONDS

    def describe(self) -> str:
        parts = [f"start-up budget {self.startup:g} s", f"liveness {self.liveness:g} s", f"timeout {self.timeout:g} s"]
        if self.deadline is not None:
            parts.append(f"deadline in {max(0.0, self.deadline - time.time()):.0f} s")
        return ", ".join(parts)


@dataclass(frozen=True)
class Problem:
    """A log line pattern that names a known failure (a licence, a missing module...)."""

    kind: str
    pattern: re.Pattern[str]
    hint: str


@dataclass(frozen=True)
class LogRules:
    """Engine-specific reading of the log: progress lines and known problems."""

    import_compile: tuple[re.Pattern[str], ...] = ()
    problems: tuple[Problem, ...] = ()


@dataclass
class Supervised:
    exit_code: int | None
    handshake: dict[str, Any] | None
    ended_by: str | None  # None, "startup", "liveness", "timeout", "deadline", "interrupted", "shutdown"
    duration_ms: int
    log_path: Path
    tail: list[str] = field(default_factory=list)
    launch_error: str | None = None
    done: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    phase: str = "launch"
    last_tick: int | None = None
    problems: list[tuple[Problem, str]] = field(default_factory=list)
    limits: Limits | None = None
    platform: str = "posix"
    silence: float = 0.0  # seconds without a life sign when liveness ended the run


# --- every engine this process started, so an interrupt can end them all -------------------

_LIVE: dict[int, tuple[subprocess.Popen[bytes], ProcessTree]] = {}
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def stop_all(grace: float = KILL_GRACE_SECONDS) -> int:
    """End every engine tree this process supervises; refuse new launches until
    :func:`allow_launches`. Graceful request to all first, one shared grace period, then a
    kill, so N engines end in about ``grace`` seconds, not N times that. Returns how many."""
    _STOPPING.set()
    with _LIVE_LOCK:
        running = list(_LIVE.values())
    for proc, tree in running:
        try:
            tree.request_stop(proc)
        except OSError:
            pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(proc.poll() is None for proc, _ in running):
        time.sleep(POLL_SECONDS)
    for proc, tree in running:
        tree.sweep()
    return len(running)


def allow_launches() -> None:
    _STOPPING.clear()


def stopping() -> bool:
    return _STOPPING.is_set()


def live_engine_pids() -> list[int]:
    with _LIVE_LOCK:
        return list(_LIVE)


# --- one supervised run ---------------------------------------------------------------------

@dataclass(frozen=True)
class Line:
    """One line of engine output, bounded: ``head`` is its first ``MAX_LINE_BYTES`` at most;
    of a longer line ``left_out`` bytes were counted, not kept, and ``end`` holds its last
    ``LINE_TAIL_BYTES``."""

    head: bytes
    left_out: int = 0
    end: bytes = b""


def bounded_lines(stream: Any, limit: int = MAX_LINE_BYTES, tail: int = LINE_TAIL_BYTES) -> Any:
    """Yield the lines of ``stream`` (a binary file object) as :class:`Line`, holding at most
    ``limit + tail`` bytes of any one line in memory, however long it is."""
    while True:
        head = stream.readline(limit)
        if not head:
            return
        if head.endswith(b"\n") or len(head) < limit:
            yield Line(head)
            continue
        left_out, end = 0, b""
        while True:
            more = stream.readline(limit)
            if not more:
                break
            left_out += len(more)
            end = (end + more)[-tail:]
            if more.endswith(b"\n"):
                break
        yield Line(head, left_out, end)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").rstrip("\r\n")


class _Reader:
    """State shared by the two pump threads and the supervising loop."""

    def __init__(self, log: Any, rules: LogRules) -> None:
        self.log = log
        self.rules = rules
        self.lock = threading.Lock()
        self.tail: deque[str] = deque(maxlen=40)
        self.handshake: dict[str, Any] | None = None
        self.done: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.last_tick: int | None = None
        self.importing = False
        self.last_life = time.monotonic()
        self.problems: list[tuple[Problem, str]] = []
        self.event = threading.Event()

    def line(self, label: str, line: str, left_out: int = 0, end: str = "") -> None:
        now = time.monotonic()
        cut = f" [gcv: {left_out} more bytes of this line left out]" if left_out else ""
        with self.lock:
            if not self.log.closed:
                self.log.write(f"[{label}] {line}{cut}\n")
                self.log.flush()
            shown = line if len(line) <= TAIL_LINE_CHARS else line[:TAIL_LINE_CHARS] + "\u2026"
            self.tail.append(f"[{label}] {shown}{cut}")
            if label != "stdout":
                parsed = None
            elif left_out:
                error = parse_cut_error(line, end, left_out)
                parsed = ("error", error) if error is not None else None
            else:
                parsed = parse_line(line)
            if parsed is not None:
                kind, payload = parsed
                if kind == "handshake" and self.handshake is None:
                    self.handshake = payload
                elif kind == "heartbeat" and self.handshake is not None:
                    self.last_tick = int(payload["tick"])
                elif kind == "done" and self.handshake is not None and self.done is None:
                    self.done = payload
                elif kind == "error" and self.handshake is not None and self.error is None:
                    self.error = payload
                self.last_life = now
            elif self.handshake is None:
                self.last_life = now  # before the handshake, any output is a sign of life
                if any(p.search(line) for p in self.rules.import_compile):
                    self.importing = True
            elif any(p.search(line) for p in self.rules.import_compile):
                self.last_life = now
            if len(self.problems) < 8:
                for problem in self.rules.problems:
                    if problem.pattern.search(line):
                        self.problems.append((problem, line.strip()[:400]))
                        break
        self.event.set()

    def phase(self) -> str:
        if self.done is not None:
            return "shutdown"
        if self.handshake is not None:
            return "simulation"
        return "import_compile" if self.importing else "startup"


def _open_log(path: Path) -> Any:
    """The run log, truncated: never through a symbolic link (a link put in the run folder would
    make the engine's output overwrite its target), never a FIFO (the open would block)."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    fd = os.open(path, flags, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return os.fdopen(fd, "w", encoding="utf-8", errors="replace")


def supervise(cmd: Sequence[str] | str, *, log_path: Path, limits: Limits, cwd: Path | None = None,
              env: dict[str, str] | None = None, rules: LogRules = LogRules(),
              tree: ProcessTree | None = None, popen: Callable[..., Any] = subprocess.Popen,
              on_launch: Callable[[int], None] | None = None) -> Supervised:
    """Run ``cmd`` to completion under supervision. Never raises for engine misbehaviour.

    ``cmd`` is an argument list (or a string ``popen`` takes as it is). ``tree`` and ``popen``
    are the platform seams (tests drive the Windows branch through them)."""
    tree = tree if tree is not None else make_tree()
    started = time.monotonic()
    exe = cmd if isinstance(cmd, str) else (cmd[0] if cmd else "")
    base: dict[str, Any] = dict(limits=limits, platform=tree.platform)
    if _STOPPING.is_set():
        return Supervised(None, None, "interrupted", 0, log_path, [], "not started: gcv is stopping (interrupted)",
                          **base)
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = _open_log(log_path)
    except OSError as exc:
        return Supervised(None, None, None, 0, log_path, [], f"cannot write log {log_path}: {exc.strerror}", **base)
    reader = _Reader(log, rules)
    try:
        proc = popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, **tree.popen_kwargs())
    except OSError as exc:
        log.close()
        return Supervised(None, None, None, 0, log_path, [], f"cannot launch {exe}: {exc.strerror or exc}", **base)
    tree.attach(proc)
    with _LIVE_LOCK:
        _LIVE[proc.pid] = (proc, tree)
    if on_launch is not None:
        try:
            on_launch(proc.pid)
        except OSError:
            pass

    def pump(stream: Any, label: str) -> None:
        # Never raises: a pipe closed under it or a log closed after the run ends the copy, and
        # an engine's bytes, whatever they are, only ever become text in the log.
        try:
            for item in bounded_lines(stream):
                reader.line(label, _text(item.head), item.left_out, _text(item.end))
        except (OSError, ValueError):
            pass
        finally:
            try:
                stream.close()
            except OSError:
                pass

    threads = [threading.Thread(target=pump, args=(proc.stdout, "stdout"), daemon=True),
               threading.Thread(target=pump, args=(proc.stderr, "stderr"), daemon=True)]
    for th in threads:
        th.start()
    ended_by: str | None = None
    silence = 0.0
    run_end = started + limits.timeout
    done_at: float | None = None
    next_refresh = started
    try:
        while True:
            if proc.poll() is not None:
                break
            now = time.monotonic()
            if _STOPPING.is_set():
                ended_by = "interrupted"
                break
            if limits.deadline is not None and time.time() >= limits.deadline:
                ended_by = "deadline"
                break
            if now >= run_end:
                ended_by = "timeout"
                break
            with reader.lock:
                handshake, done, last_life = reader.handshake, reader.done, reader.last_life
            if done is not None:
                done_at = done_at or now
                if now - done_at >= limits.shutdown_grace:
                    ended_by = "shutdown"
                    break
            else:
                if handshake is None and now - started >= limits.startup:
                    ended_by = "startup"
                    break
                if handshake is not None and now - last_life >= limits.liveness:
                    ended_by, silence = "liveness", now - last_life
                    break
            if now >= next_refresh:
                tree.refresh()  # learn grandchildren while their parents still live
                next_refresh = now + 0.5
            reader.event.wait(POLL_SECONDS)
            reader.event.clear()
    finally:
        # Whatever happened (a limit, KeyboardInterrupt, an error here), nothing outlives the run.
        if proc.poll() is None:
            tree.end(proc, limits.kill_grace)
        else:
            tree.sweep()  # the leader exited; what it left behind must not outlive the run
        with _LIVE_LOCK:
            _LIVE.pop(proc.pid, None)
        for th in threads:
            th.join(timeout=5)
        with reader.lock:  # a pump still copying (a grandchild holds the pipe) stops writing
            log.close()
    if ended_by is None and _STOPPING.is_set() and reader.done is None:
        ended_by = "interrupted"  # stop_all ended it between two polls
    duration = int((time.monotonic() - started) * 1000)
    exit_code = proc.returncode if ended_by is None else None
    with reader.lock:
        return Supervised(exit_code, reader.handshake, ended_by, duration, log_path, list(reader.tail),
                          done=reader.done, error=reader.error, phase=reader.phase(), last_tick=reader.last_tick,
                          problems=list(reader.problems), silence=silence, **base)
