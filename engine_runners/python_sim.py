"""The python-sim engine: the reference simulator behind the engine-bridge protocol.

Two modes with identical results: ``inprocess`` (fast; used by CI and batches) and
``subprocess`` (``python -m engine_runners.python_sim --request FILE``), which speaks the
exact file protocol the Unity and UE5 engines speak, so the supervision code paths are
exercised without an engine installed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import gcv
from engine_runners.base import (Capabilities, EnvironmentStatus, Plan, SubprocessRunner,
                                 check_telemetry, write_json_atomic)
from engine_runners.protocol import (FRAMES_DIR, TELEMETRY_FILE, ExitCode, RunRequest,
                                     RunResult, done_line, error_line, frame_name, handshake_line)
from gcv.contract.loading import GcvInputError, parse_json_text
from gcv.sim.engine import Simulation
from gcv.sim.program import program_hash
from gcv.simio.render import write_frame
from gcv.sim.telemetry import build_telemetry

ENGINE = "python-sim"


class RequestError(Exception):
    def __init__(self, code: ExitCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class _DuplicateKey(Exception):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Every key once per object: the C# and C++ readers refuse a repeated key too (each used
    to keep the last value, so a request could say two things and mean the second)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _duplicate_key_message(text: str, key: str) -> str:
    """The contract's words for a repeated key, with its line and column (gcv.contract.loading)."""
    try:
        parse_json_text(text, "request")
    except GcvInputError as exc:
        return exc.message
    return f"duplicate key {json.dumps(key, ensure_ascii=False)} (each key may appear once per object)"


