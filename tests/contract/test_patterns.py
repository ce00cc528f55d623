"""The pattern-kind registry is the one table of kinds: the config model, the schemas and the
compiler agree with it, and no other module spells its own list of kinds."""

from __future__ import annotations

import ast
import json
from fractions import Fraction
from pathlib import Path
from typing import get_args

import pytest

from gcv.agents.offline_requirement.phrases import PATTERN_WORDS
from gcv.contract.goal import Goal
from gcv.contract.models import PATTERN_TYPES, BulletHellConfig, Pattern
from gcv.contract.patterns import (AIMED_KINDS, NON_ROTATING_KINDS, PATTERN_NAMES, PATTERNS, ROTATING_KINDS,
                                   PatternKindSpec, kinds_phrase)
from gcv.sim.fixed import ONE, TICK_HZ, deg_to_angle, round_half_away
from gcv.sim.program import PATTERN_CODES, compile_program
from gcv.sim.program_model import PATTERN_NAMES as PROGRAM_PATTERN_NAMES
from gcv.sim.program_model import ProgramPhase
from gcv.validation.rules_layer import cross_field_issues
from tests.support.simutil import BASELINE_PATH

REPO = Path(__file__).resolve().parents[2]
REGISTRY = REPO / "gcv" / "contract" / "patterns.py"


# --- (a) the registry names exactly the kinds the models and schemas accept ---------------------

def test_the_registry_names_exactly_the_kinds_the_models_accept() -> None:
    assert tuple(PATTERNS) == PATTERN_NAMES
    assert PATTERN_TYPES == PATTERN_NAMES
    assert get_args(Pattern.model_fields["type"].annotation) == PATTERN_NAMES
    assert get_args(ProgramPhase.model_fields["pattern"].annotation) == PATTERN_NAMES
    goal_type = Goal.model_fields["pattern_type"].annotation
    assert {a for arg in get_args(goal_type) for a in get_args(arg)} == set(PATTERN_NAMES)
    assert PROGRAM_PATTERN_NAMES == PATTERN_NAMES
    assert PATTERN_CODES == {name: spec.code for name, spec in PATTERNS.items()}
    assert [PATTERNS[n].code for n in PATTERN_NAMES] == list(range(len(PATTERN_NAMES)))


def _enums_with(node: object, kind: str) -> list[list[str]]:
    """Every JSON Schema ``enum`` that holds ``kind``."""
    found: list[list[str]] = []
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list) and kind in node["enum"]:
            found.append(node["enum"])
        for value in node.values():
            found += _enums_with(value, kind)
    elif isinstance(node, list):
        for value in node:
            found += _enums_with(value, kind)
    return found


@pytest.mark.parametrize("schema", ["bullet_hell", "goal", "sim_program"])
def test_the_committed_schemas_accept_exactly_the_registrys_kinds(schema: str) -> None:
    doc = json.loads((REPO / "schemas" / f"{schema}.schema.json").read_text(encoding="utf-8"))
    enums = _enums_with(doc, PATTERN_NAMES[0])
    assert enums, f"{schema}: no enum of pattern kinds"
    for enum in enums:
        assert enum == list(PATTERN_NAMES)


def test_a_kind_the_registry_does_not_name_is_refused() -> None:
    doc = json.loads(BASELINE_PATH.read_text(encoding="utf-8"))
    doc["phases"][0]["pattern"]["type"] = "laser"
    with pytest.raises(ValueError, match="pattern"):
        BulletHellConfig.model_validate(doc)


def test_the_readers_phrase_table_has_one_entry_per_kind() -> None:
    assert tuple(PATTERN_WORDS) == PATTERN_NAMES


def test_the_derived_lists_follow_the_records() -> None:
    assert ROTATING_KINDS == ("spiral", "petal")
    assert set(ROTATING_KINDS) | set(NON_ROTATING_KINDS) == set(PATTERN_NAMES)
    assert not set(ROTATING_KINDS) & set(NON_ROTATING_KINDS)
    assert AIMED_KINDS == ("aimed_fan", "scatter")
    assert kinds_phrase(ROTATING_KINDS) == "spiral or petal"
    assert all(isinstance(spec, PatternKindSpec) for spec in PATTERNS.values())


# --- (b) no module outside the registry spells a list of kinds ----------------------------------

