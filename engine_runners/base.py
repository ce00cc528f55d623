"""The EngineRunner protocol and the shared out-of-process runner.

Every runner answers three questions: what can you do (``capabilities``), can you run here
(``check``: available / not_installed / misconfigured, with a reason and the checks made
before any budget is spent), and ``run(request)``. Executables and arguments come only from
the operator's configuration (environment variables), never from the caller: ``run`` takes
a validated RunRequest, a timeout and a deadline, nothing else.

How a run is judged (:meth:`SubprocessRunner.judge`): success needs the handshake from the
engine the runner was configured to run, ``GCV-DONE``, and schema-valid telemetry that
belongs to the request, names the configured engine and the ``fps_source`` that engine
mode produces, plus every requested frame when the engine was to capture them. Everything
else is a named failure, and the raw exit code only words the message.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from abc import ABC, abstractmethod
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager, Literal, Protocol

from pydantic import ValidationError

from engine_runners.exit_codes import describe_exit
from engine_runners.process_tree import WinJobApi, make_tree
from engine_runners.protocol import FRAMES_DIR, LOG_FILE, TELEMETRY_FILE, RunRequest, RunResult, frame_name
from engine_runners.reference_frames import ReferenceFramesError, render_reference_frames
from engine_runners.run_lock import EditorBusy, RunFolderBusy, RunFolderLock
from engine_runners.supervision import Limits, LogRules, Supervised, supervise
from gcv.sim.telemetry_model import Telemetry
from gcv.contract.loading import GcvInputError, read_input_text

Status = Literal["available", "not_installed", "misconfigured"]

ERROR_KIND_OF_EXIT = {"internal_error": "engine_error", "bad_request": "bad_request",
                      "hash_mismatch": "hash_mismatch", "output_error": "output_error"}
PHASE_TEXT = {"launch": "launch", "startup": "start-up", "import_compile": "start-up (import/compile)",
              "simulation": "simulation", "shutdown": "shutdown (after GCV-DONE)"}


@dataclass
class EnvironmentStatus:
    engine: str
    status: Status
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "status": self.status, "reason": self.reason,
                "details": self.details}


@dataclass(frozen=True)
class Capabilities:
    renders_frames: bool
    measures_frame_times: bool
    out_of_process: bool
    implementation: str
    description: str


class EngineRunner(Protocol):
    name: str

    def capabilities(self) -> Capabilities: ...

    def check(self) -> EnvironmentStatus: ...

    def run(self, request: RunRequest, *, timeout: float | None = None,
            deadline: float | None = None) -> RunResult: ...


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def check_telemetry(request: RunRequest, telemetry_path: Path) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """Read, schema-validate and hash-check an engine's telemetry.

    Returns (telemetry, error_kind, message); telemetry is None when anything is wrong.
    """
    if not telemetry_path.exists():
        return None, "no_telemetry", f"the engine exited without writing {telemetry_path.name}"
    try:  # a regular file under the telemetry cap: a 1 GiB file is refused before it is read
        text = read_input_text(telemetry_path, "telemetry")
    except GcvInputError as exc:
        return None, "bad_telemetry", f"{telemetry_path.name} {exc.message}"
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, "bad_telemetry", f"{telemetry_path.name} is not valid JSON: {exc}"
    if not isinstance(data, dict):
        return None, "bad_telemetry", f"{telemetry_path.name} is not a JSON object"
    try:
        Telemetry.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return None, "bad_telemetry", (f"{telemetry_path.name} does not match the telemetry schema "
                                       f"at {where or '$'}: {first['msg']} ({exc.error_count()} errors)")
    for key in ("program_hash", "config_hash"):
        if data[key] != getattr(request, key):
            return None, "hash_mismatch", (f"telemetry {key} {data[key][:12]}... does not match the "
                                           f"request's {getattr(request, key)[:12]}...")
    if data["seed"] != request.seed or data["player"] != request.player_label:
        return None, "hash_mismatch", "telemetry seed/player do not match the request"
    if data["run_id"] != request.run_id:
        return None, "hash_mismatch", f"telemetry run_id {data['run_id']!r} is not {request.run_id!r}"
    return data, None, None


def env_seconds(name: str, default: float, *, low: float = 1.0, high: float = 7 * 86400.0) -> float:
    """A duration from the operator's environment; ValueError names the variable and range."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number of seconds ({low:g}..{high:g})") from None
    if not low <= value <= high:
        raise ValueError(f"{name}={raw!r} is outside {low:g}..{high:g} seconds")
    return value


