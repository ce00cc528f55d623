"""The sim program as a pydantic model: the source of schemas/sim_program.schema.json and of
the bounds every engine core enforces.

Every field is an integer, a boolean or a short ASCII string: engines never parse a
decimal. ``RunRequest`` validates its program with this model, so a malformed program is
refused with the field named before any engine starts.

The bounds below are the one table of program ranges: the C# and C++ cores read them from
generated files (``ProgramBounds.cs``, ``ProgramBounds.h``, written by ``gcv schema export``
from :func:`program_bounds`), so the three implementations accept exactly the same programs.
Python integers are unbounded, the cores use 64-bit integers; the bounds keep every
intermediate of a tick inside int64 (docs/simulation.md section 2):

  coordinates, radii, amplitudes  |v| <= 2^28   bullet and player positions stay < 2^29
  speeds (player, focus, slots)   |v| <= 2^20   lookahead * speed <= 2^28
  lookahead_ticks                 1..256        bot distances < 2^31, squared sums < 2^63
  clearance_cap                   1..2^50       reach^2 < 2^62
  rates                           |v| <= 2^32   t * rate < 2^48
  healths, damage                 <= 2^31 - 1   trigger_micro * max_health < 2^51
  frame model (us)                <= 10^6       per-tick frame time < 2^62 for any count

Every program GCV compiles from a valid config is far inside them (an arena of at most 100
units is 2^23 in Q16; a bullet at 12 units/s moves 13,107 per tick).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from annotated_types import Ge, Le, MaxLen, MinLen
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from gcv.contract.base import GcvModel
from gcv.contract.patterns import PATTERN_NAMES as _KIND_NAMES
from gcv.contract.patterns import PatternKind

COORD = 1 << 28
SPEED = 1 << 20
I31 = (1 << 31) - 1
TICKS = 36000  # ten minutes at 60 Hz: the longest fight the contract allows (600 s)

# [angle_offset, speed_q16_per_tick, rotation_sign] of one bullet slot
SLOT_BOUNDS: tuple[tuple[str, int, int], ...] = (
    ("angle_offset", -(1 << 40), 1 << 40),
    ("speed", -SPEED, SPEED),  # negative reverses the slot; the compiler writes none
    ("rotation_sign", -1, 1),
)


class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Arena(_Strict):
    half_width: int = Field(ge=1, le=COORD)
    half_height: int = Field(ge=1, le=COORD)
    despawn_x: int = Field(ge=1, le=COORD)
    despawn_y: int = Field(ge=1, le=COORD)


class ProgramPlayer(_Strict):
    max_health: int = Field(ge=1, le=99)
    speed: int = Field(ge=0, le=SPEED)
    focus_speed: int = Field(ge=0, le=SPEED)
    hit_radius: int = Field(ge=0, le=1 << 24)
    graze_radius: int = Field(ge=0, le=1 << 24)
    start_x: int = Field(ge=-COORD, le=COORD)
    start_y: int = Field(ge=-COORD, le=COORD)
    invulnerability_ticks: int = Field(ge=0, le=TICKS)
    auto_fire_damage: int = Field(ge=1, le=I31)
    auto_fire_interval_ticks: int = Field(ge=1, le=TICKS)


class ProgramBoss(_Strict):
    max_health: int = Field(ge=1, le=I31)
    x: int = Field(ge=-COORD, le=COORD)
    y: int = Field(ge=-COORD, le=COORD)


# A phase id: 1 to 32 of these characters (the pattern below says the same; a test holds the
# two equal). The cores check the characters from this string, generated into their tables.
PHASE_ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-"
PHASE_ID_PATTERN = r"^[a-z0-9_\-]+$"


# The pattern names; a phase's pattern_code is its name's index here (the compiler writes both,
# the cores read the names from this tuple, generated into their tables, and refuse a code that
# contradicts the name: issue 25.13).
# The names and codes are the registry's (gcv.contract.patterns).
PATTERN_NAMES: tuple[str, ...] = _KIND_NAMES


def pattern_code_message(code: int, pattern: str) -> str:
    """The one refusal of a pattern_code that is not its pattern's (the same words in all three readers)."""
    return (f"pattern_code {code} contradicts pattern '{pattern}' (whose code is {PATTERN_NAMES.index(pattern)}); "
            "the two must name the same pattern")


def duplicate_phase_id_message(phase_id: str, first: int, again: int) -> str:
    """The one refusal of a phase id used twice: the words of the config's rules.unique_phase_ids,
    in all three program readers."""
    return (f"phase id '{phase_id}' is used by phases {first} and {again}; goals, telemetry "
            "and repairs name phases by id, so each id must be unique")


