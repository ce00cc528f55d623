"""The batch spec (``gcv.batch/1``): what a build machine runs, written as one TOML file.

Example (every field but ``configs`` is optional)::

    batch = "gcv.batch/1"
    name = "nightly population"
    configs = ["../artifacts/baselines/shrine_trial.json", "baseline:active", "baseline:v2"]
    seeds = { start = 0, count = 16 }          # or a list [1, 2, 3], or a count: 16 = seeds 0..15
    players = ["scripted", { bot = "average", seeds = 64 }, "bot:expert", "inputs:traces/p1.json"]
    engines = ["python-sim"]
    capture_ticks = []
    timeout_seconds = 600
    retries = 1
    output = "out/nightly"

    [[gate]]
    fail_if = "survival_rate < 0.9"
    players = ["bot:average"]

Paths are relative to the spec file. ``baseline:vN`` / ``baseline:active`` name versions of
the baseline registry; the caller passes a resolver (the CLI uses the workspace registry),
so this module never reaches up into the workflow layer. A player's own ``seeds`` replaces
the batch's seeds for that player. Seeds are a list, ``{start, count}`` or a count N
(seeds 0..N-1).

Loading never raises a traceback at a user: every problem is a :class:`BatchSpecError`
that names the spec file, the field and, for numbers and lists, the allowed range.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable, Final, Literal, Union

from pydantic import (AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError,
                      field_validator, model_validator)
from pydantic_core import ErrorDetails

from gcv.contract.base import GcvModel
from engine_runners.registry import runner_names
from gcv.batch.gate import GateRule, GateSyntaxError, parse_condition
from gcv.contract.schema_form import model_schema
from gcv.contract.loading import GcvInputError, json_path, load_config, read_input_text
from gcv.sim.players import PlayerSpecError, parse_player, player_label
from gcv.sim.program import compile_program
from gcv.store.paths import workspace_root
from gcv.validation.validate import validate

BATCH_ID: Final = "gcv.batch/1"
SPEC_SCHEMA_FILE = "batch_spec.schema.json"
MAX_SEED = (1 << 63) - 1
MAX_SEEDS = 100_000          # seeds per list or range
MAX_CELLS = 1_000_000        # configs x players x seeds x engines
MAX_CONFIGS = 256
MAX_PLAYERS = 64
MAX_ENGINES = 8
MAX_RETRIES = 10
MAX_TIMEOUT = 86_400.0
MAX_CAPTURE_TICK = 36_000
BOT_SKILLS = ("novice", "average", "expert")
BASELINE_REF = re.compile(r"^baseline:(?:v(?P<version>[1-9][0-9]{0,5})|active)$")

# The allowed range of every bounded field, by its name (quoted in error messages).
ALLOWED: dict[str, str] = {
    "start": f"0..{MAX_SEED}",
    "count": f"1..{MAX_SEEDS}",
    "seeds": f"a count 1..{MAX_SEEDS}, a list of 1..{MAX_SEEDS} seeds in 0..{MAX_SEED}, "
             f"or {{start, count}} with count 1..{MAX_SEEDS}",
    "configs": f"1..{MAX_CONFIGS} entries: paths or baseline:vN / baseline:active",
    "players": f"1..{MAX_PLAYERS} entries: 'scripted', 'bot:<{'|'.join(BOT_SKILLS)}>', 'inputs:<file>', "
               "{bot = SKILL, seeds = ...} or {player = '...', seeds = ...}",
    "bot": " | ".join(BOT_SKILLS),
    "engines": f"1..{MAX_ENGINES} engine names",
    "capture_ticks": f"at most 64 ticks in 0..{MAX_CAPTURE_TICK}",
    "timeout_seconds": f"more than 0, at most {MAX_TIMEOUT:g}",
    "retries": f"0..{MAX_RETRIES}",
    "gate": "a list of {fail_if = '...', players = [...], configs = [...]}",
}


class BatchSpecError(GcvInputError):
    """A batch spec that cannot be used: the file, the field (JSON path) and what is allowed."""


class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid", strict=True)


SeedValue = Annotated[int, Field(ge=0, le=MAX_SEED)]


class SeedRange(_Strict):
    """``count`` consecutive seeds from ``start``."""

    start: int = Field(0, ge=0, le=MAX_SEED)
    count: int = Field(ge=1, le=MAX_SEEDS)

    @model_validator(mode="after")
    def _fits(self) -> "SeedRange":
        if self.start + self.count - 1 > MAX_SEED:
            raise ValueError(f"start + count - 1 must stay within {MAX_SEED}")
        return self


def _shape_tag(value: Any) -> str | None:
    """Tagged unions keep error messages to the one shape the author meant."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "<count>"
    if isinstance(value, (list, tuple)):
        return "<list>"
    if isinstance(value, (dict, SeedRange)):
        return "<range>"
    return None


