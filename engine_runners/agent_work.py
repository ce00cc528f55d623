"""What a build agent does with one run, and how its outputs travel back (issue 33 item 1).

A workflow's engine runs may go to build agents: Dask workers that declare what they have as
worker resources (``ue5=1``, ``unity=1``, the platform as ``linux=1`` / ``windows=1`` /
``macos=1``). The driving host sends the request *content-addressed*: the request's canonical
JSON, its output folder set to ``.`` (the bytes are the same on every host), and their sha256,
which the agent checks before it runs anything. :func:`run_on_agent` is the task: a plain
module-level function that runs the named engine with the **agent's own** registry and
configuration (``GCV_UE_HARNESS``, ``GCV_UNITY_PLAYER``, ... of the worker's environment) into a
temporary folder, and returns a :class:`Parcel`: the runner's result (paths relative to the
run folder), the bytes of ``telemetry.json``, ``run.log`` and each frame with their sha256, and
who ran it. The driver (:mod:`engine_runners.build_agents`) checks every hash before it writes
a file into the run's folder (:func:`unpack`); the loop records nothing it has not checked.

Nothing here imports ``distributed`` at module level: an agent needs it (it is a Dask worker),
but :func:`unpack` and the request's address are used by a driver that may not have it yet.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, ValidationError

from engine_runners.protocol import FRAMES_DIR, LOG_FILE, TELEMETRY_FILE, RunRequest, RunResult
from engine_runners.registry import UnknownEngineError, get_runner
from gcv.contract.base import GcvModel
from gcv.contract.canonical import canonical_bytes

PARCEL_ID = "gcv.agent_parcel/1"
AGENT_LOG_PREFIX = "[gcv-agent] "
MAX_FRAME_NAME = 64


class WorkerIdentity(GcvModel):
    """Who ran a request: the Dask worker, its host and platform, what it declared."""

    model_config = ConfigDict(extra="forbid")

    address: str | None = None
    name: str | None = None
    host: str
    platform: str = Field(description="sys.platform of the agent (linux, win32, darwin)")
    system: str = Field(description="platform.platform() of the agent")
    pid: int
    resources: dict[str, float] = Field(default_factory=dict)

    def words(self) -> str:
        declared = ",".join(f"{k}={v:g}" for k, v in sorted(self.resources.items())) or "none"
        return (f"worker {self.name or '?'} at {self.address or '(not a Dask worker)'} on host {self.host} "
                f"({self.platform}, {self.system}), resources {declared}")


class Parcel(GcvModel):
    """What an agent sends back for one request: the result, the files (bytes) and their sha256."""

    model_config = ConfigDict(extra="forbid")

    parcel: str = PARCEL_ID
    request_sha256: str
    result: dict[str, Any]
    files: dict[str, bytes] = Field(default_factory=dict, description="run-folder relative name -> bytes")
    sha256: dict[str, str] = Field(default_factory=dict, description="run-folder relative name -> sha256")
    worker: WorkerIdentity
    seconds: float = 0.0


class TransferError(Exception):
    """A parcel that cannot be trusted: a file's bytes do not match its hash, or the parcel is malformed."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def request_payload(request: RunRequest) -> tuple[bytes, str]:
    """The request as it travels (canonical JSON, output folder ``.``) and its sha256: the same
    request gives the same bytes on every host, so the address names the run, not the folder."""
    data = canonical_bytes(request.model_copy(update={"output_dir": "."}).model_dump(mode="json"))
    return data, sha256_hex(data)


def _identity() -> WorkerIdentity:
    address = name = None
    resources: dict[str, float] = {}
    try:
        from distributed import get_worker  # only on a Dask worker (a driver may run this in process)

        worker = get_worker()
        address, name = worker.address, str(worker.name)
        resources = {str(k): float(v) for k, v in (worker.state.total_resources or {}).items()}
    except (ImportError, ValueError, AttributeError):
        pass
    return WorkerIdentity(address=address, name=name, host=socket.gethostname(), platform=sys.platform,
                          system=platform.platform(), pid=os.getpid(), resources=resources)


