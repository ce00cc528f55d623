"""The engine-bridge file protocol ``gcv.run_protocol/1``, spoken by every engine.

A run request (JSON file) goes in; ``telemetry.json``, optional ``frames/tick_NNNNNN.png``
and ``run.log`` come out in the request's output directory. Every engine prints, first
thing, one handshake line on stdout::

    GCV-HANDSHAKE {"protocol":"gcv.run_protocol/1","engine":"python-sim","run_id":"..."}

and, last thing, ``GCV-DONE {"status":"completed","telemetry":"telemetry.json"}``.
Two more lines (protocol additions, both optional for an engine; documented in
``docs/engines.md`` and ``schemas/run_protocol_lines.schema.json``):

* ``GCV-HEARTBEAT {"tick":1234}`` while simulating (the last tick simulated, at most about
  once a second): it resets the runner's liveness timer, and the tick is what a hung run's
  message reports;
* ``GCV-ERROR {"exit_code":3,"kind":"hash_mismatch","message":"..."}`` just before the
  engine exits with a protocol error code, so the runner never has to guess from a raw exit
  code (on Windows an ``abort()`` also exits 3).

Success is decided only from the handshake, ``GCV-DONE`` and schema-valid telemetry that
belongs to the request; the exit code is recorded and described, never trusted alone.
Exit codes are fixed (``ExitCode``); a timeout is the runner's call (it kills the process
tree). Outputs are written to a temporary name and renamed, so a reader never sees half
a file.
"""

from __future__ import annotations

import enum
import json
import re
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gcv.contract.base import GcvModel
from gcv.sim.program_model import SimProgram

PROTOCOL_ID: Final = "gcv.run_protocol/1"
RUN_REQUEST_ID: Final = "gcv.run_request/1"
HANDSHAKE_PREFIX = "GCV-HANDSHAKE "
DONE_PREFIX = "GCV-DONE "
HEARTBEAT_PREFIX = "GCV-HEARTBEAT "
ERROR_PREFIX = "GCV-ERROR "
TELEMETRY_FILE: Final = "telemetry.json"
LOG_FILE = "run.log"
FRAMES_DIR = "frames"
MAX_SEED = (1 << 63) - 1
RUN_ID_PATTERN = r"^[A-Za-z0-9_.\-]{1,80}$"


class ExitCode(enum.IntEnum):
    OK = 0
    INTERNAL_ERROR = 1
    BAD_REQUEST = 2
    HASH_MISMATCH = 3
    OUTPUT_ERROR = 4


class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ScriptedPlayer(_Strict):
    kind: Literal["scripted"]


class BotPlayer(_Strict):
    kind: Literal["bot"]
    skill: Literal["novice", "average", "expert"]


class InputsPlayer(_Strict):
    kind: Literal["inputs"]
    trace: dict[str, Any]


MAX_CAPTURE_TICKS = 64  # frames one run may capture (gcv sim --capture says so before running)


class RunRequest(_Strict):
    """What an engine is asked to run. ``program`` is the integer sim program."""

    run_request: Literal["gcv.run_request/1"] = RUN_REQUEST_ID
    run_id: str = Field(pattern=RUN_ID_PATTERN)
    program: dict[str, Any]  # validated against SimProgram below; kept as the exact JSON
    program_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    config_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    seed: int = Field(ge=0, le=MAX_SEED)
    player: ScriptedPlayer | BotPlayer | InputsPlayer = Field(discriminator="kind")
    player_label: str = Field(min_length=1, max_length=80)  # echoed as telemetry "player"
    capture_ticks: list[int] = Field(default_factory=list, max_length=MAX_CAPTURE_TICKS)
    output_dir: str = Field(min_length=1)

    @field_validator("program", mode="before")
    @classmethod
    def _check_program(cls, value: Any) -> Any:
        """Validate against the SimProgram model but keep the exact JSON (it is hashed). The model's
        slot ranges are the only ones: a second, narrower check here (speed >= 0, sign +-1) once
        refused programs the C# and C++ readers and the spec allow (issue 25.13)."""
        SimProgram.model_validate(value)
        return value

    @field_validator("capture_ticks")
    @classmethod
    def _check_capture(cls, value: list[int]) -> list[int]:
        if any(t < 0 or t > 36000 for t in value):
            raise ValueError("capture ticks must be within 0..36000")
        return value


