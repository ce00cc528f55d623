"""The EngineRunner protocol and the shared out-of-process runner.

Every runner answers three questions: what can you do (``capabilities``), can you run here
(``check``: available / not_installed / misconfigured, with a reason), and ``run(request)``.
Executables and arguments come only from the operator's configuration (environment
variables), never from the caller: ``run`` takes a validated RunRequest and nothing else.
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import ValidationError

from engine_runners.protocol import LOG_FILE, TELEMETRY_FILE, FRAMES_DIR, ExitCode, RunRequest, RunResult
from engine_runners.supervision import supervise

Status = Literal["available", "not_installed", "misconfigured"]


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

    def run(self, request: RunRequest, *, timeout: float | None = None) -> RunResult: ...


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def check_telemetry(request: RunRequest, telemetry_path: Path) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """Read, schema-validate and hash-check an engine's telemetry.

    Returns (telemetry, error_kind, message); telemetry is None when anything is wrong.
    """
    from gcv.sim.telemetry_model import Telemetry

    if not telemetry_path.is_file():
        return None, "no_telemetry", f"the engine exited without writing {telemetry_path.name}"
    try:
        data = json.loads(telemetry_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, "bad_telemetry", f"{telemetry_path.name} is not valid JSON: {exc}"
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


EXIT_MEANINGS = {
    ExitCode.INTERNAL_ERROR: ("engine_error", "the engine reported an internal error"),
    ExitCode.BAD_REQUEST: ("bad_request", "the engine refused the run request"),
    ExitCode.HASH_MISMATCH: ("hash_mismatch", "the engine computed a different program hash"),
    ExitCode.OUTPUT_ERROR: ("output_error", "the engine could not write its output directory"),
}


class SubprocessRunner(ABC):
    """Shared launch / handshake / timeout / kill / parse / hash-check for every engine."""

    name = "subprocess"
    startup_timeout = 30.0
    default_timeout = 600.0

    @abstractmethod
    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        """The operator-configured command line for one request file."""

    def environment(self) -> dict[str, str] | None:
        return None

    def engine_label(self) -> str:
        return self.name

    def run(self, request: RunRequest, *, timeout: float | None = None) -> RunResult:
        status = self.check()
        if status.status != "available":
            return RunResult(run_id=request.run_id, engine=self.name, ok=False,
                             error_kind=status.status, error=status.reason)
        out = Path(request.output_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
            request_path = out / "request.json"
            write_json_atomic(request_path, request.model_dump(mode="json"))
        except OSError as exc:
            return RunResult(run_id=request.run_id, engine=self.name, ok=False,
                             error_kind="output_error", error=f"cannot prepare {out}: {exc.strerror}")
        for stale in (out / TELEMETRY_FILE,):
            stale.unlink(missing_ok=True)
        sup = supervise(self.command(request_path, request), log_path=out / LOG_FILE,
                        startup_timeout=self.startup_timeout,
                        timeout=timeout if timeout is not None else self.default_timeout,
                        env=self.environment())
        # Name the engine by what actually answered (a harness says so in its handshake).
        engine = str(sup.handshake.get("engine")) if sup.handshake and sup.handshake.get("engine") else self.engine_label()
        base = dict(run_id=request.run_id, engine=engine, exit_code=sup.exit_code,
                    log_path=str(sup.log_path), duration_ms=sup.duration_ms, handshake=sup.handshake)
        if sup.launch_error:
            return RunResult(**base, ok=False, error_kind="launch_failed", error=sup.launch_error)
        if sup.timed_out == "startup":
            return RunResult(**base, ok=False, error_kind="no_handshake",
                             error=f"no handshake line within {self.startup_timeout:g} s; process tree killed")
        if sup.timed_out == "overall":
            return RunResult(**base, ok=False, error_kind="timeout",
                             error=f"run exceeded {timeout if timeout is not None else self.default_timeout:g} s; process tree killed")
        if sup.handshake is None:
            return RunResult(**base, ok=False, error_kind="no_handshake",
                             error="the engine exited without printing the handshake line")
        if sup.exit_code != ExitCode.OK:
            kind, meaning = EXIT_MEANINGS.get(sup.exit_code, ("crashed", "the engine crashed"))  # type: ignore[call-overload]
            last = sup.tail[-1] if sup.tail else ""
            return RunResult(**base, ok=False, error_kind=kind,
                             error=f"{meaning} (exit code {sup.exit_code}); last log line: {last}")
        telemetry, kind, message = check_telemetry(request, out / TELEMETRY_FILE)
        if telemetry is None:
            return RunResult(**base, ok=False, error_kind=kind, error=message)
        frames = sorted(str(p) for p in (out / FRAMES_DIR).glob("*.png")) if (out / FRAMES_DIR).is_dir() else []
        return RunResult(**base, ok=True, telemetry=telemetry,
                         telemetry_path=str(out / TELEMETRY_FILE), frames=frames)

    @abstractmethod
    def check(self) -> EnvironmentStatus: ...

    @abstractmethod
    def capabilities(self) -> Capabilities: ...
