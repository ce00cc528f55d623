"""The engine-bridge schemas accept what the engines exchange and refuse what they must not."""

from __future__ import annotations

import json

import jsonschema
import pytest
from referencing import Registry, Resource

from tests.support.simutil import REPO, VECTORS, load_vector

SCHEMAS = REPO / "schemas"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    registry = Registry()
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    schema = json.loads((SCHEMAS / name).read_text())
    return jsonschema.Draft202012Validator(schema, registry=registry)


@pytest.mark.parametrize("path", VECTORS[:5], ids=[p.stem for p in VECTORS[:5]])
def test_vector_requests_match_the_run_request_schema(path) -> None:
    request = load_vector(path)["request"]
    _validator("run_request.schema.json").validate(request)
    _validator("sim_program.schema.json").validate(request["program"])


def test_program_with_a_decimal_is_refused() -> None:
    request = load_vector(VECTORS[0])["request"]
    request["program"]["duration_ticks"] = 2160.5
    errors = list(_validator("run_request.schema.json").iter_errors(request))
    assert errors and any("duration_ticks" in str(e.path) or "duration_ticks" in e.message for e in errors)


def test_python_telemetry_matches_the_telemetry_schema(tmp_path) -> None:
    from engine_runners.python_sim import PythonSimRunner
    from engine_runners.requests import build_request
    from tests.support.simutil import baseline_program

    request = build_request(baseline_program(), seed=3, player={"kind": "bot", "skill": "expert"},
                            output_dir=tmp_path, run_id="schema")
    result = PythonSimRunner().run(request)
    assert result.ok
    validator = _validator("telemetry.schema.json")
    validator.validate(result.telemetry)
    broken = dict(result.telemetry, peak_alive_bullets=-1)
    assert list(validator.iter_errors(broken))


def test_inputs_trace_schema() -> None:
    from gcv.simio.golden import ZIGZAG_TRACE

    validator = _validator("inputs_trace.schema.json")
    validator.validate(ZIGZAG_TRACE)
    assert list(validator.iter_errors({**ZIGZAG_TRACE, "extra": 1}))