class RunResult(GcvModel):
    """What a runner returns to the workflow (never raised through: errors are recorded).

    ``engine`` is what the runner was configured to run (``unity``, ``unity-editor``,
    ``unity-harness``, ``ue5``, ``ue5-commandlet``, ``ue5-harness``, ``python-sim``), never what
    the child process claims; a child that claims otherwise fails with ``protocol_error``.
    ``phase`` says where a failed run was (``launch``, ``startup``, ``import_compile``,
    ``simulation``, ``shutdown``); ``last_tick`` is the last heartbeat's tick.
    ``frames_source`` is ``engine`` (captured by the engine) or ``reference`` (drawn by the
    reference renderer because the engine could not render here), None without frames.
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    engine: str
    ok: bool
    exit_code: int | None = None
    error: str | None = None
    error_kind: str | None = None
    telemetry: dict[str, Any] | None = None
    telemetry_path: str | None = None
    frames: list[str] = Field(default_factory=list)
    frames_source: Literal["engine", "reference"] | None = None
    log_path: str | None = None
    duration_ms: int = 0
    handshake: dict[str, Any] | None = None
    phase: str | None = None
    last_tick: int | None = None
    notes: list[str] = Field(default_factory=list)


class HandshakePayload(GcvModel):
    """``GCV-HANDSHAKE {...}``: the first line an engine prints (stdout)."""

    model_config = ConfigDict(extra="allow")

    protocol: Literal["gcv.run_protocol/1"]
    engine: str = Field(min_length=1, max_length=64, description="who answered; must be the configured engine")
    version: str = Field(default="", max_length=64)
    run_id: str = Field(max_length=80)


class HeartbeatPayload(GcvModel):
    """``GCV-HEARTBEAT {...}``: proof of progress while simulating (resets the liveness timer)."""

    model_config = ConfigDict(extra="allow")

    tick: int = Field(ge=0, description="the last tick simulated")


class DonePayload(GcvModel):
    """``GCV-DONE {...}``: the last line of a successful run."""

    model_config = ConfigDict(extra="allow")

    status: Literal["completed", "died"]
    telemetry: Literal["telemetry.json"] = TELEMETRY_FILE


ERROR_KINDS = ("internal_error", "bad_request", "hash_mismatch", "output_error")
ERROR_MESSAGE_MAX = 4000


class ErrorPayload(GcvModel):
    """``GCV-ERROR {...}``: printed just before a protocol error exit (codes 1-4)."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["internal_error", "bad_request", "hash_mismatch", "output_error"]
    exit_code: int = Field(ge=1, le=4)
    message: str = Field(default="", max_length=ERROR_MESSAGE_MAX)


class ProtocolLines(GcvModel):
    """The payloads of the protocol's stdout lines (documentation and schema only)."""

    handshake: HandshakePayload
    heartbeat: HeartbeatPayload
    done: DonePayload
    error: ErrorPayload


def handshake_line(engine: str, run_id: str, version: str) -> str:
    payload = {"protocol": PROTOCOL_ID, "engine": engine, "version": version, "run_id": run_id}
    return HANDSHAKE_PREFIX + json.dumps(payload, sort_keys=True, separators=(",", ":"))


def done_line(status: str) -> str:
    payload = {"status": status, "telemetry": TELEMETRY_FILE}
    return DONE_PREFIX + json.dumps(payload, sort_keys=True, separators=(",", ":"))


_HANDSHAKE_RE = re.compile(r"GCV-HANDSHAKE (\{.*\})\s*$")


def parse_handshake(line: str) -> dict[str, Any] | None:
    """The handshake payload if ``line`` carries one (engines may prefix log noise)."""
    match = _HANDSHAKE_RE.search(line)
    if not match:
        return None
    try:
        payload = json.loads(match.group(1))
    except json.JSONDecodeError:
        return None
    if not isinstance(payload, dict) or payload.get("protocol") != PROTOCOL_ID:
        return None
    return payload


