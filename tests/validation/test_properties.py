"""Properties: valid configs pass and round-trip; nothing a user can write crashes validation."""

from __future__ import annotations

import pytest

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from gcv.contract.canonical import canonical_json, config_hash
from gcv.contract.jsonschema_check import GcvValidator
from gcv.contract.loading import GcvInputError, parse_json_text
from gcv.contract.models import BulletHellConfig
from gcv.validation.diff import diff_configs
from gcv.validation.report import ValidationReport
from gcv.validation.validate import validate
from tests.support.strategies import decimals, valid_config_data, valid_configs

ROOT = Path(__file__).resolve().parents[2]
BASE: dict[str, Any] = json.loads((ROOT / "artifacts/baselines/shrine_trial.json").read_text("utf-8"))
CONFIG_VALIDATOR = GcvValidator(json.loads((ROOT / "schemas/bullet_hell.schema.json").read_text("utf-8")))
REPORT_VALIDATOR = GcvValidator(json.loads((ROOT / "schemas/validation_report.schema.json").read_text("utf-8")))

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- random valid configs ------------------------------------------------------------------------

@pytest.mark.slow
@FAST
@given(valid_config_data())
def test_random_valid_configs_validate_cleanly(doc: dict[str, Any]) -> None:
    report = validate(doc, doc)
    assert report.ok, [(i.rule_id, i.path, i.message) for i in report.errors]
    assert report.candidate_hash == report.baseline_hash == config_hash(doc)


@pytest.mark.slow
@FAST
@given(valid_configs())
def test_random_valid_configs_round_trip_through_canonical_json(cfg: BulletHellConfig) -> None:
    text = canonical_json(cfg)
    again = BulletHellConfig.model_validate(json.loads(text))
    assert again == cfg
    assert canonical_json(again) == text
    assert config_hash(again) == config_hash(cfg) == config_hash(json.loads(text))
    assert diff_configs(cfg, again) == []


@pytest.mark.slow
@MANY
@given(decimals(-180, 180), decimals(0, 1, exclude_lo=True))
def test_decimals_strategy_stays_in_range(a: float, b: float) -> None:
    assert -180 <= a <= 180 and 0 < b <= 1
    assert len(repr(float(a)).split(".")[-1].split("e")[0]) <= 6 or "e" in repr(float(a))


# --- random mutations --------------------------------------------------------------------------------

json_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 400), st.integers(), st.text(max_size=12),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["ring", "spiral", "phase_1", ""]),
)
json_values = st.recursive(json_leaves, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6)


def _paths(node: Any, parts: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [parts]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*parts, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*parts, i))
    return out


@st.composite
def mutated(draw: Any, doc: dict[str, Any]) -> Any:
    """1-3 random edits: replace, delete, add a key, nudge a number, grow or shrink a list."""
    out: Any = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(out)
        parts = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "delete", "add", "nudge", "nudge", "list"]))
        if not parts:
            if op == "replace":
                out = draw(json_values)
            continue
        parent: Any = out
        for part in parts[:-1]:
            parent = parent[part]
        key, value = parts[-1], parent[parts[-1]]
        if op == "replace":
            parent[key] = draw(json_values)
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(value, dict):
            value[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
        elif op == "nudge" and isinstance(value, (int, float)) and not isinstance(value, bool):
            factor = draw(st.sampled_from([0, -1, 0.5, 2, 3, 10]))
            parent[key] = draw(st.sampled_from([value * factor, value + draw(st.integers(-5, 5)),
                                                round(value * factor)]))
        elif op == "list" and isinstance(value, list) and value:
            if draw(st.booleans()):
                value.append(copy.deepcopy(draw(st.sampled_from(value))))
            else:
                value.pop(draw(st.integers(0, len(value) - 1)))
    return out


def _assert_sound(report: ValidationReport) -> None:
    assert isinstance(report, ValidationReport)
    doc = {**report.model_dump(mode="json"), "exit_code": 0 if report.ok else 1}
    json.dumps(doc, allow_nan=False)
    REPORT_VALIDATOR.validate(doc)
    assert report.ok == all(layer.status != "failed" for layer in report.layers)
    for layer in report.layers:
        assert (layer.status == "failed") == bool(layer.errors)


@pytest.mark.slow
@MANY
@given(mutated(BASE))
def test_random_mutations_never_crash_the_validator(candidate: Any) -> None:
    _assert_sound(validate(BASE, candidate))


@pytest.mark.slow
@MANY
@given(mutated(BASE))
def test_json_schema_and_pydantic_agree_on_random_mutations(candidate: Any) -> None:
    try:
        BulletHellConfig.model_validate(candidate)
        by_model = True
    except ValidationError:
        by_model = False
    assert CONFIG_VALIDATOR.is_valid(candidate) == by_model
    result = validate(BASE, candidate).layer("schema")
    assert "schema.disagreement" not in result.rule_ids()


@pytest.mark.slow
@FAST
@given(st.data())
def test_mutations_of_random_valid_configs_never_crash(data: st.DataObject) -> None:
    doc = data.draw(valid_config_data(max_phases=4))
    _assert_sound(validate(doc, data.draw(mutated(doc))))


goals = st.one_of(
    json_values,
    st.fixed_dictionaries({"target_phase_ids": st.lists(st.sampled_from(["phase_1", "phase_2", "x"]), max_size=3)},
                          optional={"pattern_type": st.sampled_from(["ring", "spiral", "petal", "laser", None]),
                                    "bidirectional": st.sampled_from([True, False, None, 1]),
                                    "reverse_rotation": st.booleans(),
                                    "constraints": st.dictionaries(
                                        st.sampled_from(["max_alive_bullets", "min_low_fps", "other"]),
                                        json_leaves, max_size=2)}),
)


@pytest.mark.slow
@MANY
@given(mutated(BASE), goals)
def test_random_goals_never_crash_the_validator(candidate: Any, goal: Any) -> None:
    _assert_sound(validate(BASE, candidate, goal))


# --- the loader ----------------------------------------------------------------------------------

@MANY
@given(st.one_of(st.text(max_size=40), json_values.map(lambda v: json.dumps(v)),
                 json_values.map(lambda v: json.dumps(v).replace(",", ",,", 1))))
def test_loader_refuses_or_parses_but_never_crashes(text: str) -> None:
    try:
        parse_json_text(text, "t.json")
    except GcvInputError as exc:
        assert exc.file == "t.json" and exc.message
