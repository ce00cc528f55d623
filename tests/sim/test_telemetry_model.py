"""The telemetry model (gcv.sim.telemetry_model): what every engine's report must look like."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from gcv.sim.engine import Simulation
from gcv.sim.telemetry_model import PhaseResult, Telemetry
from tests.support.simutil import baseline_program


@pytest.fixture(scope="module")
def telemetry():  # type: ignore[no-untyped-def]
    return Simulation(baseline_program(), {"kind": "scripted"}).run(seed=2).telemetry


def test_the_reference_simulators_telemetry_validates(telemetry) -> None:  # type: ignore[no-untyped-def]
    model = Telemetry.model_validate(telemetry)
    assert model.ticks == telemetry["ticks"] and isinstance(model.phase_results[0], PhaseResult)
    assert model.hardware is None and model.wall_time_ms is None  # optional, for measured runs


@pytest.mark.parametrize("field,value", [("status", "won"), ("tick_hz", 30), ("state_hash", "abc"),
                                         ("seed", -1), ("phase_results", []), ("ticks", 0), ("colour", "red")])
def test_a_malformed_report_is_refused(telemetry, field: str, value: object) -> None:  # type: ignore[no-untyped-def]
    bad = copy.deepcopy(telemetry)
    bad[field] = value
    with pytest.raises(ValidationError):
        Telemetry.model_validate(bad)


def test_every_field_is_required_but_the_optional_three(telemetry) -> None:  # type: ignore[no-untyped-def]
    bad = copy.deepcopy(telemetry)
    del bad["player_hits"]
    with pytest.raises(ValidationError):
        Telemetry.model_validate(bad)
    ok = copy.deepcopy(telemetry)
    del ok["frame_model"]
    Telemetry.model_validate(ok)
