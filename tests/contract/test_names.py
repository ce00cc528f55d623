"""Human names and units for the contract's fields (gcv.contract.names)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.contract.models import BulletHellConfig, Pattern, Player
from gcv.contract.names import FIELDS, field_label, value_with_unit


@pytest.mark.parametrize("path,label", [
    ("$.phases[1].pattern.bullets_per_wave", "Phase 2 · bullets per wave"),
    ("$.phases[*].pattern.bullets_per_wave", "Every phase · bullets per wave"),
    ("$.phases[0].pattern.wave_interval_ms", "Phase 1 · wave interval"),
    ("$.phases[2].trigger_boss_hp_below", "Phase 3 · starts below boss health"),
    ("$.phases[2]", "Phase 3"),
    ("$.player.move_speed", "Player · move speed"),
    ("$.targets.min_survival_seconds", "Targets · min survival"),
    ("$.boss.position.x", "Boss · position x"),
])
def test_paths_read_as_names(path: str, label: str) -> None:
    assert field_label(path) == label


def test_a_phase_whose_id_is_not_its_number_shows_its_id_and_unknown_paths_stay_paths() -> None:
    assert field_label("$.phases[1].pattern.bullet_speed", ["intro", "storm"]) == "Phase 2 (storm) · bullet speed"
    assert field_label("$.phases[1].pattern.bullet_speed", ["phase_1", "phase_2"]) == "Phase 2 · bullet speed"
    assert field_label("$.somewhere[3].else") == "$.somewhere[3].else"  # never a wrong name


def test_values_carry_the_contract_s_units() -> None:
    assert value_with_unit("$.phases[1].pattern.wave_interval_ms", 595) == "595 ms"
    assert value_with_unit("$.phases[1].pattern.bullet_speed", 2.34) == "2.34 units/s"
    assert value_with_unit("$.phases[1].pattern.rotation_per_wave_deg", 12.5) == "12.5°"
    assert value_with_unit("$.phases[0].trigger_boss_hp_below", 0.66) == "66%"
    assert value_with_unit("$.phases[1].pattern.bidirectional", True) == "yes"
    assert value_with_unit("$.phases[1].pattern.bullets_per_wave", 15) == "15"


def test_every_pattern_and_player_field_has_a_name_and_the_units_agree_with_the_contract() -> None:
    """A field added to the contract gets a name here (the test fails until it does); the
    unit named here is the one the contract's description gives."""
    for model in (Pattern, Player):
        for name, info in model.model_fields.items():
            if name in ("start_position",):
                continue
            assert name in FIELDS, f"{model.__name__}.{name} has no human name in gcv.contract.names"
            described = (info.description or "").split(",")[0]
            if "units/s" in described:
                assert FIELDS[name][1] == "units/s", name
    assert set(BulletHellConfig.model_fields) >= {"phases", "player", "targets"}


def test_the_cli_names_fields_for_people_at_80_columns(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    result = CliRunner().invoke(app, ["propose", "make phase 2 a denser bidirectional spiral"])
    assert result.exit_code == 0, result.output
    assert "Phase 2 · bullets per wave" in result.stdout and "700 ms -> 595 ms" in result.stdout
    assert not re.search(r"\$\.phases\[\d\]", result.stdout)  # main: $.phases[1].pattern.bullets_per_wave
    assert max(len(line) for line in result.stdout.splitlines() if "│" in line) <= 80  # the table fits
    doc = json.loads(CliRunner().invoke(app, ["propose", "make phase 2 a denser bidirectional spiral", "--json"]).stdout)
    assert {c["path"] for c in doc["change"]} >= {"$.phases[1].pattern.bullets_per_wave"}  # JSON keeps the paths


def test_paths_in_a_sentence_read_as_names() -> None:
    from gcv.contract.names import names_in

    assert names_in("REDUCE_BULLET_SPEED on phase_2: $.phases[1].pattern.bullet_speed 3.6 -> 2.34") == (
        "REDUCE_BULLET_SPEED on phase_2: Phase 2 · bullet speed 3.6 -> 2.34")
    assert names_in("$.phases[*].pattern.type and $.extra[9].") == "Every phase · pattern and $.extra[9]."
