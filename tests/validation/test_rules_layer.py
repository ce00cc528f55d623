"""Every rule id of the four layers, each triggered by a minimal mutation of the baseline."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings, strategies as st

from gcv.contract.jsonschema_check import GcvValidator
from gcv.contract.loading import GcvInputError
from gcv.contract.models import BulletHellConfig
from gcv.sim.program import compile_program
from gcv.sim.schedule import emission_schedule
from gcv.validation.diff import diff_configs
from gcv.validation.validate import validate
from gcv.validation import schema_layer
from gcv.validation.report import ValidationIssue, ValidationReport
from gcv.validation.rules_layer import check_rules, duplicate_bullets

BASELINE_FILE = Path(__file__).resolve().parents[2] / "artifacts" / "baselines" / "shrine_trial.json"
BASE: dict[str, Any] = json.loads(BASELINE_FILE.read_text(encoding="utf-8"))


def data() -> dict[str, Any]:
    return copy.deepcopy(BASE)


def with_(changes: dict[str, Any], doc: dict[str, Any] | None = None) -> dict[str, Any]:
    """A copy of the baseline with ``{"phases.1.pattern.type": "ring", ...}`` applied.

    The value ``DELETE`` removes the key.
    """
    out = copy.deepcopy(doc) if doc is not None else data()
    for dotted, value in changes.items():
        *parents, last = [int(p) if p.isdigit() else p for p in dotted.split(".")]
        node: Any = out
        for part in parents:
            node = node[part]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
    return out


DELETE = object()


def issues_of(report: ValidationReport, rule_id: str) -> list[ValidationIssue]:
    return [issue for issue in report.errors if issue.rule_id == rule_id]


def only(report: ValidationReport, rule_id: str) -> ValidationIssue:
    found = issues_of(report, rule_id)
    assert len(found) == 1, f"expected one {rule_id}, got {report.rule_ids()}"
    assert not report.ok
    return found[0]


def check(candidate: Any, rule_id: str, path: str, actual: Any, allowed: Any = None, *,
          goal: Any = None, baseline: Any = None) -> ValidationIssue:
    report = validate(baseline if baseline is not None else BASE, candidate, goal)
    issue = only(report, rule_id)
    assert issue.path == path
    assert issue.actual == actual
    if allowed is not None:
        assert issue.allowed == allowed
    assert issue.message and issue.message[-1] != " "
    return issue


# --- the baseline and the report ---------------------------------------------------------------

def test_baseline_validates_cleanly_against_itself() -> None:
    report = validate(BASE, BASE)
    assert report.ok
    assert [(layer.layer, layer.status) for layer in report.layers] == [
        ("schema", "passed"), ("reference", "skipped"), ("rules", "passed"), ("safety", "passed")]
    assert report.layer("reference").reason == "no goal given"
    assert report.candidate_hash == report.baseline_hash
    assert report.contract == "gcv.bullet_hell/1"


def test_models_are_accepted(baseline: BulletHellConfig) -> None:
    report = validate(baseline, baseline, {"target_phase_ids": ["phase_2"]})
    assert report.ok and report.layer("reference").status == "passed"
    assert validate(BASE, baseline).candidate_hash == report.candidate_hash


def test_schema_failure_skips_later_layers() -> None:
    report = validate(BASE, with_({"phases.1.pattern.bullets_per_wave": 0}), {"target_phase_ids": ["x"]})
    assert [layer.status for layer in report.layers] == ["failed", "skipped", "skipped", "skipped"]
    assert all("schema layer failed" in (layer.reason or "") for layer in report.layers[1:])
    assert report.candidate_hash is not None


def test_candidate_hash_is_none_when_not_encodable() -> None:
    report = validate(BASE, with_({"phases.0.pattern.bullet_speed": float("nan")}))
    assert report.candidate_hash is None
    json.dumps(report.model_dump(mode="json"), allow_nan=False)


def test_invalid_baseline_is_an_input_error() -> None:
    with pytest.raises(GcvInputError) as info:
        validate(with_({"limits.max_alive_bullets": 0}), BASE)
    assert info.value.file == "baseline"
    assert info.value.path_in_doc == "$.limits.max_alive_bullets"


def test_report_validates_against_committed_schema(repo_root: Path) -> None:
    schema = json.loads((repo_root / "schemas" / "validation_report.schema.json").read_text())
    failing = with_({"phases.1.pattern.bullets_per_wave": 64, "phases.1.pattern.bullet_lifetime_seconds": 12,
                     "name": "x"})
    for report in (validate(BASE, BASE), validate(BASE, failing),
                   validate(BASE, {"contract": 1}, {"target_phase_ids": []})):
        doc = {**report.model_dump(mode="json"), "exit_code": 0 if report.ok else 1}
        GcvValidator(schema).validate(doc)


@pytest.mark.parametrize("candidate", [None, [], "config", 3, {"contract": "gcv.bullet_hell/1"}])
def test_candidate_of_the_wrong_shape(candidate: Any) -> None:
    report = validate(BASE, candidate)
    assert not report.ok
    assert report.layer("schema").status == "failed"


# --- layer 1: schema ------------------------------------------------------------------------------

def test_schema_extra_field() -> None:
    issue = check(with_({"phases.1.pattern.colour": "red"}), "schema.extra_field",
                  "$.phases[1].pattern.colour", "red")
    assert "bullets_per_wave" in issue.allowed and "remove it" in issue.message


def test_schema_extra_field_suggests_spelling() -> None:
    doc = with_({"phases.1.pattern.bullets_per_wave": DELETE, "phases.1.pattern.bulets_per_wave": 12})
    report = validate(BASE, doc)
    extra = only(report, "schema.extra_field")
    assert "did you mean 'bullets_per_wave'" in extra.message
    assert only(report, "schema.missing_field").path == "$.phases[1].pattern.bullets_per_wave"


def test_schema_extra_field_at_root() -> None:
    check(with_({"comment": "hi"}), "schema.extra_field", "$.comment", "hi")


def test_schema_missing_field() -> None:
    check(with_({"targets.min_low_fps": DELETE}), "schema.missing_field", "$.targets.min_low_fps", None,
          "number in [1, 240], at most 6 decimal places")


@pytest.mark.parametrize("value", ["12", 12.5, True, None, [12]])
def test_schema_type_integer(value: Any) -> None:
    check(with_({"phases.1.pattern.bullets_per_wave": value}), "schema.type",
          "$.phases[1].pattern.bullets_per_wave", value, "integer in [1, 64]")


def test_schema_type_number_and_object() -> None:
    check(with_({"player.move_speed": "fast"}), "schema.type", "$.player.move_speed", "fast",
          "number in [0.5, 30], at most 6 decimal places")
    check(with_({"boss.position": [0, 7]}), "schema.type", "$.boss.position", [0, 7])
    check(with_({"phases.0.pattern.bidirectional": 0}), "schema.type",
          "$.phases[0].pattern.bidirectional", 0, "true or false")


def test_schema_integral_float_is_an_integer() -> None:
    assert validate(BASE, with_({"phases.1.pattern.bullets_per_wave": 12.0})).ok


def test_schema_range() -> None:
    check(with_({"phases.1.pattern.bullets_per_wave": 65}), "schema.range",
          "$.phases[1].pattern.bullets_per_wave", 65, "integer in [1, 64]")
    check(with_({"phases.2.trigger_boss_hp_below": 0}), "schema.range",
          "$.phases[2].trigger_boss_hp_below", 0, "number in (0, 1], at most 6 decimal places")
    check(with_({"limits.max_alive_bullets": 351}), "schema.range", "$.limits.max_alive_bullets", 351,
          "integer in [1, 350]")


def test_schema_decimals() -> None:
    issue = check(with_({"phases.0.pattern.bullet_speed": 3.1234567}), "schema.decimals",
                  "$.phases[0].pattern.bullet_speed", 3.1234567,
                  "number in [0.5, 12], at most 6 decimal places")
    assert "7 decimal places" in issue.message


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_schema_not_finite(value: float) -> None:
    shown = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(value)]
    check(with_({"phases.0.pattern.bullet_speed": value}), "schema.not_finite",
          "$.phases[0].pattern.bullet_speed", shown)


def test_schema_enum() -> None:
    check(with_({"phases.1.pattern.type": "laser"}), "schema.enum", "$.phases[1].pattern.type", "laser",
          'one of "ring", "spiral", "aimed_fan", "petal", "scatter"')
    check(with_({"contract": "gcv.bullet_hell/2"}), "schema.enum", "$.contract", "gcv.bullet_hell/2",
          'exactly "gcv.bullet_hell/1"')


def test_schema_length() -> None:
    check(with_({"phases": []}), "schema.length", "$.phases", [], "list of 1..6 items")
    seven = with_({"phases": [copy.deepcopy(BASE["phases"][0]) for _ in range(7)]})
    # over its maxItems a list is refused before its items are validated; actual is the count
    check(seven, "schema.length", "$.phases", 7, "list of 1..6 items")
    check(with_({"name": ""}), "schema.length", "$.name", "", "string of 1..120 characters")


def test_schema_pattern() -> None:
    check(with_({"phases.1.phase_id": "Phase 2"}), "schema.pattern", "$.phases[1].phase_id", "Phase 2")
    check(with_({"phases.1.phase_id": "phase_2\n"}), "schema.pattern", "$.phases[1].phase_id", "phase_2\n")


def test_schema_unicode() -> None:
    check(with_({"phases.1.title": "\ud800"}), "schema.unicode", "$.phases[1].title", "\\ud800")


def test_schema_disagreement_when_json_schema_accepts_more(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema_layer, "config_validator", lambda: GcvValidator({}))
    issue = check(with_({"phases.1.pattern.bullets_per_wave": 0}), "schema.disagreement", "$", None)
    assert "gcv schema export" in issue.message


def test_schema_disagreement_when_json_schema_rejects_more(monkeypatch: pytest.MonkeyPatch) -> None:
    strict = GcvValidator({"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}})
    monkeypatch.setattr(schema_layer, "config_validator", lambda: strict)
    report = validate(BASE, BASE)
    issue = only(report, "schema.disagreement")
    assert (issue.path, issue.actual) == ("$.name", "Shrine Trial")
    assert [layer.status for layer in report.layers[1:]] == ["skipped"] * 3


def test_schema_disagreement_when_json_schema_crashes(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        schema: dict[str, Any] = {}

        def iter_errors(self, instance: Any) -> Any:
            raise jsonschema.exceptions.SchemaError("boom")

    monkeypatch.setattr(schema_layer, "config_validator", lambda: Broken())
    issue = only(validate(BASE, BASE), "schema.disagreement")
    assert "boom" in issue.message


def test_schema_invalid_is_the_fallback() -> None:
    assert schema_layer._rule_for({"type": "brand_new_pydantic_error", "msg": "?"}) == "schema.invalid"
    assert schema_layer._rule_for({"type": "value_error", "msg": "Value error, odd"}) == "schema.invalid"


def test_schema_optional_union_reports_one_issue() -> None:
    report = validate(BASE, BASE, {"target_phase_ids": ["phase_1"], "constraints": {"max_alive_bullets": "x"}})
    assert report.layer("reference").status == "failed"
    assert report.rule_ids() == ["reference.goal_invalid"]


# --- layer 2: reference ---------------------------------------------------------------------------

def test_reference_goal_invalid() -> None:
    check(BASE, "reference.goal_invalid", "goal:$.target_phase_ids", [], goal={"target_phase_ids": []})


def test_reference_unsupported_pattern_type() -> None:
    issue = check(BASE, "reference.unsupported_pattern_type", "goal:$.pattern_type", "laser",
                  goal={"target_phase_ids": ["phase_2"], "pattern_type": "laser"})
    assert issue.allowed == ["ring", "spiral", "aimed_fan", "petal", "scatter"]


def test_reference_duplicate_target_phase() -> None:
    check(BASE, "reference.duplicate_target_phase", "goal:$.target_phase_ids[1]", "phase_2",
          goal={"target_phase_ids": ["phase_2", "phase_2"]})


def test_reference_phase_not_in_baseline() -> None:
    candidate = with_({"phases.2.phase_id": "phase_x"})
    issue = check(candidate, "reference.phase_not_in_baseline", "goal:$.target_phase_ids[0]", "phase_x",
                  ["phase_1", "phase_2", "phase_3"], goal={"target_phase_ids": ["phase_x"]})
    assert "baseline does not have" in issue.message


def test_reference_phase_not_in_candidate() -> None:
    candidate = with_({"phases.2.phase_id": "phase_x"})
    check(candidate, "reference.phase_not_in_candidate", "goal:$.target_phase_ids[0]", "phase_3",
          ["phase_1", "phase_2", "phase_x"], goal={"target_phase_ids": ["phase_3"]})


def test_reference_phase_in_neither() -> None:
    report = validate(BASE, BASE, {"target_phase_ids": ["phase_9"]})
    assert report.rule_ids() == ["reference.phase_not_in_baseline", "reference.phase_not_in_candidate"]


def test_reference_pattern_type_mismatch() -> None:
    check(BASE, "reference.pattern_type_mismatch", "$.phases[0].pattern.type", "ring", "spiral",
          goal={"target_phase_ids": ["phase_1"], "pattern_type": "spiral"})


def test_reference_bidirectional_mismatch() -> None:
    check(BASE, "reference.bidirectional_mismatch", "$.phases[1].pattern.bidirectional", False, True,
          goal={"target_phase_ids": ["phase_2"], "bidirectional": True})


def test_reference_rotation_not_reversed() -> None:
    check(BASE, "reference.rotation_not_reversed", "$.phases[1].pattern.rotation_per_wave_deg", 17.0,
          "< 0", goal={"target_phase_ids": ["phase_2"], "reverse_rotation": True})
    issue = check(BASE, "reference.rotation_not_reversed", "$.phases[0].pattern.rotation_per_wave_deg",
                  0.0, goal={"target_phase_ids": ["phase_1"], "reverse_rotation": True})
    assert "does not rotate" in issue.message


def test_reference_goal_met() -> None:
    candidate = with_({"phases.1.pattern.bidirectional": True, "phases.1.pattern.rotation_per_wave_deg": -17})
    goal = {"target_phase_ids": ["phase_2"], "pattern_type": "spiral", "bidirectional": True,
            "reverse_rotation": True, "source_text": "make phase 2 a bidirectional reversed spiral"}
    report = validate(BASE, candidate, goal)
    assert report.ok, report.rule_ids()
    assert report.layer("reference").status == "passed" and report.goal_given


# --- layer 3: rules (cross-field) ------------------------------------------------------------------

def rules_issue(cfg: BulletHellConfig, rule_id: str) -> ValidationIssue:
    found = [i for i in check_rules(cfg).errors if i.rule_id == rule_id]
    assert len(found) == 1, [i.rule_id for i in check_rules(cfg).errors]
    return found[0]


def test_rules_phase_count(baseline: BulletHellConfig) -> None:
    # unreachable through the schema (1..6 phases), so the rules layer is checked directly
    baseline.phases = []
    issue = rules_issue(baseline, "rules.phase_count")
    assert (issue.path, issue.actual, issue.allowed) == ("$.phases", 0, "1..6 phases")


def test_rules_phase_count_seven(baseline: BulletHellConfig) -> None:
    extra = [p.model_copy(update={"phase_id": f"extra_{i}", "trigger_boss_hp_below": 0.3 - i / 100})
             for i, p in enumerate([baseline.phases[2]] * 4)]
    baseline.phases = [*baseline.phases, *extra]
    issue = rules_issue(baseline, "rules.phase_count")
    assert issue.actual == 7


def test_rules_unique_phase_ids() -> None:
    check(with_({"phases.2.phase_id": "phase_1"}), "rules.unique_phase_ids", "$.phases[2].phase_id",
          "phase_1", "an id not used by another phase (already used by $.phases[0])")


def test_rules_first_trigger() -> None:
    check(with_({"phases.0.trigger_boss_hp_below": 0.9}), "rules.first_trigger",
          "$.phases[0].trigger_boss_hp_below", 0.9, 1.0)


def test_rules_trigger_order() -> None:
    check(with_({"phases.2.trigger_boss_hp_below": 0.67}), "rules.trigger_order",
          "$.phases[2].trigger_boss_hp_below", 0.67, "< 0.67 (the trigger of $.phases[1])")
    check(with_({"phases.2.trigger_boss_hp_below": 0.8}), "rules.trigger_order",
          "$.phases[2].trigger_boss_hp_below", 0.8, "< 0.67 (the trigger of $.phases[1])")


def test_rules_target_max_alive_bullets() -> None:
    check(with_({"limits.max_alive_bullets": 300}), "rules.target_max_alive_bullets",
          "$.targets.max_alive_bullets", 350, "<= 300 (limits.max_alive_bullets)")


def test_rules_target_max_player_hits() -> None:
    check(with_({"targets.max_player_hits": 4}), "rules.target_max_player_hits",
          "$.targets.max_player_hits", 4, "<= 3 (limits.max_player_hits)")


def test_rules_target_min_low_fps() -> None:
    check(with_({"targets.min_low_fps": 54.5}), "rules.target_min_low_fps", "$.targets.min_low_fps", 54.5,
          ">= 55 (limits.min_low_fps)")


def test_rules_target_min_survival() -> None:
    check(with_({"targets.min_survival_seconds": 36.5}), "rules.target_min_survival",
          "$.targets.min_survival_seconds", 36.5, "<= 36 (scenario.duration_seconds)")


def test_rules_graze_radius() -> None:
    check(with_({"player.graze_radius": 0.28}), "rules.graze_radius", "$.player.graze_radius", 0.28,
          "> 0.28 (player.hit_radius)")


def test_rules_player_in_arena() -> None:
    check(with_({"player.start_position.x": 7.5}), "rules.player_in_arena", "$.player.start_position.x",
          7.5, "[-7, 7]")
    check(with_({"player.start_position.y": -10.000001}), "rules.player_in_arena",
          "$.player.start_position.y", -10.000001, "[-10, 10]")


def test_rules_positions_on_the_border_are_inside(baseline: BulletHellConfig) -> None:
    baseline.player.start_position.x = -7.0
    baseline.boss.position.y = 10.0
    assert check_rules(baseline).status == "passed"


def test_rules_boss_in_arena() -> None:
    check(with_({"boss.position.y": 10.5}), "rules.boss_in_arena", "$.boss.position.y", 10.5, "[-10, 10]")


def test_rules_aimed_fan_spread() -> None:
    check(with_({"phases.0.pattern.type": "aimed_fan"}), "rules.aimed_fan_spread",
          "$.phases[0].pattern.spread_angle_deg", 360.0, "<= 180 for aimed_fan")


def test_rules_petal_layers() -> None:
    check(with_({"phases.2.pattern.layer_count": 1}), "rules.petal_layers",
          "$.phases[2].pattern.layer_count", 1, ">= 2 for petal")


@pytest.mark.parametrize("changes,word", [
    ({"phases.0.pattern.bidirectional": True}, "ring"),
    ({"phases.0.pattern.bidirectional": True, "phases.0.pattern.type": "aimed_fan",
      "phases.0.pattern.spread_angle_deg": 90}, "twice"),
    ({"phases.1.pattern.bidirectional": True, "phases.1.pattern.rotation_per_wave_deg": 0}, "rotation"),
    ({"phases.1.pattern.bidirectional": True, "phases.1.pattern.type": "scatter"}, "random"),
])
def test_rules_bidirectional_needs_rotation(changes: dict[str, Any], word: str) -> None:
    index = int(next(iter(changes)).split(".")[1])
    issue = check(with_(changes), "rules.bidirectional_needs_rotation",
                  f"$.phases[{index}].pattern.bidirectional", True)
    assert "larger bullets_per_wave" in issue.message and word in issue.message


def test_rules_program_rules_wait_for_cross_field_rules() -> None:
    doc = with_({"phases.2.pattern.layer_count": 1, "phases.1.pattern.bullets_per_wave": 64,
                 "phases.1.pattern.bullet_lifetime_seconds": 12})
    layer = validate(BASE, doc).layer("rules")
    assert [i.rule_id for i in layer.errors] == ["rules.petal_layers"]
    assert "rules.alive_bound" in layer.notes[0]


# --- layer 3: rules (program) ------------------------------------------------------------------------

def naive_duplicates(program: dict[str, Any], schedule: Any) -> list[tuple[int, int, list[list[int]]]]:
    """Per wave, slot by slot: the obviously-correct (slow) version of rules.duplicate_bullets."""
    out = []
    for window in schedule.windows:
        phase = program["phases"][window.index]
        if phase["pattern"] == "scatter":
            continue
        for wave in range(len(window.wave_ticks)):
            seen: dict[tuple[int, int], list[int]] = {}
            pairs = []
            for k, (offset, speed, sign) in enumerate(phase["slots"]):
                key = ((offset + wave * phase["rotation_per_wave"] * sign) % 65536, speed)
                pairs += [[j, k] for j in seen.get(key, [])]
                seen.setdefault(key, []).append(k)
            if pairs:
                out.append((window.index, wave, sorted(pairs)))
                break
    return out


def test_rules_duplicate_bullets_same_wave_layers() -> None:
    # a 90 degree ring in 2 layers: layer 1 is shifted by exactly one step onto layer 0
    doc = with_({"phases.0.pattern.spread_angle_deg": 90, "phases.0.pattern.layer_count": 2})
    issue = check(doc, "rules.duplicate_bullets", "$.phases[0].pattern", 15,
                  "0 bullets of one wave at the same angle and speed")
    assert issue.detail is not None
    assert (issue.detail["phase_id"], issue.detail["wave_index"], issue.detail["tick"]) == ("phase_1", 0, 0)
    assert issue.detail["slot_pairs"][0] == [1, 16]
    assert issue.detail["slots"][0] == [{"slot": 1, "direction": 0, "layer": 0, "bullet": 1},
                                        {"slot": 16, "direction": 0, "layer": 1, "bullet": 0}]
    assert issue.detail["pair_events"] == 15 * 10  # every one of the 10 waves phase_1 fires


def test_rules_duplicate_bullets_crossing_arms() -> None:
    # a bidirectional 2-bullet spiral turning 45 deg/wave: the arms meet exactly in wave 1
    doc = with_({"phases.1.pattern.bullets_per_wave": 2, "phases.1.pattern.bidirectional": True,
                 "phases.1.pattern.rotation_per_wave_deg": 45})
    issue = check(doc, "rules.duplicate_bullets", "$.phases[1].pattern", 2)
    assert issue.detail is not None
    assert issue.detail["wave_index"] == 1
    assert issue.detail["tick"] == 708 + 42
    assert issue.detail["slot_pairs"] == [[0, 2], [1, 3]]


@pytest.mark.parametrize("bullets", [2, 3, 5, 12])
@pytest.mark.parametrize("rotation", [17, 45, 11.25, -22.5, 90])
def test_rules_duplicate_bullets_matches_naive_check(bullets: int, rotation: float) -> None:
    doc = with_({"phases.1.pattern.bullets_per_wave": bullets, "phases.1.pattern.bidirectional": True,
                 "phases.1.pattern.rotation_per_wave_deg": rotation,
                 "phases.0.pattern.spread_angle_deg": 90, "phases.0.pattern.layer_count": 2})
    program = compile_program(BulletHellConfig.model_validate(doc))
    schedule = emission_schedule(program)
    fast = [(d["index"], d["wave_index"], sorted(d["slot_pairs"])) for d in duplicate_bullets(program, schedule)]
    assert fast == naive_duplicates(program, schedule)


def test_duplicate_bullets_report_the_earliest_meeting() -> None:
    # a two-way 2-bullet spiral over the whole turn, 45 deg/wave: the arms 90 deg apart meet
    # in wave 1, those 270 deg apart in wave 3; the report names wave 1 and its pairs only
    doc = with_({"phases.1.pattern.type": "spiral", "phases.1.pattern.bullets_per_wave": 2,
                 "phases.1.pattern.bidirectional": True, "phases.1.pattern.spread_angle_deg": 360,
                 "phases.1.pattern.rotation_per_wave_deg": 45})
    program = compile_program(BulletHellConfig.model_validate(doc))
    schedule = emission_schedule(program)
    (found,) = duplicate_bullets(program, schedule)
    assert (found["index"], found["wave_index"], found["slot_pairs"]) == (1, 1, [[0, 2], [1, 3]])
    assert found["pair_events"] == naive_pair_events(program, schedule)[1]


def naive_pair_events(program: dict[str, Any], schedule: Any) -> dict[int, int]:
    """Colliding slot pairs summed over every wave, per phase index, wave by wave."""
    out: dict[int, int] = {}
    for window in schedule.windows:
        phase = program["phases"][window.index]
        if phase["pattern"] == "scatter":
            continue
        total = 0
        for wave in range(len(window.wave_ticks)):
            seen: dict[tuple[int, int], int] = {}
            for offset, speed, sign in phase["slots"]:
                key = ((offset + wave * phase["rotation_per_wave"] * sign) % 65536, speed)
                total += seen.get(key, 0)
                seen[key] = seen.get(key, 0) + 1
        if total:
            out[window.index] = total
    return out


@settings(max_examples=150, deadline=None)
@given(pattern=st.sampled_from(["spiral", "spiral", "ring", "petal", "aimed_fan"]), bullets=st.integers(1, 12),
       layers=st.integers(1, 4), bidirectional=st.booleans(),
       spread=st.sampled_from([1, 30, 45, 90, 120, 180, 359.5, 360, 360, 360]),
       # mostly exact fractions of a half turn (they make arms meet), some arbitrary tenths
       rotation=st.one_of(st.builds(lambda j, m: 180 * j / m, st.integers(-8, 8),
                                    st.sampled_from([1, 2, 4, 5, 8, 10, 16, 32])).filter(lambda r: abs(r) <= 180),
                          st.integers(-1800, 1800).map(lambda r: r / 10)))
def test_duplicate_bullets_match_the_wave_by_wave_count(pattern: str, bullets: int, layers: int,
                                                        bidirectional: bool, spread: float,
                                                        rotation: float) -> None:
    doc = with_({"phases.1.pattern.type": pattern, "phases.1.pattern.bullets_per_wave": bullets,
                 "phases.1.pattern.layer_count": layers, "phases.1.pattern.bidirectional": bidirectional,
                 "phases.1.pattern.spread_angle_deg": spread, "phases.1.pattern.rotation_per_wave_deg": rotation})
    program = compile_program(BulletHellConfig.model_validate(doc))
    schedule = emission_schedule(program)
    found = duplicate_bullets(program, schedule)
    assert [(d["index"], d["wave_index"], sorted(d["slot_pairs"])) for d in found] == naive_duplicates(program, schedule)
    assert {d["index"]: d["pair_events"] for d in found} == naive_pair_events(program, schedule)
    for d in found:
        assert d["slot_pairs"] == sorted(d["slot_pairs"]) and all(a < b for a, b in d["slot_pairs"])


def test_rules_alive_bound() -> None:
    # 4 layers x 64 petals every 51 ticks, living 300 ticks: 6 waves x 256 alive in phase_3,
    # plus the last of phase_2's bullets
    doc = with_({"phases.2.pattern.bullets_per_wave": 64, "phases.2.pattern.layer_count": 4})
    issue = check(doc, "rules.alive_bound", "$.phases[2].pattern", 1548, "<= 350 (limits.max_alive_bullets)")
    assert issue.detail == {"alive_upper_bound": 1548, "tick": 1677, "seconds": 27.95, "phase_id": "phase_3",
                            "contributions": {"phase_2": 12, "phase_3": 1536}, "limit": 350,
                            "limit_path": "$.limits.max_alive_bullets"}
    assert "tick 1677" in issue.message and "during phase 'phase_3'" in issue.message


def test_rules_alive_bound_points_at_the_phase_that_carries_over() -> None:
    # phase_2's 12 s bullets are still alive deep into phase_3: the peak is during phase_3,
    # but the phase to repair is phase_2
    doc = with_({"phases.1.pattern.bullets_per_wave": 64, "phases.1.pattern.bullet_lifetime_seconds": 12,
                 "phases.1.pattern.wave_interval_ms": 1000})
    issue = check(doc, "rules.alive_bound", "$.phases[1].pattern", 784)
    assert issue.detail is not None
    assert issue.detail["phase_id"] == "phase_3"
    assert issue.detail["tick"] >= 1422
    contributions = issue.detail["contributions"]
    assert max(contributions, key=contributions.get) == "phase_2"
    assert "phase 'phase_2' contributes" in issue.message


def test_rules_spawn_rate() -> None:
    # 4 layers x 50 bullets every 30 ticks = 400 bullets/s, each living 0.5 s: at most 200
    # alive at once, so the alive bound passes and only the rate rule catches it
    doc = with_({"phases.2.pattern.bullets_per_wave": 50, "phases.2.pattern.layer_count": 4,
                 "phases.2.pattern.wave_interval_ms": 500, "phases.2.pattern.bullet_lifetime_seconds": 0.5})
    issue = check(doc, "rules.spawn_rate", "$.phases[2].pattern", 400.0,
                  "<= 350 bullets/s (limits.max_alive_bullets per second)")
    assert issue.detail == {"phase_id": "phase_3", "bullets_per_wave_total": 200, "wave_interval_ticks": 30,
                            "limit": 350}


def test_rules_spawn_rate_boundary_passes() -> None:
    # 175 bullets every 30 ticks is exactly 350 bullets/s
    doc = with_({"phases.2.pattern.bullets_per_wave": 35, "phases.2.pattern.layer_count": 4,
                 "phases.2.pattern.wave_interval_ms": 500, "phases.2.pattern.bullet_lifetime_seconds": 0.5,
                 "phases.2.pattern.bidirectional": False})
    doc["phases"][2]["pattern"]["bullets_per_wave"] = 35
    report = validate(BASE, doc)
    assert "rules.spawn_rate" not in report.rule_ids()


# --- layer 4: safety --------------------------------------------------------------------------------

@pytest.mark.parametrize("dotted,value", [
    ("name", "Shrine Trial 2"),
    ("scenario.duration_seconds", 40),
    ("scenario.scenario_id", "other"),
    ("player.move_speed", 6),
    ("player.start_position.y", -6),
    ("boss.max_health", 4000),
    ("boss.position.x", 1),
])
def test_safety_immutable_field(dotted: str, value: Any) -> None:
    path = "$." + dotted
    before: Any = BASE
    for part in dotted.split("."):
        before = before[part]
    check(with_({dotted: value}), "safety.immutable_field", path, value, before)


def test_safety_phase_count() -> None:
    extra = copy.deepcopy(BASE["phases"][2])
    extra.update(phase_id="phase_4", title="Encore", trigger_boss_hp_below=0.1)
    check(with_({"phases": [*BASE["phases"], extra]}), "safety.phase_count", "$.phases", 4, 3)
    check(with_({"phases": BASE["phases"][:2]}), "safety.phase_count", "$.phases", 2, 3)


def test_safety_phase_id() -> None:
    check(with_({"phases.1.phase_id": "phase_2b"}), "safety.phase_id", "$.phases[1].phase_id",
          "phase_2b", "phase_2")


def test_safety_phase_order() -> None:
    doc = with_({"phases.1.phase_id": "phase_3", "phases.2.phase_id": "phase_2"})
    report = validate(BASE, doc)
    moved = issues_of(report, "safety.phase_id")
    assert [i.path for i in moved] == ["$.phases[1].phase_id", "$.phases[2].phase_id"]
    assert "is phase 2 in the baseline" in moved[0].message


def test_safety_phase_title() -> None:
    check(with_({"phases.1.title": "Spiral"}), "safety.phase_title", "$.phases[1].title", "Spiral",
          "Turning spiral")


def test_safety_phase_trigger() -> None:
    check(with_({"phases.1.trigger_boss_hp_below": 0.6}), "safety.phase_trigger",
          "$.phases[1].trigger_boss_hp_below", 0.6, 0.67)


def test_safety_limits_changed() -> None:
    check(with_({"limits.min_low_fps": 50}), "safety.limits_changed", "$.limits.min_low_fps", 50, 55)


def test_safety_pattern_and_tightened_targets_are_allowed() -> None:
    doc = with_({"phases.1.pattern.bullets_per_wave": 14, "phases.2.pattern.type": "spiral",
                 "targets.max_alive_bullets": 300, "targets.max_player_hits": 2,
                 "targets.min_low_fps": 58, "targets.min_survival_seconds": 36})
    assert validate(BASE, doc).ok


TIGHT_BASELINE = with_({"targets.max_alive_bullets": 300, "targets.max_player_hits": 2,
                        "targets.min_low_fps": 58, "targets.min_survival_seconds": 30})


@pytest.mark.parametrize("field,value,allowed", [
    ("max_alive_bullets", 320, "<= 300 (the baseline's target)"),
    ("max_player_hits", 3, "<= 2 (the baseline's target)"),
    ("min_low_fps", 56, ">= 58 (the baseline's target)"),
    ("min_survival_seconds", 29.5, ">= 30 (the baseline's target)"),
])
def test_safety_target_loosened(field: str, value: Any, allowed: str) -> None:
    candidate = with_({f"targets.{field}": value}, TIGHT_BASELINE)
    check(candidate, "safety.target_loosened", f"$.targets.{field}", value, allowed, baseline=TIGHT_BASELINE)


def test_safety_require_all_phases_cannot_be_dropped() -> None:
    check(with_({"targets.require_all_phases": False}), "safety.target_loosened",
          "$.targets.require_all_phases", False)
    relaxed = with_({"targets.require_all_phases": False})
    assert validate(relaxed, BASE).ok  # false -> true tightens


@pytest.mark.parametrize("field,value", [("max_alive_bullets", 320), ("max_player_hits", 3),
                                         ("min_low_fps", 56)])
def test_safety_designer_constraint_may_set_a_looser_target(field: str, value: Any) -> None:
    candidate = with_({f"targets.{field}": value}, TIGHT_BASELINE)
    goal = {"target_phase_ids": ["phase_2"], "constraints": {field: value}}
    assert validate(TIGHT_BASELINE, candidate, goal).ok
    near = {"target_phase_ids": ["phase_2"], "constraints": {field: value - 1 if field != "min_low_fps" else 57}}
    report = validate(TIGHT_BASELINE, candidate, near)
    assert only(report, "safety.target_loosened").message.endswith(")")


def test_safety_target_past_limit() -> None:
    goal = {"target_phase_ids": ["phase_2"], "constraints": {"min_low_fps": 50}}
    report = validate(BASE, with_({"targets.min_low_fps": 50}), goal)
    issue = only(report, "safety.target_past_limit")
    assert (issue.path, issue.actual, issue.allowed) == (
        "$.targets.min_low_fps", 50, ">= 55 (baseline limits.min_low_fps)")
    assert "rules.target_min_low_fps" in report.rule_ids()  # the candidate's own limits agree
    assert "safety.target_loosened" not in report.rule_ids()


def test_safety_target_past_limit_when_limits_also_moved() -> None:
    doc = with_({"limits.max_player_hits": 5, "targets.max_player_hits": 5})
    report = validate(BASE, doc)
    assert only(report, "safety.target_past_limit").path == "$.targets.max_player_hits"
    assert only(report, "safety.limits_changed").path == "$.limits.max_player_hits"


# --- diff ---------------------------------------------------------------------------------------------

def test_diff_identical_is_empty(baseline: BulletHellConfig) -> None:
    assert diff_configs(BASE, BASE) == []
    assert diff_configs(baseline, BASE) == []  # 3.0 in the model equals 3 in the file


def test_diff_fields_in_document_order() -> None:
    doc = with_({"targets.min_low_fps": 60, "phases.1.pattern.bullets_per_wave": 14, "name": "N"})
    assert [(c.path, c.before, c.after, c.kind) for c in diff_configs(BASE, doc)] == [
        ("$.name", "Shrine Trial", "N", "changed"),
        ("$.phases[1].pattern.bullets_per_wave", 12, 14, "changed"),
        ("$.targets.min_low_fps", 55, 60, "changed"),
    ]


def test_diff_bool_is_not_a_number() -> None:
    assert [c.path for c in diff_configs({"a": 1, "b": 0}, {"a": True, "b": False})] == ["$.a", "$.b"]
    assert diff_configs({"a": 3}, {"a": 3.0}) == []


def test_diff_list_length_and_keys() -> None:
    extra = copy.deepcopy(BASE["phases"][2])
    more = with_({"phases": [*BASE["phases"], extra], "comment": "x", "limits": DELETE})
    changes = diff_configs(BASE, more)
    assert [(c.path, c.kind) for c in changes] == [
        ("$.phases[3]", "added"), ("$.limits", "removed"), ("$.comment", "added")]
    assert changes[0].after == extra and changes[0].before is None
    fewer = diff_configs(BASE, with_({"phases": BASE["phases"][:1]}))
    assert [(c.path, c.kind) for c in fewer] == [("$.phases[1]", "removed"), ("$.phases[2]", "removed")]


def test_diff_type_changes() -> None:
    changes = diff_configs({"a": {"b": 1}, "c": [1]}, {"a": [1], "c": {"x": 1}})
    assert [(c.path, c.before, c.after) for c in changes] == [("$.a", {"b": 1}, [1]), ("$.c", [1], {"x": 1})]
