"""The committed JSON Schema and the pydantic models accept and reject the same documents.

The corpus is generated from the baseline: for every leaf field, wrong types, values just
outside and exactly on its range, seven decimal places, integral floats for integers,
non-integral floats, huge numbers, bad strings and enum values; for every object, an extra
field and each field missing; and whole-document cases (no phases, seven phases, not an
object). Each case states whether both must accept, both must reject, or only agree.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

import pytest
from pydantic import ValidationError

from gcv.contract.jsonschema_check import GcvValidator, config_validator
from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig
from gcv.validation.schema_layer import check_schema, subschema

ROOT = Path(__file__).resolve().parents[2]
BASE: dict[str, Any] = json.loads((ROOT / "artifacts/baselines/shrine_trial.json").read_text("utf-8"))
SCHEMA: dict[str, Any] = json.loads((ROOT / "schemas/bullet_hell.schema.json").read_text("utf-8"))
VALIDATOR = GcvValidator(SCHEMA)

ACCEPT, REJECT, AGREE = "accept", "reject", "agree"


def leaves(node: Any, parts: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, (*parts, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from leaves(value, (*parts, i))
    else:
        yield parts, node


def objects(node: Any, parts: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], dict]]:
    if isinstance(node, dict):
        yield parts, node
        for key, value in node.items():
            yield from objects(value, (*parts, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from objects(value, (*parts, i))


def replaced(parts: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    node: Any = doc
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return doc


def resolved(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].split("/")[-1]]
    return node


def step(value: Any, delta: Fraction) -> float:
    """``value + delta`` as the float whose shortest text is that decimal."""
    return float(Fraction(repr(float(value))) + delta)


def leaf_cases(parts: tuple[str | int, ...], value: Any) -> Iterator[tuple[str, Any, str]]:
    node = resolved(subschema(SCHEMA, list(parts)) or {})
    kind = node.get("type")
    yield "null", None, REJECT
    yield "list", [value], REJECT
    yield "object", {"v": value}, REJECT
    if kind != "string":
        yield "string", str(value), REJECT
    if kind != "boolean":
        yield "bool_true", True, REJECT
        yield "bool_false", False, REJECT
    if kind in ("integer", "number"):
        low = node.get("minimum", node.get("exclusiveMinimum"))
        high = node.get("maximum", node.get("exclusiveMaximum"))
        lo_open = "exclusiveMinimum" in node
        yield "huge", 1e300, REJECT
        yield "huge_negative", -1e300, REJECT
        yield "huge_int", 10 ** 30, REJECT
        yield "int64_max", 2 ** 63 - 1, REJECT
        yield "int_beyond_double", 10 ** 400, REJECT
        yield "tiny", 1e-300, AGREE
        yield "negative_zero", -0.0, AGREE
        if kind == "integer":
            yield "low", low, ACCEPT
            yield "high", high, ACCEPT
            yield "below_low", low - 1, REJECT
            yield "above_high", high + 1, REJECT
            yield "integral_float", float(value), ACCEPT
            yield "integral_float_low", float(low), ACCEPT
            yield "integral_float_above", float(high + 1), REJECT
            yield "non_integral_float", value + 0.5, REJECT
            yield "decimals7", step(value, Fraction(1, 10 ** 7)), REJECT
        else:
            yield "low", low, REJECT if lo_open else ACCEPT
            yield "high", high, ACCEPT
            yield "low_float", float(low), REJECT if lo_open else ACCEPT
            yield "below_low_6dp", step(low, Fraction(-1, 10 ** 6)), REJECT
            yield "above_high_6dp", step(high, Fraction(1, 10 ** 6)), REJECT
            yield "just_above_low_6dp", step(low, Fraction(1, 10 ** 6)), ACCEPT
            yield "decimals6", step(value, Fraction(1, 10 ** 6)), AGREE
            yield "decimals7", step(value, Fraction(1, 10 ** 7)), REJECT
            yield "decimals7_small", 1e-7, REJECT
            yield "int_value", int(value) if float(value).is_integer() else value, ACCEPT
    elif kind == "string":
        yield "number", 123, REJECT
        yield "empty", "", REJECT
        fixed = "pattern" in node or "enum" in node or "const" in node
        yield "trailing_newline", f"{value}\n", REJECT if fixed else ACCEPT
        yield "upper", str(value).upper() + "X", AGREE
        yield "unicode", "é" + str(value)[:10], AGREE
        yield "lone_surrogate", "\ud800", REJECT
        yield "astral", "\U0001F600", AGREE
        if "maxLength" in node:
            yield "too_long", "a" * (node["maxLength"] + 1), REJECT
            yield "max_length", "a" * node["maxLength"], AGREE
        if "enum" in node or "const" in node:
            yield "unknown_enum", "laser", REJECT
            yield "enum_case", str(value).capitalize() + "_", REJECT
    elif kind == "boolean":
        yield "zero", 0, REJECT
        yield "one", 1, REJECT
        yield "text_true", "true", REJECT


Case = tuple[str, Any, str]  # (name, document, expectation)


def corpus() -> dict[str, list[Case]]:
    """Cases grouped by the field or object they mutate (one test per group)."""
    groups: dict[str, list[Case]] = {}
    for parts, value in leaves(BASE):
        label = ".".join(str(p) for p in parts)
        groups[label] = [(name, replaced(parts, new), expect)
                         for name, new, expect in leaf_cases(parts, value)]
    for parts, obj in objects(BASE):
        label = (".".join(str(p) for p in parts) or "root") + ":object"
        cases: list[Case] = []
        extra = copy.deepcopy(BASE)
        node: Any = extra
        for part in parts:
            node = node[part]
        node["unexpected_field"] = 1
        cases.append(("extra_field", extra, REJECT))
        for key in obj:
            missing = copy.deepcopy(BASE)
            node = missing
            for part in parts:
                node = node[part]
            del node[key]
            cases.append((f"missing_{key}", missing, REJECT))
        groups[label] = cases
    phases = BASE["phases"]
    seven = [dict(copy.deepcopy(phases[0]), phase_id=f"p{i}") for i in range(7)]
    six = [dict(copy.deepcopy(phases[0]), phase_id=f"p{i}") for i in range(6)]
    groups["document"] = [
        (name, replaced(("phases",), value), expect) for name, value, expect in [
            ("empty_phases", [], REJECT), ("seven_phases", seven, REJECT), ("six_phases", six, ACCEPT),
            ("one_phase", phases[:1], ACCEPT), ("phases_object", {"0": phases[0]}, REJECT),
            ("phases_of_numbers", [1, 2], REJECT), ("phases_null", None, REJECT),
        ]
    ] + [(f"root_{name}", doc, REJECT) for name, doc in
         [("list", [BASE]), ("string", "config"), ("null", None), ("number", 3), ("empty", {})]
    ] + [("baseline", copy.deepcopy(BASE), ACCEPT)]
    return groups


CORPUS = corpus()


def pydantic_accepts(doc: Any) -> bool:
    try:
        BulletHellConfig.model_validate(doc)
    except ValidationError:
        return False
    return True


def test_corpus_is_large() -> None:
    assert sum(len(cases) for cases in CORPUS.values()) > 500


@pytest.mark.parametrize("group", list(CORPUS))
def test_json_schema_and_pydantic_agree(group: str) -> None:
    problems = []
    for n, (name, doc, expect) in enumerate(CORPUS[group]):
        by_schema = VALIDATOR.is_valid(doc)
        by_model = pydantic_accepts(doc)
        if by_schema != by_model:
            problems.append(f"{name}: JSON Schema says {by_schema}, pydantic says {by_model}")
        elif expect != AGREE and by_model is not (expect == ACCEPT):
            problems.append(f"{name}: both say {by_model}, expected {expect}")
        if n % 8 == 0:  # the layer runs the same two checks; a sample keeps the suite fast
            result, model = check_schema(doc)
            if "schema.disagreement" in result.rule_ids() or (model is not None) is not by_model:
                problems.append(f"{name}: the schema layer disagrees: {result.errors}")
    assert not problems, "\n".join(problems)


def test_schema_layer_uses_the_committed_schema() -> None:
    assert config_validator().schema == SCHEMA


GOAL_SCHEMA = GcvValidator(json.loads((ROOT / "schemas/goal.schema.json").read_text("utf-8")))
GOOD_GOAL: dict[str, Any] = {
    "goal": "gcv.goal/1", "target_phase_ids": ["phase_2"], "pattern_type": "spiral", "bidirectional": True,
    "reverse_rotation": False, "pressure": "increase",
    "edits": [{"field": "bullets_per_wave", "operation": "scale", "value": 1.25}],
    "constraints": {"max_alive_bullets": 300, "min_low_fps": 55.5, "max_player_hits": None},
    "preserve_visual_style": True, "source_text": "denser spiral",
}
GOAL_CASES: list[tuple[str, Any]] = [
    ("full", GOOD_GOAL), ("minimal", {"target_phase_ids": ["a"]}), ("no_targets", {"target_phase_ids": []}),
    ("seven_targets", {"target_phase_ids": ["a"] * 7}), ("missing_targets", {}),
    ("unknown_pattern", dict(GOOD_GOAL, pattern_type="laser")), ("null_pattern", dict(GOOD_GOAL, pattern_type=None)),
    ("extra", dict(GOOD_GOAL, mood="happy")), ("wrong_goal_id", dict(GOOD_GOAL, goal="gcv.goal/2")),
    ("edit_field", dict(GOOD_GOAL, edits=[{"field": "boss.max_health", "operation": "set", "value": 1}])),
    ("edit_decimals", dict(GOOD_GOAL, edits=[{"field": "bullet_speed", "operation": "add", "value": 0.1234567}])),
    ("edit_integral", dict(GOOD_GOAL, edits=[{"field": "layer_count", "operation": "set", "value": 2}])),
    ("constraint_float_int", dict(GOOD_GOAL, constraints={"max_alive_bullets": 300.0})),
    ("constraint_non_integral", dict(GOOD_GOAL, constraints={"max_alive_bullets": 300.5})),
    ("constraint_string", dict(GOOD_GOAL, constraints={"max_alive_bullets": "300"})),
    ("constraint_range", dict(GOOD_GOAL, constraints={"max_player_hits": -1})),
    ("constraint_extra", dict(GOOD_GOAL, constraints={"max_bullets": 1})),
    ("bool_as_int", dict(GOOD_GOAL, reverse_rotation=1)), ("pressure", dict(GOOD_GOAL, pressure="more")),
    ("source_too_long", dict(GOOD_GOAL, source_text="x" * 4001)), ("not_object", ["phase_2"]),
]


@pytest.mark.parametrize("name,doc", GOAL_CASES, ids=[c[0] for c in GOAL_CASES])
def test_goal_schema_and_model_agree(name: str, doc: Any) -> None:
    try:
        Goal.model_validate(doc)
        by_model = True
    except ValidationError:
        by_model = False
    assert GOAL_SCHEMA.is_valid(doc) == by_model
