"""The JSON Schemas committed in ``schemas/``: one registry, one writer.

Each entry maps a file name to a builder that returns the schema as plain data. The files
are generated, never edited by hand; ``tests/test_schema_drift.py`` fails when a model and
its committed file drift apart (fix: ``gcv schema export``). To add a schema, add an entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from gcv.contract.jsonschema_check import (
    CONFIG_SCHEMA_FILE,
    GOAL_SCHEMA_FILE,
    config_schema,
    goal_schema,
    model_schema,
)


def report_schema() -> dict[str, Any]:
    """The report as GCV writes it; ``gcv validate --json`` adds ``exit_code`` (0 or 1)."""
    from gcv.validation.report import ValidationReport

    schema = model_schema(ValidationReport, "validation_report.schema.json", mode="serialization")
    schema["properties"]["exit_code"] = {
        "description": "present in `gcv validate --json` output: 0 valid, 1 invalid",
        "enum": [0, 1], "title": "Exit Code", "type": "integer",
    }
    return schema


def sim_program_schema() -> dict[str, Any]:
    from gcv.sim.program_model import SimProgram

    return model_schema(SimProgram, "sim_program.schema.json")


def telemetry_schema() -> dict[str, Any]:
    from gcv.sim.telemetry_model import Telemetry

    return model_schema(Telemetry, "telemetry.schema.json")


def run_request_schema() -> dict[str, Any]:
    from engine_runners.protocol import RunRequest

    schema = model_schema(RunRequest, "run_request.schema.json")
    schema["properties"]["program"] = {"$ref": "sim_program.schema.json",
                                       "description": "the integer sim program"}
    return schema


def run_protocol_lines_schema() -> dict[str, Any]:
    """The payloads of the engines' stdout lines (handshake, heartbeat, done, error)."""
    from engine_runners.protocol import ProtocolLines

    return model_schema(ProtocolLines, "run_protocol_lines.schema.json")


def inputs_trace_schema() -> dict[str, Any]:
    from gcv.sim.players import InputsTrace

    return model_schema(InputsTrace, "inputs_trace.schema.json")


def batch_spec_schema() -> dict[str, Any]:
    from gcv.batch.spec import batch_spec_schema as build

    return build()


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
}


def render(schema: dict[str, Any]) -> str:
    """The committed text of a schema: sorted keys, indent 2, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def export_all(directory: str | Path) -> list[Path]:
    """Write every registered schema into ``directory``; return the paths written."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, build in SCHEMAS.items():
        path = out / name
        path.write_text(render(build()), encoding="utf-8")
        written.append(path)
    return written
