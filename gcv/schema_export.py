"""The JSON Schemas committed in ``schemas/``: one registry, one writer.

Each entry maps a file name to a builder that returns the schema as plain data. The files
are generated, never edited by hand; ``tests/test_schema_export.py`` fails when a model and
its committed file drift apart (fix: ``gcv schema export``). To add a schema, add an entry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

from engine_runners.protocol import ProtocolLines, RunRequest
from gcv.agents.request_eval import set_schema
from gcv.batch.spec import batch_spec_schema as build_batch_spec_schema
from gcv.contract.jsonschema_check import CONFIG_SCHEMA_FILE, GOAL_SCHEMA_FILE, config_schema, goal_schema
from gcv.contract.schema_form import model_schema
from gcv.contract.request_intent import RequestIntent
from gcv.sim.players import InputsTrace
from gcv.sim.program_model import PATTERN_NAMES, PHASE_ID_CHARS, Bound, SimProgram, program_bounds, program_keys
from gcv.sim.telemetry_model import Telemetry
from gcv.validation.report import ValidationReport
from gcv.workflow.events import EVENT_SCHEMA_FILE, event_json_schema
from gcv.workflow.state import STATE_SCHEMA_FILE, state_json_schema


def report_schema() -> dict[str, Any]:
    """The report as GCV writes it; ``gcv validate --json`` adds ``exit_code`` (0 or 1)."""
    schema = model_schema(ValidationReport, "validation_report.schema.json", mode="serialization")
    schema["properties"]["exit_code"] = {
        "description": "present in `gcv validate --json` output: 0 valid, 1 invalid",
        "enum": [0, 1], "title": "Exit Code", "type": "integer",
    }
    return schema


def sim_program_schema() -> dict[str, Any]:
    return model_schema(SimProgram, "sim_program.schema.json")


def telemetry_schema() -> dict[str, Any]:
    return model_schema(Telemetry, "telemetry.schema.json")


def run_request_schema() -> dict[str, Any]:
    schema = model_schema(RunRequest, "run_request.schema.json")
    schema["properties"]["program"] = {"$ref": "sim_program.schema.json",
                                       "description": "the integer sim program"}
    return schema


def run_protocol_lines_schema() -> dict[str, Any]:
    """The payloads of the engines' stdout lines (handshake, heartbeat, done, error)."""
    return model_schema(ProtocolLines, "run_protocol_lines.schema.json")


def inputs_trace_schema() -> dict[str, Any]:
    return model_schema(InputsTrace, "inputs_trace.schema.json")


def batch_spec_schema() -> dict[str, Any]:
    return build_batch_spec_schema()


def workflow_state_schema() -> dict[str, Any]:
    """``state.json`` as the loop writes it (every workflow folder, every bundle)."""
    return state_json_schema()


def request_set_schema() -> dict[str, Any]:
    return set_schema()


def request_intent_schema() -> dict[str, Any]:
    """``intent.json`` of a bundle: each thing the accepted request asks for."""
    return model_schema(RequestIntent, "request_intent.schema.json", mode="serialization")


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    CONFIG_SCHEMA_FILE: config_schema,
    GOAL_SCHEMA_FILE: goal_schema,
    "validation_report.schema.json": report_schema,
    "sim_program.schema.json": sim_program_schema,
    "telemetry.schema.json": telemetry_schema,
    "run_request.schema.json": run_request_schema,
    "run_protocol_lines.schema.json": run_protocol_lines_schema,
    "inputs_trace.schema.json": inputs_trace_schema,
    "batch_spec.schema.json": batch_spec_schema,
    STATE_SCHEMA_FILE: workflow_state_schema,
    EVENT_SCHEMA_FILE: event_json_schema,
    "request_set.schema.json": request_set_schema,
    "request_intent.schema.json": request_intent_schema,
}