def _relative(path: str | None, root: Path) -> str | None:
    if not path:
        return None
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def run_on_agent(engine: str, payload: bytes, payload_sha256: str, *, timeout: float | None = None,
                 deadline: float | None = None) -> dict[str, Any]:
    """The task a build agent runs: check the request's address, run it with this machine's
    runner for ``engine`` in a temporary folder, and return the parcel (as a plain dict, so the
    driver validates it as it validates any input)."""
    started = time.monotonic()
    me = _identity()

    def parcel(result: RunResult, files: dict[str, bytes]) -> dict[str, Any]:
        return Parcel(request_sha256=payload_sha256, result=result.model_dump(mode="json"), files=files,
                      sha256={k: sha256_hex(v) for k, v in files.items()}, worker=me,
                      seconds=round(time.monotonic() - started, 3)).model_dump(mode="python")

    def refuse(kind: str, message: str, run_id: str = "unknown") -> dict[str, Any]:
        return parcel(RunResult(run_id=run_id, engine=engine, ok=False, error_kind=kind,
                                error=f"on the build agent ({me.words()}): {message}"), {})

    if sha256_hex(payload) != payload_sha256:
        return refuse("transfer_corrupt", "the request's bytes do not match its sha256 (damaged on the way)")
    try:
        request = RunRequest.model_validate_json(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        return refuse("bad_request", f"the request is not a run request: {'.'.join(map(str, first['loc']))}: "
                                     f"{first['msg']}")
    try:
        runner = get_runner(engine)
    except UnknownEngineError as exc:
        return refuse("agent_misconfigured", str(exc), request.run_id)
    status = runner.check()
    if status.status != "available":  # the worker declared the resource but its engine cannot run
        return refuse("agent_misconfigured", f"it declares {engine} but its {engine} is {status.status}: "
                                             f"{status.reason}", request.run_id)
    folder = Path(tempfile.mkdtemp(prefix="gcv-agent-run-"))
    try:
        out = folder / "run"
        result = runner.run(request.model_copy(update={"output_dir": str(out)}), timeout=timeout, deadline=deadline)
        files: dict[str, bytes] = {}
        log = out / LOG_FILE
        text = log.read_bytes() if log.is_file() else b""
        files[LOG_FILE] = text + (AGENT_LOG_PREFIX + f"ran on {me.words()}\n").encode()
        telemetry = out / TELEMETRY_FILE
        if result.ok and telemetry.is_file():
            files[TELEMETRY_FILE] = telemetry.read_bytes()
        frames = []
        for path in result.frames:
            rel = _relative(path, out)
            if rel is None or not rel.startswith(FRAMES_DIR + "/") or len(rel) > MAX_FRAME_NAME:
                return refuse("agent_error", f"the runner named a frame outside its run folder: {path}",
                              request.run_id)
            files[rel] = (out / rel).read_bytes()
            frames.append(rel)
        relative = result.model_copy(update={"frames": frames,
                                             "telemetry_path": _relative(result.telemetry_path, out),
                                             "log_path": LOG_FILE})
        return parcel(relative, files)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def unpack(raw: Any, request: RunRequest, payload_sha256: str) -> Parcel:
    """The parcel an agent returned, validated, with every file's sha256 checked; TransferError
    names what is wrong. Nothing is written here."""
    try:
        parcel = Parcel.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise TransferError(f"the agent's answer is not a parcel: {'.'.join(map(str, first['loc']))}: "
                            f"{first['msg']}") from None
    if parcel.parcel != PARCEL_ID:
        raise TransferError(f"the agent answered {parcel.parcel!r}, not {PARCEL_ID}")
    if parcel.request_sha256 != payload_sha256:
        raise TransferError(f"the agent answered request {parcel.request_sha256[:12]}..., not "
                            f"{payload_sha256[:12]}...")
    if set(parcel.files) != set(parcel.sha256):
        raise TransferError("the agent's files and their hashes do not name the same files")
    for name, data in sorted(parcel.files.items()):
        parts = Path(name).parts
        if (name not in (TELEMETRY_FILE, LOG_FILE) and not (len(parts) == 2 and parts[0] == FRAMES_DIR
                                                            and parts[1].endswith(".png"))) or ".." in parts:
            raise TransferError(f"the agent sent a file GCV does not take: {name!r}")
        if sha256_hex(data) != parcel.sha256[name]:
            raise TransferError(f"{name} arrived damaged: its bytes hash to {sha256_hex(data)[:12]}..., the agent "
                                f"sent {parcel.sha256[name][:12]}...")
    try:
        RunResult.model_validate(parcel.result)
    except ValidationError as exc:
        raise TransferError(f"the agent's result is not a run result: {exc.errors()[0]['msg']}") from None
    if parcel.result.get("run_id") not in (request.run_id, "unknown"):
        raise TransferError(f"the agent answered run {parcel.result.get('run_id')!r}, not {request.run_id!r}")
    return parcel


__all__ = ["AGENT_LOG_PREFIX", "Parcel", "TransferError", "WorkerIdentity", "request_payload", "run_on_agent",
           "sha256_hex", "unpack"]