@dataclass
class Plan:
    """How one request is run by one configured engine mode."""

    label: str                       # the engine as configured (RunResult.engine, telemetry engine.name)
    fps_source: str                  # what telemetry must say: "measured" (renders) or "model"
    engine_captures: bool            # the engine itself saves the requested frames
    engine_request: RunRequest       # what the engine is sent (capture ticks dropped when it cannot render)
    reference_frames: list[int]      # ticks the reference renderer draws instead (labelled as such)
    notes: list[str] = field(default_factory=list)


class SubprocessRunner(ABC):
    """Shared launch / handshake / liveness / kill / parse / hash-check for every engine."""

    name = "subprocess"
    startup_budget = 30.0      # launch -> handshake
    liveness_timeout = 60.0    # longest silence allowed
    default_timeout = 600.0    # the whole run when the caller gives none
    shutdown_grace = 60.0      # after GCV-DONE
    env_prefix = ""            # GCV_UNITY / GCV_UE: <prefix>_STARTUP_BUDGET, <prefix>_LIVENESS
    # Platform seams: None means this machine. Tests set platform="nt" with a simulated job
    # API (win_api) and popen, so the Windows branch runs in CI on Linux.
    platform: str | None = None
    win_api: WinJobApi | None = None
    popen: Callable[..., Any] | None = None

    @abstractmethod
    def command(self, request_path: Path, request: RunRequest) -> list[str] | str:
        """The operator-configured command line for one request file."""

    def environment(self) -> dict[str, str] | None:
        return None

    def engine_label(self) -> str:
        return self.name

    def log_rules(self) -> LogRules:
        return LogRules()

    def plan(self, request: RunRequest) -> Plan:
        """Default: the engine does not render; frame figures are modeled; frames, if asked
        for, come from the reference renderer."""
        ticks = list(request.capture_ticks)
        engine_request = request.model_copy(update={"capture_ticks": []}) if ticks else request
        notes = ([f"{self.engine_label()} does not render here: the {len(ticks)} requested frame(s) are drawn "
                  "by the reference renderer from the same state (frames_source: reference)"] if ticks else [])
        return Plan(self.engine_label(), "model", False, engine_request, ticks, notes)

    def exclusive(self, wait: float) -> ContextManager[float]:
        """Held for the whole run (editor modes serialise per project); yields seconds waited."""
        return nullcontext(0.0)

    def limits(self, timeout: float | None, deadline: float | None) -> Limits:
        prefix = self.env_prefix
        startup = env_seconds(f"{prefix}_STARTUP_BUDGET", self.startup_budget) if prefix else self.startup_budget
        liveness = env_seconds(f"{prefix}_LIVENESS", self.liveness_timeout) if prefix else self.liveness_timeout
        return Limits(startup=startup, liveness=liveness,
                      timeout=timeout if timeout is not None else self.default_timeout, deadline=deadline,
                      shutdown_grace=self.shutdown_grace)

    def _fail(self, request: RunRequest, kind: str, message: str, **extra: Any) -> RunResult:
        return RunResult(run_id=request.run_id, engine=self.engine_label(), ok=False, error_kind=kind,
                         error=message, **extra)

    def run(self, request: RunRequest, *, timeout: float | None = None, deadline: float | None = None) -> RunResult:
        status = self.check()
        if status.status != "available":
            return self._fail(request, status.status, status.reason)
        if deadline is not None and time.time() >= deadline:
            return self._fail(request, "deadline", "the deadline had passed before the engine was started",
                              phase="launch")
        try:
            limits = self.limits(timeout, deadline)
            plan = self.plan(request)
        except ValueError as exc:
            return self._fail(request, "misconfigured", str(exc))
        out = Path(request.output_dir)
        folder = RunFolderLock(out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            notes = folder.acquire()
        except RunFolderBusy as exc:
            return self._fail(request, "run_folder_busy", str(exc), phase="launch")
        except OSError as exc:
            return self._fail(request, "output_error", f"cannot prepare {out}: {exc.strerror}")
        try:
            return self._run_locked(request, plan, limits, notes + plan.notes, folder)
        finally:
            folder.release()

    def _run_locked(self, request: RunRequest, plan: Plan, limits: Limits, notes: list[str],
                    folder: RunFolderLock) -> RunResult:
        out = Path(request.output_dir)
        try:
            request_path = out / "request.json"
            write_json_atomic(request_path, plan.engine_request.model_dump(mode="json"))
            for stale in (out / TELEMETRY_FILE,):
                stale.unlink(missing_ok=True)
            if (out / FRAMES_DIR).is_dir():
                for old in (out / FRAMES_DIR).glob("*.png"):
                    old.unlink()
        except OSError as exc:
            return self._fail(request, "output_error", f"cannot prepare {out}: {exc.strerror}")
        try:
            command = self.command(request_path, plan.engine_request)
        except ValueError as exc:
            return self._fail(request, "bad_request", str(exc), phase="launch")
        wait = limits.timeout if limits.deadline is None else min(limits.timeout, limits.deadline - time.time())
        started = time.monotonic()
        try:
            with self.exclusive(wait) as waited:
                if waited >= 1.0:
                    notes.append(f"waited {waited:.0f} s for another editor run on the same project")
                remaining = limits.timeout - (time.monotonic() - started)
                run_limits = Limits(limits.startup, limits.liveness, max(0.0, remaining), limits.deadline,
                                    limits.shutdown_grace, limits.kill_grace)
                sup = supervise(command, log_path=out / LOG_FILE, limits=run_limits, env=self.environment(),
                                rules=self.log_rules(),
                                tree=make_tree(self.platform, win_api=self.win_api),
                                popen=self.popen or subprocess.Popen, on_launch=folder.record_engine)
        except EditorBusy as exc:  # the editor slot was not free in time
            kind = "deadline" if limits.deadline is not None and time.time() >= limits.deadline - 1 else "timeout"
            return self._fail(request, kind, str(exc), phase="launch", notes=notes)
        result = self.judge(request, plan, sup, limits, notes)
        return result

    # --- the verdict ----------------------------------------------------------------------

    def judge(self, request: RunRequest, plan: Plan, sup: Supervised, limits: Limits,
              notes: list[str]) -> RunResult:
        out = Path(request.output_dir)
        base: dict[str, Any] = dict(run_id=request.run_id, engine=plan.label, exit_code=sup.exit_code,
                                    log_path=str(sup.log_path), duration_ms=sup.duration_ms,
                                    handshake=sup.handshake, phase=sup.phase, last_tick=sup.last_tick, notes=notes)
        windows = sup.platform == "nt"

        def fail(kind: str, message: str) -> RunResult:
            return RunResult(**base, ok=False, error_kind=kind, error=message)

        where = PHASE_TEXT.get(sup.phase, sup.phase) + (f" at tick {sup.last_tick}" if sup.last_tick is not None
                                                         and sup.phase == "simulation" else "")
        last = sup.tail[-1] if sup.tail else "(nothing)"
        if sup.launch_error:
            return fail("interrupted" if sup.ended_by == "interrupted" else "launch_failed", sup.launch_error)
        known = self._known_problem(sup)
        if sup.ended_by == "interrupted":
            return fail("interrupted", f"interrupted during {where}; the engine's process tree was ended")
        if sup.ended_by == "deadline":
            return fail("deadline", f"the deadline passed during {where}; the engine's process tree was ended")
        if sup.ended_by == "timeout":
            return fail("timeout", f"the run exceeded its timeout of {limits.timeout:g} s during {where}; "
                                   "the engine's process tree was ended")
        # The engine's own GCV-ERROR line outranks a log pattern: the engine knows why it failed,
        # a pattern only guesses from a line it saw (issue 28.2: a headless player's normal
        # "Desktop is 0 x 0" turned a hash mismatch into no_graphics).
        if known is not None and sup.done is None and sup.error is None:
            return fail(*known)
        if sup.ended_by == "startup":
            hint = "; raise the start-up budget for a first run on a cold machine" if sup.phase == "import_compile" else ""
            return fail("no_handshake", f"no handshake within the start-up budget of {limits.startup:g} s "
                                        f"(still in {where}){hint}; the engine's process tree was ended")
        if sup.ended_by == "liveness":
            return fail("hung", f"no sign of life for {sup.silence:.0f} s (liveness limit {limits.liveness:g} s) "
                                f"during {where}; the engine's process tree was ended")
        code = describe_exit(sup.exit_code, windows=windows)
        if sup.handshake is None:
            if sup.exit_code == 0:
                return fail("no_handshake", "the engine exited (code 0) without printing the handshake line"
                            + self.no_handshake_hint() + f"; last log line: {last}")
            return fail("startup_failed", f"the engine failed during {where} ({code.text}) before the handshake; "
                                          f"last log line: {last}")
        claimed = str(sup.handshake.get("engine", ""))
        if claimed != plan.label:
            return fail("protocol_error", f"the engine was configured as {plan.label!r} but its handshake says "
                                          f"{claimed!r}; a child process does not choose how its run is reported")
        if sup.done is None:
            if sup.error is not None:
                kind = ERROR_KIND_OF_EXIT[sup.error["kind"]]
                return fail(kind, f"the engine reported {sup.error['kind']} (exit code {sup.error['exit_code']}): "
                                  f"{sup.error.get('message', '')}")
            if sup.exit_code == 0:
                return fail("no_done", "the engine exited with code 0 but never printed GCV-DONE (an engine failure "
                                       f"that exits 0); last log line: {last}")
            return fail("crashed", f"the engine died during {where} ({code.text}) without GCV-DONE or GCV-ERROR; "
                                   f"last log line: {last}")
        if sup.ended_by == "shutdown":
            notes.append(f"the engine did not exit within {limits.shutdown_grace:g} s after GCV-DONE; it was ended")
        elif sup.exit_code not in (0, None):
            notes.append(f"the engine printed GCV-DONE but exited with {code.text}; judged by its telemetry")
        telemetry, bad_kind, bad_message = check_telemetry(request, out / TELEMETRY_FILE)
        if telemetry is None:
            return fail(bad_kind or "bad_telemetry", bad_message or "bad telemetry")
        named = telemetry["engine"]["name"]
        if named != plan.label:
            return fail("protocol_error", f"telemetry says engine {named!r}, but the runner ran {plan.label!r}")
        if telemetry["fps_source"] != plan.fps_source:
            return fail("protocol_error", f"telemetry says fps_source {telemetry['fps_source']!r}, but "
                                          f"{plan.label} in this mode produces {plan.fps_source!r} frame figures"
                        + self.fps_hint(plan))
        frames, frames_source, problem = self._frames(request, plan, telemetry)
        if problem is not None:
            return fail(*problem)
        return RunResult(**base, ok=True, telemetry=telemetry, telemetry_path=str(out / TELEMETRY_FILE),
                         frames=frames, frames_source=frames_source)

    def _known_problem(self, sup: Supervised) -> tuple[str, str] | None:
        if not sup.problems:
            return None
        problem, line = sup.problems[0]
        return problem.kind, f"{problem.hint}; the log says: {line}"

    def no_handshake_hint(self) -> str:
        return ""

    def fps_hint(self, plan: Plan) -> str:
        return ""

    def _frames(self, request: RunRequest, plan: Plan,
                telemetry: dict[str, Any]
                ) -> tuple[list[str], Literal["engine", "reference"] | None, tuple[str, str] | None]:
        """The frames of a successful run: the engine's (all must exist), or the reference's."""
        out = Path(request.output_dir)
        within = [t for t in request.capture_ticks if t < telemetry["ticks"]]
        if not within:
            return [], None, None
        if plan.engine_captures:
            paths = [out / FRAMES_DIR / frame_name(t) for t in within]
            missing = [t for t, p in zip(within, paths) if not p.is_file()]
            if len(missing) == len(within):
                return [], None, ("no_frames", f"a capture run produced no frames (0 of {len(within)}): "
                                               "the engine did not render (a server build, or no graphics device?)")
            if missing:
                return [], None, ("missing_frames", f"{len(missing)} of {len(within)} requested frames are missing: "
                                                    f"ticks {missing[:10]}")
            return [str(p) for p in paths], "engine", None
        try:
            paths = render_reference_frames(request, expected_state_hash=telemetry["state_hash"])
        except ReferenceFramesError as exc:
            return [], None, ("reference_frames_failed", str(exc))
        return [str(p) for p in paths], "reference", None

    @abstractmethod
    def check(self) -> EnvironmentStatus: ...

    @abstractmethod
    def capabilities(self) -> Capabilities: ...