_LINE_RE = re.compile(r"(GCV-(?:HANDSHAKE|HEARTBEAT|DONE|ERROR)) (\{.*\})\s*$")
_LINE_MODELS: dict[str, type[BaseModel]] = {
    "GCV-HANDSHAKE": HandshakePayload, "GCV-HEARTBEAT": HeartbeatPayload,
    "GCV-DONE": DonePayload, "GCV-ERROR": ErrorPayload,
}


def parse_line(line: str) -> tuple[str, dict[str, Any]] | None:
    """(kind, payload) for a well-formed protocol line (any log prefix allowed), else None.

    ``kind`` is ``handshake``, ``heartbeat``, ``done`` or ``error``. A line whose payload does
    not match its model is not a protocol line (it is kept in the log, nothing more).
    """
    match = _LINE_RE.search(line)
    if not match:
        return None
    try:
        payload = json.loads(match.group(2))
    except json.JSONDecodeError:
        return None
    if not isinstance(payload, dict):
        return None
    if match.group(1) == "GCV-ERROR" and isinstance(payload.get("message"), str) \
            and len(payload["message"]) > ERROR_MESSAGE_MAX:
        # a long message is still the engine's own error: cut it, never call the run a crash
        payload = {**payload, "message": payload["message"][:ERROR_MESSAGE_MAX - 1] + "\u2026"}
    try:
        _LINE_MODELS[match.group(1)].model_validate(payload)
    except ValueError:
        return None
    return match.group(1)[4:].lower(), payload


_ERROR_CODE_RE = re.compile(r'"exit_code"\s*:\s*([1-4])\b')
_ERROR_KIND_RE = re.compile(r'"kind"\s*:\s*"(internal_error|bad_request|hash_mismatch|output_error)"')
_ERROR_MESSAGE_RE = re.compile(r'"message"\s*:\s*"((?:[^"\\]|\\.)*)')


def parse_cut_error(head: str, tail: str, left_out: int) -> dict[str, Any] | None:
    """The ``GCV-ERROR`` payload of a line too long to be kept whole, or None.

    The runner keeps the first bytes of such a line (``head``) and its last few (``tail``)
    and counts the rest (``left_out``), so its JSON no longer parses. The line is still the
    engine saying which error it had: the exit code and kind are read from what was kept
    (either end: an engine may print the message first), the message is the kept part of it.
    """
    if ERROR_PREFIX not in head:
        return None
    body = head[head.index(ERROR_PREFIX) + len(ERROR_PREFIX):]
    code = _ERROR_CODE_RE.search(body) or _ERROR_CODE_RE.search(tail)
    kind = _ERROR_KIND_RE.search(body) or _ERROR_KIND_RE.search(tail)
    if code is None and kind is None:
        return None
    if code is not None:
        exit_code = int(code.group(1))
    else:
        assert kind is not None  # neither found returned above
        exit_code = int(ExitCode[kind.group(1).upper()])
    name = kind.group(1) if kind else ExitCode(exit_code).name.lower()
    found = _ERROR_MESSAGE_RE.search(body)
    text = found.group(1) if found else ""
    note = f" [gcv: this GCV-ERROR line was cut, {left_out} bytes left out]"
    return {"exit_code": exit_code, "kind": name,
            "message": text[:ERROR_MESSAGE_MAX - len(note)] + note}


def heartbeat_line(tick: int) -> str:
    return HEARTBEAT_PREFIX + json.dumps({"tick": tick}, separators=(",", ":"))


def error_line(code: "ExitCode", message: str) -> str:
    payload = {"exit_code": int(code), "kind": ExitCode(code).name.lower(), "message": message[:4000]}
    return ERROR_PREFIX + json.dumps(payload, sort_keys=True, separators=(",", ":"))


def frame_name(tick: int) -> str:
    return f"tick_{tick:06d}.png"