SeedList = Annotated[list[SeedValue], Field(min_length=1, max_length=MAX_SEEDS)]
Seeds = Annotated[
    Union[Annotated[int, Field(ge=1, le=MAX_SEEDS), Tag("<count>")], Annotated[SeedList, Tag("<list>")],
          Annotated[SeedRange, Tag("<range>")]],
    Discriminator(_shape_tag, custom_error_type="seeds_shape",
                  custom_error_message="seeds must be a count N (seeds 0..N-1), a list of seeds or a table "
                                       "{start, count}"),
]
PlayerSeeds = Seeds


def _check_player_text(text: str) -> str:
    if text == "scripted":
        return text
    if text.startswith("bot:"):
        if text[4:] not in BOT_SKILLS:
            raise ValueError(f"unknown bot skill {text[4:]!r}; allowed: {', '.join(BOT_SKILLS)}")
        return text
    if text.startswith("inputs:"):
        if not text[7:].strip():
            raise ValueError("inputs: needs a trace file, e.g. 'inputs:traces/playtest.json'")
        return text
    raise ValueError(f"unknown player {text!r}; use 'scripted', 'bot:<{'|'.join(BOT_SKILLS)}>' "
                     "or 'inputs:<file>'")


PlayerText = Annotated[str, Field(min_length=1, max_length=1000), AfterValidator(_check_player_text)]


class BotPlayerEntry(_Strict):
    """A bot population: ``{bot = "average", seeds = 64}``."""

    bot: Literal["novice", "average", "expert"]
    seeds: PlayerSeeds | None = None


class PlayerEntry(_Strict):
    """Any player with its own seeds: ``{player = "inputs:p1.json", seeds = [1]}``."""

    player: PlayerText
    seeds: PlayerSeeds | None = None


def _player_tag(value: Any) -> str | None:
    if isinstance(value, (dict, BotPlayerEntry, PlayerEntry)):
        is_bot = isinstance(value, BotPlayerEntry) or (isinstance(value, dict) and "bot" in value)
        return "<bot>" if is_bot else "<table>"
    if isinstance(value, str):
        return "<text>"
    return None


PlayerItem = Annotated[
    Union[Annotated[PlayerText, Tag("<text>")], Annotated[BotPlayerEntry, Tag("<bot>")],
          Annotated[PlayerEntry, Tag("<table>")]],
    Discriminator(_player_tag, custom_error_type="player_shape",
                  custom_error_message="a player is a string ('scripted', 'bot:average', 'inputs:FILE') "
                                       "or a table {bot = SKILL, seeds = ...} / {player = '...', seeds = ...}"),
]


class GateEntry(_Strict):
    """A failure condition (the ``--fail-if`` grammar), optionally for some groups only."""

    fail_if: str = Field(min_length=1, max_length=500, description="e.g. 'survival_rate < 0.9'")
    players: list[str] | None = Field(None, min_length=1, max_length=MAX_PLAYERS,
                                      description="player labels (scripted, bot:average, ...); default all")
    configs: list[str] | None = Field(None, min_length=1, max_length=MAX_CONFIGS,
                                      description="entries of `configs` as written, or config hashes; default all")

    @field_validator("fail_if")
    @classmethod
    def _parses(cls, value: str) -> str:
        try:
            parse_condition(value)
        except GateSyntaxError as exc:
            raise ValueError(f"{exc.reason} (at character {exc.position + 1} of {value!r})") from None
        return value