def kind_lists(source: str, names: tuple[str, ...] = PATTERN_NAMES) -> list[tuple[int, list[str]]]:
    """(line, kinds) of every list, tuple or set display holding two or more kind literals
    (``Literal[...]``'s subscript is a tuple, so a Literal of kinds counts too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            kinds = [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in names]
            if len(kinds) >= 2:
                found.append((node.lineno, kinds))
    return found


def offences(root: Path) -> list[str]:
    out = []
    for path in sorted((root / "gcv").rglob("*.py")):
        if path.relative_to(root) == REGISTRY.relative_to(REPO):
            continue
        for line, kinds in kind_lists(path.read_text(encoding="utf-8")):
            out.append(f"{path.relative_to(root)}:{line} spells {kinds}")
    return out


def test_no_module_outside_the_registry_spells_a_list_of_kinds() -> None:
    assert offences(REPO) == [], "read gcv.contract.patterns instead"


@pytest.mark.parametrize("source", [
    'ROTATING = ("spiral", "petal")',
    'x = kind in ["ring", "scatter"]',
    'x = {"aimed_fan", "petal", "other"}',
    'T = Literal["ring", "spiral", "aimed_fan", "petal", "scatter"]',
    'def f(k):\n    return k in ("ring", "spiral", "petal")',
])
def test_the_scan_finds_a_spelt_list(source: str) -> None:
    assert kind_lists(source)


@pytest.mark.parametrize("source", [
    'x = kind == "petal"',
    'x = ("aimed_fan", "aimed fan")',
    'x = PATTERNS[kind].rotates',
    'x = "ring spiral"',
])
def test_the_scan_passes_one_kind_or_none(source: str) -> None:
    assert not kind_lists(source)


# --- (c) the properties are what the compiler does -----------------------------------------------

def _program_phase(kind: str, **fields: object) -> dict[str, object]:
    doc = json.loads(BASELINE_PATH.read_text(encoding="utf-8"))
    pattern = doc["phases"][0]["pattern"]
    pattern.update(type=kind, bullets_per_wave=4, spread_angle_deg=120, rotation_per_wave_deg=15,
                   layer_count=2, bidirectional=False, bullet_speed=4)
    pattern.update(fields)
    phase: dict[str, object] = compile_program(BulletHellConfig.model_validate(doc))["phases"][0]
    return phase


@pytest.mark.parametrize("kind", PATTERN_NAMES)
def test_the_compiler_does_what_the_record_says(kind: str) -> None:
    spec = PATTERNS[kind]
    phase = _program_phase(kind)
    assert phase["pattern"] == kind
    assert phase["pattern_code"] == spec.code
    assert (phase["rotation_per_wave"] != 0) is spec.rotates
    assert phase["aim"] is spec.aims
    assert (phase["scatter_span"] != 0) is spec.draws
    slots = phase["slots"]
    assert isinstance(slots, list) and len(slots) == 4 * 2  # bullets x layers
    first, second = slots[0][0], slots[1][0]
    if spec.slots in ("arc", "petal"):  # from straight down (270), half a step in: 270 - 60 + 15
        assert first == deg_to_angle(Fraction(225))
        expected = deg_to_angle(Fraction(255))  # a step on; a petal's second bullet wobbles out
        assert second == expected if spec.slots == "arc" else second != expected
    elif spec.slots == "fan":  # one edge of the spread, centred on the aim
        assert first == deg_to_angle(Fraction(-60))
    else:  # the left edge; the draw adds the rest
        assert {slot[0] for slot in slots} == {deg_to_angle(Fraction(-60))}
    speeds = {slot[1] for slot in slots}
    base = round_half_away(Fraction(4) * ONE / TICK_HZ)
    assert (speeds != {base}) is (spec.slots == "petal")  # only a petal's outer layers are faster


@pytest.mark.parametrize("kind", PATTERN_NAMES)
def test_the_rules_ask_the_records_minimum_layers(kind: str) -> None:
    doc = json.loads(BASELINE_PATH.read_text(encoding="utf-8"))
    doc["phases"][0]["pattern"].update(type=kind, layer_count=1, bidirectional=False)
    if kind == "aimed_fan":
        doc["phases"][0]["pattern"]["spread_angle_deg"] = 90
    rules = {issue.rule_id for issue in cross_field_issues(BulletHellConfig.model_validate(doc))}
    assert ("rules.petal_layers" in rules) is (PATTERNS[kind].min_layers > 1)