class ProgramPhase(_Strict):
    phase_id: str = Field(min_length=1, max_length=32, pattern=PHASE_ID_PATTERN)
    trigger_micro: int = Field(ge=1, le=1_000_000)
    pattern: PatternKind
    pattern_code: int = Field(ge=0, le=len(PATTERN_NAMES) - 1)
    bullets_per_wave: int = Field(ge=1, le=64)
    wave_interval_ticks: int = Field(ge=1, le=TICKS)
    lifetime_ticks: int = Field(ge=1, le=TICKS)
    rotation_per_wave: int = Field(ge=-32768, le=32768)
    aim: bool
    scatter_span: int = Field(ge=0, le=65536)
    slots: list[list[int]] = Field(min_length=1, max_length=512,
                                   description="[angle_offset, speed_q16_per_tick, rotation_sign] per bullet")

    @field_validator("pattern_code")
    @classmethod
    def _code_is_the_patterns(cls, code: int, info: ValidationInfo) -> int:
        """A code that names another pattern than ``pattern`` is a contradiction no reader may
        resolve by picking one (the cores used to ignore the code, so every reader accepted it)."""
        pattern = info.data.get("pattern")  # absent when the name itself was refused
        if pattern is not None and code != PATTERN_NAMES.index(pattern):
            raise PydanticCustomError("pattern_code_mismatch", pattern_code_message(code, pattern))
        return code

    @field_validator("slots")
    @classmethod
    def _slot_ranges(cls, slots: list[list[int]]) -> list[list[int]]:
        for k, slot in enumerate(slots):
            if len(slot) != len(SLOT_BOUNDS):
                raise ValueError(f"slot {k} should be [angle_offset, speed, rotation_sign]")
            for value, (name, lo, hi) in zip(slot, SLOT_BOUNDS):
                if not lo <= value <= hi:
                    raise ValueError(f"slot {k} {name} should be between {lo} and {hi} (got {value})")
        return slots


class Skill(_Strict):
    reaction_ticks: int = Field(ge=1, le=600)
    lookahead_ticks: int = Field(ge=1, le=256)
    mistake_threshold: int = Field(ge=0, le=(1 << 32) - 1)


class Skills(_Strict):
    """The three bot skills; every program carries all three (a run names one)."""

    novice: Skill
    average: Skill
    expert: Skill


class Bot(_Strict):
    skills: Skills
    clearance_cap: int = Field(ge=1, le=1 << 50)
    home_shift: int = Field(ge=0, le=62)


class Scripted(_Strict):
    rate_x: int = Field(ge=-(1 << 32), le=1 << 32)  # negative reverses the sweep; the compiler writes none
    rate_y: int = Field(ge=-(1 << 32), le=1 << 32)
    amp_x: int = Field(ge=0, le=COORD)
    amp_y: int = Field(ge=0, le=COORD)


class FrameModel(_Strict):
    fixed_us: int = Field(ge=1, le=1_000_000)
    per_bullet_us: int = Field(ge=0, le=10_000)
    per_check_us: int = Field(ge=0, le=10_000)


class SimProgram(_Strict):
    program: Literal["gcv.sim_program/1"]
    config_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    tick_hz: Literal[60]
    duration_ticks: int = Field(ge=1, le=TICKS)
    arena: Arena
    player: ProgramPlayer
    boss: ProgramBoss
    phases: list[ProgramPhase] = Field(min_length=1, max_length=6)
    scripted: Scripted
    bot: Bot
    frame_model: FrameModel
    state_hash_interval: int = Field(ge=1, le=TICKS)

    @field_validator("phases")
    @classmethod
    def _unique_phase_ids(cls, phases: list[ProgramPhase]) -> list[ProgramPhase]:
        """Telemetry, goals and repairs name phases by id: two phases with one id would merge
        in every reader of the results (every engine used to run such a program)."""
        first: dict[str, int] = {}
        for i, phase in enumerate(phases):
            if phase.phase_id in first:
                error = PydanticCustomError("duplicate_phase_id",
                                            duplicate_phase_id_message(phase.phase_id, first[phase.phase_id], i))
                raise ValidationError.from_exception_data(
                    "SimProgram", [InitErrorDetails(type=error, loc=(i, "phase_id"), input=phase.phase_id)])
            first[phase.phase_id] = i
        return phases


# --- the bounds table the engine cores are generated from ------------------------------

@dataclass(frozen=True)
class Bound:
    """One inclusive integer range of the program; ``path`` as the cores name the field
    (``phases[].slots`` for a list's length, ``phases[].slots[][1]`` for a slot element)."""

    path: str
    lo: int
    hi: int


# Which list each nested model is found in (``phases[]``) or under (``bot.skills.NAME``).
_SECTIONS: tuple[tuple[str, type[BaseModel]], ...] = (
    ("", SimProgram), ("arena", Arena), ("player", ProgramPlayer), ("boss", ProgramBoss),
    ("phases[]", ProgramPhase), ("scripted", Scripted), ("bot", Bot), ("bot.skills", Skills),
    ("bot.skills[]", Skill), ("frame_model", FrameModel),
)


def program_keys() -> list[tuple[str, tuple[str, ...]]]:
    """The members each object of the program may have, by section (every one is required:
    no field of the program has a default). The cores refuse any other, as pydantic does."""
    return [(section, tuple(model.model_fields)) for section, model in _SECTIONS]


def program_bounds() -> list[Bound]:
    """Every integer range and list length of the program, read from the models above."""
    out: list[Bound] = []
    for section, model in _SECTIONS:
        for name, info in model.model_fields.items():
            path = f"{section}.{name}" if section else name
            lo = next((m.ge for m in info.metadata if isinstance(m, Ge)), None)
            hi = next((m.le for m in info.metadata if isinstance(m, Le)), None)
            if lo is not None and hi is not None:
                out.append(Bound(path, int(lo), int(hi)))  # type: ignore[call-overload]
            min_len = next((m.min_length for m in info.metadata if isinstance(m, MinLen)), None)
            max_len = next((m.max_length for m in info.metadata if isinstance(m, MaxLen)), None)
            if min_len is not None and max_len is not None:  # a list's length, or a string's (phase_id)
                out.append(Bound(path, min_len, max_len))
        if model is ProgramPhase:
            out.extend(Bound(f"phases[].slots[][{k}]", lo, hi) for k, (_, lo, hi) in enumerate(SLOT_BOUNDS))
    out.append(Bound("tick_hz", 60, 60))
    return out
