"""Player specifications and the inputs-trace format.

Three players drive the same fight: ``scripted`` (a fixed Lissajous path; the regression
baseline), ``bot:<skill>`` (a seeded dodging policy) and ``inputs`` (a recorded per-tick
trace, so a playtest recorded in an engine replays everywhere). The per-tick behaviour
lives in ``gcv.sim.engine``; this module only parses and names them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from gcv.contract.base import GcvModel
from gcv.contract.canonical import content_hash
from gcv.contract.loading import GcvInputError, load_json_file
from gcv.sim.program import BOT_SKILLS

INPUTS_FORMAT = "gcv.inputs/1"
MAX_TRACE_TICKS = 600 * 60
BOT_SKILL_NAMES = tuple(BOT_SKILLS)


class InputsTrace(GcvModel):
    """Run-length encoded inputs: ``runs`` = [[ticks, dx, dy, focus], ...] from tick 0.

    dx, dy are -1, 0 or 1 (+y is up), focus is 0 or 1. After the last run the player
    stands still. ``source`` is free text (who recorded it, in which engine).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["gcv.inputs/1"]
    tick_hz: Literal[60]
    runs: list[list[int]] = Field(max_length=MAX_TRACE_TICKS)
    source: str = Field(default="", max_length=500)

    @field_validator("runs")
    @classmethod
    def _check_runs(cls, runs: list[list[int]]) -> list[list[int]]:
        total = 0
        for i, run in enumerate(runs):
            if len(run) != 4:
                raise ValueError(f"runs[{i}] must be [ticks, dx, dy, focus], got {len(run)} items")
            ticks, dx, dy, focus = run
            if not 1 <= ticks <= MAX_TRACE_TICKS:
                raise ValueError(f"runs[{i}][0] (ticks) = {ticks}; allowed 1..{MAX_TRACE_TICKS}")
            if dx not in (-1, 0, 1) or dy not in (-1, 0, 1):
                raise ValueError(f"runs[{i}] direction ({dx}, {dy}); each must be -1, 0 or 1")
            if focus not in (0, 1):
                raise ValueError(f"runs[{i}][3] (focus) = {focus}; allowed 0 or 1")
            total += ticks
        if total > MAX_TRACE_TICKS:
            raise ValueError(f"trace covers {total} ticks; at most {MAX_TRACE_TICKS}")
        return runs


class PlayerSpecError(ValueError):
    pass


def parse_player(text: str, *, base_dir: Path | None = None) -> dict[str, Any]:
    """``scripted`` | ``bot:SKILL`` | ``inputs:FILE`` -> the run request's player object."""
    if text == "scripted":
        return {"kind": "scripted"}
    if text.startswith("bot:"):
        skill = text[4:]
        if skill not in BOT_SKILLS:
            raise PlayerSpecError(
                f"unknown bot skill {skill!r}; allowed: {', '.join(BOT_SKILL_NAMES)}")
        return {"kind": "bot", "skill": skill}
    if text.startswith("inputs:"):
        path = Path(text[7:])
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        return {"kind": "inputs", "trace": load_trace(path).model_dump()}
    raise PlayerSpecError(
        f"unknown player {text!r}; use 'scripted', 'bot:<{'|'.join(BOT_SKILL_NAMES)}>' or 'inputs:<file>'")


def load_trace(path: Path) -> InputsTrace:
    try:  # a regular file under the inputs-trace cap, strict JSON (deep nesting refused, not a crash)
        data = load_json_file(path, "inputs trace")
    except GcvInputError as exc:
        where = f" (at {exc.path_in_doc})" if exc.path_in_doc else ""
        raise PlayerSpecError(f"cannot read inputs trace {path}: {exc.message}{where}") from None
    try:
        return InputsTrace.model_validate(data)
    except Exception as exc:  # pydantic.ValidationError
        raise PlayerSpecError(f"inputs trace {path} is invalid: {exc}") from None


def player_label(player: dict[str, Any]) -> str:
    """Stable name of a player for telemetry: no machine paths, so engines agree."""
    kind = player["kind"]
    if kind == "scripted":
        return "scripted"
    if kind == "bot":
        return f"bot:{player['skill']}"
    return "inputs:" + content_hash(player["trace"])[:12]


def expand_trace(trace: dict[str, Any]) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    for ticks, dx, dy, focus in trace["runs"]:
        out.extend([(dx, dy, focus)] * ticks)
    return out