def _default_players() -> list[PlayerItem]:
    return ["scripted"]


class BatchSpec(_Strict):
    """A build machine's batch: every config x player x seed x engine is one cell."""

    batch: Literal["gcv.batch/1"] = BATCH_ID
    name: str | None = Field(None, max_length=200)
    configs: list[Annotated[str, Field(min_length=1, max_length=1000)]] = Field(
        min_length=1, max_length=MAX_CONFIGS,
        description="config files (relative to the spec) or baseline:vN / baseline:active")
    seeds: Seeds = Field(default_factory=lambda: [0],
                         description="the seeds every player runs (unless it has its own)")
    players: list[PlayerItem] = Field(default_factory=_default_players, min_length=1,
                                      max_length=MAX_PLAYERS)
    engines: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=lambda: ["python-sim"], min_length=1, max_length=MAX_ENGINES)
    capture_ticks: list[Annotated[int, Field(ge=0, le=MAX_CAPTURE_TICK)]] = Field(
        default_factory=list, max_length=64, description="ticks to save frames at (every run)")
    timeout_seconds: float = Field(600.0, gt=0, le=MAX_TIMEOUT,
                                   description="per run, for out-of-process engines")
    retries: int = Field(1, ge=0, le=MAX_RETRIES, description="extra attempts for a run that errors")
    fair_fight: bool = Field(False, description="also run the fair-fight analysis once per config (at the first "
                                                "seed): its verdict and minimum safe area go into the summary")
    output: str | None = Field(None, min_length=1, max_length=1000,
                               description="output folder (relative to the spec); "
                                           "default <workspace>/batches/<spec name>")
    gate: list[GateEntry] = Field(default_factory=list, max_length=64)

    @field_validator("configs")
    @classmethod
    def _configs(cls, value: list[str]) -> list[str]:
        for i, entry in enumerate(value):
            if entry.startswith("baseline:") and not BASELINE_REF.match(entry):
                raise ValueError(f"configs[{i}] {entry!r}: write baseline:vN (N >= 1) or baseline:active")
        dupes = sorted({e for e in value if value.count(e) > 1})
        if dupes:
            raise ValueError(f"listed more than once: {', '.join(dupes)}")
        return value

    @field_validator("engines")
    @classmethod
    def _engines(cls, value: list[str]) -> list[str]:
        known = runner_names()
        for name in value:
            if name not in known:
                raise ValueError(f"unknown engine {name!r}; registered here: {', '.join(known)}")
        if len(set(value)) != len(value):
            raise ValueError("an engine is listed more than once")
        return value


# --- loading ------------------------------------------------------------------------------

