"""Field-level differences (gcv.validation.diff): by value for numbers, never a boolean for a
number, extra list items whole, and each edit's origin across rounds."""

from __future__ import annotations

from gcv.validation.diff import FieldChange, change_with_origins, diff_configs, percent_change
from tests.support.evalutil import base, variant


def test_numbers_compare_by_value_and_booleans_by_type() -> None:
    assert diff_configs({"a": 3, "c": True}, {"a": 3.0, "c": True}) == []
    assert diff_configs({"c": True}, {"c": 1}) == [FieldChange(path="$.c", before=True, after=1)]


def test_lists_item_by_item_and_extra_items_whole() -> None:
    assert diff_configs({"b": [1, 2, 3]}, {"b": [1, 5]}) == [
        FieldChange(path="$.b[1]", before=2, after=5), FieldChange(path="$.b[2]", before=3, kind="removed")]
    assert diff_configs({"b": []}, {"b": [{"x": 1}]}) == [FieldChange(path="$.b[0]", after={"x": 1}, kind="added")]


def test_keys_in_the_first_documents_order_then_the_new_ones() -> None:
    changes = diff_configs({"z": 1, "a": 1, "gone": 0}, {"a": 2, "z": 2, "new": 1})
    assert [(c.path, c.kind) for c in changes] == [("$.z", "changed"), ("$.a", "changed"), ("$.gone", "removed"),
                                                   ("$.new", "added")]


def test_configs_diff_by_path() -> None:
    assert diff_configs(base(), variant(base(), "phase_2", bullet_speed=2.0)) == [
        FieldChange(path="$.phases[1].pattern.bullet_speed", before=base().phases[1].pattern.bullet_speed, after=2)]


def test_percent_change() -> None:
    assert percent_change(3, 2.4) == -20.0 and percent_change(12, 14) == 16.7
    assert percent_change(0, 1) is None and percent_change(True, 2) is None and percent_change("a", 1) is None


def test_origins_a_repair_edit_is_never_shown_as_requested() -> None:
    b = base()
    requested = variant(b, "phase_2", bullets_per_wave=b.phases[1].pattern.bullets_per_wave + 4)
    repaired = variant(requested, "phase_2", bullet_speed=1.5)
    rounds = [(1, "requirement", requested), (2, "repair:REDUCE_BULLET_SPEED", repaired)]
    out = {c["path"]: c for c in change_with_origins(b, rounds)}
    bpw, speed = out["$.phases[1].pattern.bullets_per_wave"], out["$.phases[1].pattern.bullet_speed"]
    assert bpw["origin"] == "requested" and bpw["requested"] and bpw["requested_value"] == bpw["after"]
    assert speed["origin"] == "repair:REDUCE_BULLET_SPEED" and not speed["requested"]
    assert speed["requested_value"] is None and speed["after"] == 1.5
    assert [c["path"] for c in change_with_origins(b, rounds, upto=1)] == ["$.phases[1].pattern.bullets_per_wave"]
    assert change_with_origins(b, []) == []