def render(schema: dict[str, Any]) -> str:
    """The committed text of a schema: sorted keys, indent 2, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# --- the program bounds of the engine cores ------------------------------------------
# The C# and C++ cores read every program range from these generated files, so the three
# implementations accept exactly the programs gcv.sim.program_model accepts.

_GENERATED = "Generated from gcv/sim/program_model.py by `gcv schema export`; do not edit."
_SPECIAL_NAMES = {
    "phases": "PhaseCount", "phases[].slots": "SlotCount", "phases[].slots[][0]": "SlotAngleOffset",
    "phases[].slots[][1]": "SlotSpeed", "phases[].slots[][2]": "SlotRotationSign",
    "phases[].phase_id": "PhaseIdLength",
}


def bound_name(bound: Bound) -> str:
    """``player.max_health`` -> ``PlayerMaxHealth``; ``phases[].lifetime_ticks`` -> ``PhaseLifetimeTicks``."""
    if bound.path in _SPECIAL_NAMES:
        return _SPECIAL_NAMES[bound.path]
    path = bound.path.replace("phases[].", "phase.").replace("bot.skills[].", "skill.")
    return "".join(part.capitalize() for part in re.split(r"[._]", path))


def _bounds_table() -> list[tuple[str, Bound]]:
    return [(bound_name(b), b) for b in program_bounds()]


def keys_name(section: str) -> str:
    """``""`` -> ``Program``, ``phases[]`` -> ``Phase``, ``bot.skills[]`` -> ``Skill``, ``frame_model`` -> ``FrameModel``."""
    special = {"": "Program", "phases[]": "Phase", "bot.skills": "Skills", "bot.skills[]": "Skill"}
    return special.get(section) or "".join(part.capitalize() for part in section.split("_"))


def csharp_bounds() -> str:
    lines = [f"// {_GENERATED}", "// The inclusive range of every program integer and list length (docs/simulation.md 2),",
             "// the members each object of the program may have, the characters of a phase id and the",
             "// pattern names (a phase's pattern_code is its name's index).",
             "namespace Gcv.Core", "{", "    public static class ProgramBounds", "    {"]
    for name, b in _bounds_table():
        lines.append(f"        public const long {name}Min = {b.lo}, {name}Max = {b.hi};  // {b.path}")
    lines.append(f'        public const string PhaseIdChars = "{PHASE_ID_CHARS}";')
    names = ", ".join(f'"{n}"' for n in PATTERN_NAMES)
    lines.append(f"        public static readonly string[] PatternNames = {{ {names} }};  // index = pattern_code")
    for section, keys in program_keys():
        quoted = ", ".join(f'"{k}"' for k in keys)
        lines.append(f"        public static readonly string[] {keys_name(section)}Keys = {{ {quoted} }};")
    lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


def cpp_bounds() -> str:
    lines = [f"// {_GENERATED}", "// The inclusive range of every program integer and list length (docs/simulation.md 2),",
             "// the members each object of the program may have, the characters of a phase id and the",
             "// pattern names (a phase's pattern_code is its name's index).",
             "#pragma once", "", "#include <cstdint>", "", "namespace gcv {", "namespace program_bounds {"]
    for name, b in _bounds_table():
        lo = f"({b.lo}LL)" if b.lo < 0 else f"{b.lo}LL"
        lines.append(f"constexpr int64_t k{name}Min = {lo}, k{name}Max = {b.hi}LL;  // {b.path}")
    lines.append(f'constexpr const char kPhaseIdChars[] = "{PHASE_ID_CHARS}";')
    names = ", ".join(f'"{n}"' for n in PATTERN_NAMES)
    lines.append(f"constexpr const char* kPatternNames[] = {{{names}}};  // index = pattern_code")
    for section, keys in program_keys():
        quoted = ", ".join(f'"{k}"' for k in keys)
        lines.append(f"constexpr const char* k{keys_name(section)}Keys[] = {{{quoted}}};")
    lines += ["}  // namespace program_bounds", "}  // namespace gcv"]
    return "\n".join(lines) + "\n"


# Generated engine files, by path from the repository root.
ENGINE_FILES: dict[str, Callable[[], str]] = {
    "unity_project/Assets/Gcv/Core/ProgramBounds.cs": csharp_bounds,
    "ue5_plugin/GcvBridge/Source/GcvSimCore/Public/Gcv/ProgramBounds.h": cpp_bounds,
}


def _targets(directory: str | Path, repo_root: str | Path | None) -> list[tuple[Path, str]]:
    """(path, text) of every generated file: the schemas in ``directory`` and, given
    ``repo_root``, the engine cores' bounds files."""
    out = [(Path(directory) / name, render(build())) for name, build in SCHEMAS.items()]
    if repo_root is not None:
        out += [(Path(repo_root) / rel, build_text()) for rel, build_text in ENGINE_FILES.items()]
    return out


def export_changes(directory: str | Path, *, repo_root: str | Path | None = None) -> list[tuple[Path, bool]]:
    """Write every generated file whose bytes differ from what is on disk; return each path
    with whether it changed. Each file is compared with its own previous bytes (the bounds
    files too, which live outside ``directory``), and an unchanged file is not rewritten, so
    a clean tree reports nothing changed and keeps its modification times (the harness
    builds are cached on their sources)."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    results: list[tuple[Path, bool]] = []
    for path, text in _targets(directory, repo_root):
        data = text.encode("utf-8")
        before = path.read_bytes() if path.is_file() else None
        if before != data:
            path.write_bytes(data)
        results.append((path, before != data))
    return results


def export_all(directory: str | Path, *, repo_root: str | Path | None = None) -> list[Path]:
    """Write every registered schema into ``directory`` and, given ``repo_root``, the engine
    cores' generated bounds files; return the paths (see :func:`export_changes`)."""
    return [path for path, _ in export_changes(directory, repo_root=repo_root)]