def _explain(error: ErrorDetails) -> tuple[str, str]:
    """(JSON path, message with the allowed range) of one pydantic error."""
    # drop the union tags and validator wrappers pydantic inserts into the location
    clean: list[str | int] = [part for part in error["loc"]
                              if not (isinstance(part, str) and part.startswith(("<", "function-")))]
    names = [p for p in clean if isinstance(p, str)]
    message = error["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    if error["type"] == "extra_forbidden":
        message = f"unknown field {names[-1]!r}" if names else "unknown field"
        parent = names[-2] if len(names) > 1 else None
        allowed = _fields_of(parent)
        if allowed:
            message += f"; allowed fields: {', '.join(allowed)}"
    elif error["type"] not in ("value_error", "assertion_error"):
        # custom validators already say what is allowed; type and range errors get the range
        if "input" in error and error["type"] != "missing":
            shown = repr(error["input"])
            if len(shown) <= 60:
                message = f"{shown}: {message}"
        leaf = next((n for n in reversed(names) if n in ALLOWED), None)
        if leaf is not None:
            message += f" (allowed: {ALLOWED[leaf]})"
    return json_path(clean), message


def _fields_of(parent: str | None) -> list[str]:
    models: dict[str | None, type[BaseModel]] = {None: BatchSpec, "gate": GateEntry, "seeds": SeedRange}
    model = models.get(parent)
    return list(model.model_fields) if model is not None else []


def parse_spec(data: Any, file: str) -> BatchSpec:
    """Validate spec data (already parsed from TOML) or raise :class:`BatchSpecError`."""
    if not isinstance(data, dict):
        raise BatchSpecError(file, "a batch spec is a TOML table of fields")
    try:
        spec = BatchSpec.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        path, message = _explain(errors[0])
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        raise BatchSpecError(file, f"field {path[2:] or '$'}: {message}{more}", path) from None
    cells = len(spec.configs) * len(spec.engines) * sum(len(player_seeds(spec, i)) for i in range(len(spec.players)))
    if cells > MAX_CELLS:
        raise BatchSpecError(file, f"the matrix has {cells} cells; at most {MAX_CELLS} per batch "
                                   "(split it into several specs)", "$")
    return spec


def load_spec(path: str | os.PathLike[str]) -> BatchSpec:
    """Read and validate a TOML batch spec."""
    name = str(path)
    try:  # a regular file under the batch-spec cap (no FIFO, no /dev/zero), UTF-8
        text = read_input_text(path, "batch spec")
    except GcvInputError as exc:
        raise BatchSpecError(name, exc.message) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BatchSpecError(name, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise BatchSpecError(name, "not valid TOML: nested too deeply") from None
    return parse_spec(data, name)


def _seed_list(value: Any) -> list[int]:
    if isinstance(value, int):
        return list(range(value))
    if isinstance(value, SeedRange):
        return list(range(value.start, value.start + value.count))
    return list(value)


def player_seeds(spec: BatchSpec, index: int) -> list[int]:
    """The seeds player ``index`` runs: its own if it has them, else the batch's (deduplicated,
    in the order written)."""
    item = spec.players[index]
    own = getattr(item, "seeds", None)
    seeds = _seed_list(own if own is not None else spec.seeds)
    return list(dict.fromkeys(seeds))


def player_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, BotPlayerEntry):
        return f"bot:{item.bot}"
    return item.player


def batch_spec_schema() -> dict[str, Any]:
    """The committed JSON Schema of the batch spec (TOML maps onto JSON one to one)."""

    return model_schema(BatchSpec, SPEC_SCHEMA_FILE)


# --- resolving: files, registry versions, players -----------------------------------------

@dataclass
class ResolvedConfig:
    entry: str              # as written in the spec
    label: str              # short name for tables (file stem or baseline:vN)
    config_hash: str
    program: dict[str, Any]
    source: str             # the file read, or the registry version
    config: Any = None      # the validated BulletHellConfig (the fair-fight analysis reads it)


@dataclass
class ResolvedPlayer:
    entry: str
    label: str              # telemetry player label (scripted, bot:average, inputs:<hash>)
    spec: dict[str, Any]    # the run request's player object
    seeds: list[int]


@dataclass
class ResolvedBatch:
    spec: BatchSpec
    spec_path: Path
    configs: list[ResolvedConfig]
    players: list[ResolvedPlayer]
    output_dir: Path
    gate_rules: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


BaselineResolver = Callable[[str], tuple[Any, str]]  # "baseline:v2" -> (BulletHellConfig, source)


def _config_from_file(path: Path, spec_file: str, where: str) -> Any:
    try:
        return load_config(path)
    except GcvInputError as exc:
        raise BatchSpecError(spec_file, f"field {where}: config {exc.file}: {exc.message}",
                             f"$.{where}") from None


def _check_config(config: Any, spec_file: str, where: str, source: str) -> None:
    """A batch runs only configs that pass all four validation layers (as ``gcv sim`` does)."""

    report = validate(config, config)
    if not report.ok:
        first = report.errors[0]
        raise BatchSpecError(spec_file, f"field {where}: config {source} does not validate: "
                                        f"{first.rule_id} {first.path}: {first.message} "
                                        f"({len(report.errors)} issue(s); see `gcv validate`)", f"$.{where}")


def resolve_spec(spec: BatchSpec, spec_path: str | os.PathLike[str], *,
                 baseline_resolver: BaselineResolver | None = None,
                 output_root: Path | None = None) -> ResolvedBatch:
    """Read every config and player file the spec names; compile the programs."""

    path = Path(spec_path)
    file = str(spec_path)
    base = path.resolve().parent
    configs: list[ResolvedConfig] = []
    notes: list[str] = []
    seen: dict[str, str] = {}
    entry_hash: dict[str, str] = {}
    for i, entry in enumerate(spec.configs):
        where = f"configs[{i}]"
        ref = BASELINE_REF.match(entry)
        if ref:
            if baseline_resolver is None:
                raise BatchSpecError(file, f"field {where}: {entry!r} needs the baseline registry, which is "
                                           "not available here; give a config file path", f"$.{where}")
            try:
                config, source = baseline_resolver(entry)
            except (KeyError, LookupError, ValueError, GcvInputError) as exc:
                raise BatchSpecError(file, f"field {where}: {entry!r}: {exc}", f"$.{where}") from None
            label = entry if entry != "baseline:active" else f"baseline:active ({source})"
        else:
            config_path = Path(entry) if Path(entry).is_absolute() else base / entry
            config = _config_from_file(config_path, file, where)
            source, label = str(config_path), Path(entry).stem
        _check_config(config, file, where, source)
        program = compile_program(config)
        digest = program["config_hash"]
        entry_hash[entry] = digest
        if digest in seen:
            notes.append(f"configs[{i}] {entry!r} is the same config as {seen[digest]!r}; it runs once")
            continue
        seen[digest] = entry
        configs.append(ResolvedConfig(entry, label, digest, program, source, config))
    stems = [c.label for c in configs]
    for c in configs:
        if stems.count(c.label) > 1:  # two files with one name in different folders
            c.label = c.entry
    players: list[ResolvedPlayer] = []
    labels: dict[str, str] = {}
    for i, item in enumerate(spec.players):
        text = player_text(item)
        try:
            player = parse_player(text, base_dir=base)
        except PlayerSpecError as exc:
            raise BatchSpecError(file, f"field players[{i}]: {exc}", f"$.players[{i}]") from None
        label = player_label(player)
        if label in labels:
            raise BatchSpecError(file, f"field players[{i}]: {text!r} is the same player as {labels[label]!r} "
                                       "(give it more seeds instead)", f"$.players[{i}]")
        labels[label] = text
        players.append(ResolvedPlayer(text, label, player, player_seeds(spec, i)))
    if spec.output:
        out = Path(spec.output)
        output_dir = out if out.is_absolute() else base / out
    else:

        output_dir = (output_root or workspace_root()) / "batches" / path.stem
    texts = {text: label for label, text in labels.items()}
    config_names: dict[str, str] = dict(entry_hash)
    for c in configs:
        config_names.update({c.label: c.config_hash, c.config_hash: c.config_hash})
    rules = []
    for i, gate in enumerate(spec.gate):
        player_filter: list[str] | None = None
        if gate.players is not None:
            player_filter = []
            for j, name in enumerate(gate.players):
                named = name if name in labels else texts.get(name)
                if named is None:
                    raise BatchSpecError(file, f"field gate[{i}].players[{j}]: {name!r} is not a player of "
                                               f"this batch; players: {', '.join(labels)}",
                                         f"$.gate[{i}].players[{j}]")
                player_filter.append(named)
        config_filter: list[str] | None = None
        if gate.configs is not None:
            config_filter = []
            for j, name in enumerate(gate.configs):
                if not config_names.get(name):
                    raise BatchSpecError(file, f"field gate[{i}].configs[{j}]: {name!r} is not a config of "
                                               f"this batch; configs: {', '.join(spec.configs)}",
                                         f"$.gate[{i}].configs[{j}]")
                config_filter.append(config_names[name])
        rules.append(GateRule(parse_condition(gate.fail_if),
                              tuple(player_filter) if player_filter is not None else None,
                              tuple(config_filter) if config_filter is not None else None,
                              origin=f"spec gate[{i}]"))
    return ResolvedBatch(spec, path, configs, players, output_dir.resolve(), rules, notes)


def load_batch(path: str | os.PathLike[str], *, baseline_resolver: BaselineResolver | None = None,
               output_root: Path | None = None) -> ResolvedBatch:
    """``load_spec`` + ``resolve_spec``: everything a run needs, or one BatchSpecError."""
    return resolve_spec(load_spec(path), path, baseline_resolver=baseline_resolver, output_root=output_root)
