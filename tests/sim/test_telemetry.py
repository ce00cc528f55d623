"""Telemetry (gcv.sim.telemetry): integer thousandths rounded half up, the modeled frame figures,
the gameplay view every engine must reproduce, and where a desync starts."""

from __future__ import annotations

import copy

import pytest

from gcv.sim.engine import Simulation
from gcv.sim.telemetry import (NON_GAMEPLAY_FIELDS, TELEMETRY_ID, desync, frame_figures, from_milli, gameplay_view,
                               milli_ratio)
from gcv.sim.telemetry_model import Telemetry
from tests.support.simutil import baseline_program


@pytest.mark.parametrize("num,den,milli", [(1, 3, 333), (2, 3, 667), (1, 2000, 1), (3, 2000, 2), (0, 7, 0),
                                           (5, 5, 1000)])
def test_milli_ratio_rounds_half_up(num: int, den: int, milli: int) -> None:
    assert milli_ratio(num, den) == milli
    assert from_milli(milli) == milli / 1000


def test_frame_figures_average_one_percent_low_and_worst() -> None:
    frames = [10_000] * 99 + [20_000]
    assert frame_figures(frames) == (99_009, 50_000, 20_000)  # floor(1e9 * 100 / 1_010_000)
    assert frame_figures([16_000]) == (62_500, 62_500, 16_000)


@pytest.fixture(scope="module")
def telemetry():  # type: ignore[no-untyped-def]
    return Simulation(baseline_program(), {"kind": "scripted"}).run(seed=1).telemetry


def test_a_run_reports_a_valid_telemetry(telemetry) -> None:  # type: ignore[no-untyped-def]
    Telemetry.model_validate(telemetry)
    assert telemetry["telemetry"] == TELEMETRY_ID and telemetry["fps_source"] == "model"
    assert telemetry["phases_reached"] == sum(p["reached"] for p in telemetry["phase_results"])


def test_the_gameplay_view_drops_only_what_engines_may_differ_in(telemetry) -> None:  # type: ignore[no-untyped-def]
    view = gameplay_view(telemetry)
    assert not set(view) & NON_GAMEPLAY_FIELDS
    assert set(view) | (set(telemetry) & NON_GAMEPLAY_FIELDS) == set(telemetry)
    assert view["state_hash"] == telemetry["state_hash"] and "engine" not in view


def test_desync_names_the_first_differing_field_and_window(telemetry) -> None:  # type: ignore[no-untyped-def]
    assert desync(telemetry, telemetry) is None
    faster = {**copy.deepcopy(telemetry), "average_fps": 1.0, "engine": {"name": "other"}}
    assert desync(telemetry, faster) is None  # frame figures and the engine are not gameplay
    other = copy.deepcopy(telemetry)
    other["grazes"] += 1
    other["state_hashes"][3] = "0" * 64
    found = desync(telemetry, other)
    assert found == {"field": "grazes", "reference": telemetry["grazes"], "engine": telemetry["grazes"] + 1,
                     "window": [180, 239]}
    shorter = copy.deepcopy(telemetry)
    shorter["state_hashes"] = shorter["state_hashes"][:5]
    assert desync(telemetry, shorter)["window"] == [300, 359]  # type: ignore[index]
