"""The engine-bridge file protocol ``gcv.run_protocol/1``, spoken by every engine.

A run request (JSON file) goes in; ``telemetry.json``, optional ``frames/tick_NNNNNN.png``
and ``run.log`` come out in the request's output directory. Every engine prints, first
thing, one handshake line on stdout::

    GCV-HANDSHAKE {"protocol":"gcv.run_protocol/1","engine":"python-sim","run_id":"..."}

and, last thing, ``GCV-DONE {"status":"completed","telemetry":"telemetry.json"}``.
Exit codes are fixed (``ExitCode``); a timeout is the runner's call (it kills the process
tree). Outputs are written to a temporary name and renamed, so a reader never sees half
a file.
"""

from __future__ import annotations

import enum
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

PROTOCOL_ID = "gcv.run_protocol/1"
RUN_REQUEST_ID = "gcv.run_request/1"
HANDSHAKE_PREFIX = "GCV-HANDSHAKE "
DONE_PREFIX = "GCV-DONE "
TELEMETRY_FILE = "telemetry.json"
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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ScriptedPlayer(_Strict):
    kind: Literal["scripted"]


class BotPlayer(_Strict):
    kind: Literal["bot"]
    skill: Literal["novice", "average", "expert"]


class InputsPlayer(_Strict):
    kind: Literal["inputs"]
    trace: dict[str, Any]


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
    capture_ticks: list[int] = Field(default_factory=list, max_length=64)
    output_dir: str = Field(min_length=1)

    @field_validator("program", mode="before")
    @classmethod
    def _check_program(cls, value: Any) -> Any:
        """Validate against the SimProgram model but keep the exact JSON (it is hashed)."""
        from gcv.sim.program_model import SimProgram

        SimProgram.model_validate(value)
        for i, phase in enumerate(value["phases"]):
            for j, slot in enumerate(phase["slots"]):
                if len(slot) != 3 or slot[2] not in (1, -1) or not 0 <= slot[1] <= (1 << 24):
                    raise ValueError(f"phases[{i}].slots[{j}] must be [offset, speed >= 0, sign +1/-1]")
        return value

    @field_validator("capture_ticks")
    @classmethod
    def _check_capture(cls, value: list[int]) -> list[int]:
        if any(t < 0 or t > 36000 for t in value):
            raise ValueError("capture ticks must be within 0..36000")
        return value


class RunResult(BaseModel):
    """What a runner returns to the workflow (never raised through: errors are recorded)."""

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
    log_path: str | None = None
    duration_ms: int = 0
    handshake: dict[str, Any] | None = None


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


def frame_name(tick: int) -> str:
    return f"tick_{tick:06d}.png"