def load_request(path: Path) -> RunRequest:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RequestError(ExitCode.BAD_REQUEST, f"cannot read request {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise RequestError(ExitCode.BAD_REQUEST, f"request {path} is not UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text, object_pairs_hook=_unique_pairs)
    except json.JSONDecodeError as exc:
        raise RequestError(ExitCode.BAD_REQUEST,
                           f"request {path} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except _DuplicateKey as exc:
        raise RequestError(ExitCode.BAD_REQUEST,
                           f"request {path}: {_duplicate_key_message(text, str(exc.args[0]))}") from None
    try:
        return RunRequest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "$"
        raise RequestError(ExitCode.BAD_REQUEST,
                           f"request {path}: field {where}: {first['msg']}") from None


def check_hashes(request: RunRequest) -> None:
    """The request's program and config hashes must be its program's. Raises RequestError."""
    if program_hash(request.program) != request.program_hash:
        raise RequestError(ExitCode.HASH_MISMATCH,
                           "program_hash does not match the program (sha256 of its canonical JSON)")
    if request.program.get("config_hash") != request.config_hash:
        raise RequestError(ExitCode.HASH_MISMATCH, "config_hash does not match program.config_hash")


def execute(request: RunRequest, *, write_outputs: bool = True) -> tuple[dict[str, Any], list[str]]:
    """Run a validated request; returns (telemetry, frame paths). Raises RequestError."""
    check_hashes(request)
    out = Path(request.output_dir)
    if write_outputs and not out.is_dir():
        raise RequestError(ExitCode.OUTPUT_ERROR, f"output directory {out} does not exist")
    started = time.perf_counter()
    try:
        sim = Simulation(request.program, request.player.model_dump(), known_program_hash=request.program_hash)
        result = sim.run(seed=request.seed, capture_ticks=tuple(request.capture_ticks))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RequestError(ExitCode.BAD_REQUEST, f"program is malformed: {type(exc).__name__}: {exc}") from None
    telemetry = build_telemetry(sim, run_id=request.run_id)
    telemetry["player"] = request.player_label
    telemetry["wall_time_ms"] = int((time.perf_counter() - started) * 1000)
    frames: list[str] = []
    if write_outputs:
        try:
            if result.snapshots:
                (out / FRAMES_DIR).mkdir(exist_ok=True)
                for snap in result.snapshots:
                    path = out / FRAMES_DIR / frame_name(snap.tick)
                    write_frame(path, request.program, snap)
                    frames.append(str(path))
            write_json_atomic(out / TELEMETRY_FILE, telemetry)
        except OSError as exc:
            raise RequestError(ExitCode.OUTPUT_ERROR, f"cannot write outputs to {out}: {exc.strerror}") from None
    return telemetry, frames


class PythonSimRunner(SubprocessRunner):
    """python-sim; ``mode="inprocess"`` skips the process but keeps every check."""

    name = ENGINE
    startup_budget = 20.0
    liveness_timeout = 120.0
    default_timeout = 300.0

    def __init__(self, mode: str = "inprocess") -> None:
        if mode not in ("inprocess", "subprocess"):
            raise ValueError(f"mode must be 'inprocess' or 'subprocess', not {mode!r}")
        self.mode = mode

    def capabilities(self) -> Capabilities:
        return Capabilities(renders_frames=True, measures_frame_times=False,
                            out_of_process=self.mode == "subprocess", implementation="python",
                            description="reference fixed-point simulator; frame times are modeled")

    def check(self) -> EnvironmentStatus:
        return EnvironmentStatus(ENGINE, "available", f"built in (gcv {gcv.__version__}, {self.mode})",
                                 {"python": sys.version.split()[0], "mode": self.mode})

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        return [sys.executable, "-m", "engine_runners.python_sim", "--request", str(request_path)]

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[1])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        return env

    def plan(self, request: RunRequest) -> Plan:
        """python-sim draws its own frames (it is the reference renderer)."""
        return Plan(ENGINE, "model", True, request, [])

    def run(self, request: RunRequest, *, timeout: float | None = None, deadline: float | None = None) -> RunResult:
        if self.mode == "subprocess":
            return super().run(request, timeout=timeout, deadline=deadline)
        if deadline is not None and time.time() >= deadline:
            return RunResult(run_id=request.run_id, engine=ENGINE, ok=False, error_kind="deadline",
                             error="the deadline had passed before the run started", phase="launch")
        started = time.perf_counter()
        out = Path(request.output_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
            telemetry, frames = execute(request)
        except RequestError as exc:
            return RunResult(run_id=request.run_id, engine=ENGINE, ok=False, exit_code=int(exc.code),
                             error_kind=ExitCode(exc.code).name.lower(), error=str(exc),
                             duration_ms=int((time.perf_counter() - started) * 1000))
        except OSError as exc:
            return RunResult(run_id=request.run_id, engine=ENGINE, ok=False, error_kind="output_error",
                             error=f"cannot prepare {out}: {exc.strerror}")
        checked, kind, message = check_telemetry(request, out / TELEMETRY_FILE)
        if checked is None:  # pragma: no cover - would be a simulator bug
            return RunResult(run_id=request.run_id, engine=ENGINE, ok=False, error_kind=kind, error=message)
        return RunResult(run_id=request.run_id, engine=ENGINE, ok=True, exit_code=0,
                         telemetry=telemetry, telemetry_path=str(out / TELEMETRY_FILE), frames=frames,
                         frames_source="engine" if frames else None,
                         duration_ms=int((time.perf_counter() - started) * 1000))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine_runners.python_sim",
                                     description="Run one gcv.run_request/1 file with the python-sim engine.")
    parser.add_argument("--request", required=True, type=Path, help="run request JSON file")
    args = parser.parse_args(argv)
    run_id = "unknown"
    try:
        run_id = str(json.loads(args.request.read_text(encoding="utf-8")).get("run_id", "unknown"))
    except Exception:  # noqa: BLE001 - the handshake must come first whatever the file holds
        pass
    print(handshake_line(ENGINE, run_id, gcv.__version__), flush=True)
    try:
        request = load_request(args.request)
        telemetry, frames = execute(request)
    except RequestError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        print(error_line(exc.code, str(exc)), flush=True)
        return int(exc.code)
    except Exception as exc:  # noqa: BLE001 - report, never a traceback into the log
        message = f"internal: {type(exc).__name__}: {exc}"
        print(f"error: {message}", file=sys.stderr, flush=True)
        print(error_line(ExitCode.INTERNAL_ERROR, message), flush=True)
        return int(ExitCode.INTERNAL_ERROR)
    print(f"wrote {TELEMETRY_FILE} and {len(frames)} frame(s)", flush=True)
    print(done_line(telemetry["status"]), flush=True)
    return int(ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
