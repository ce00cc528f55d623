"""One table of contract ranges: the schema, the goal applier and the repair calculators agree."""

from __future__ import annotations

from fractions import Fraction

from gcv.contract.jsonschema_check import config_schema
from gcv.contract.ranges import PATTERN_RANGES, TARGET_RANGES
from gcv.repair import calculators


def _schema_range(schema: dict, definition: str, name: str) -> tuple[Fraction, Fraction]:
    prop = schema["$defs"][definition]["properties"][name]
    return Fraction(str(prop["minimum"])), Fraction(str(prop["maximum"]))


def test_pattern_and_target_ranges_equal_the_published_schema() -> None:
    schema = config_schema()
    for name, bounds in PATTERN_RANGES.items():
        assert _schema_range(schema, "Pattern", name) == bounds, name
    for name, bounds in TARGET_RANGES.items():
        assert _schema_range(schema, "Targets", name) == bounds, name


def test_the_repair_calculators_read_the_same_ranges() -> None:
    assert calculators.BULLETS_MIN == PATTERN_RANGES["bullets_per_wave"][0]
    assert calculators.INTERVAL_MAX_MS == PATTERN_RANGES["wave_interval_ms"][1]
    assert calculators.LIFETIME_MIN == PATTERN_RANGES["bullet_lifetime_seconds"][0]
    assert calculators.SPEED_MIN == PATTERN_RANGES["bullet_speed"][0]
    assert calculators.LAYERS_MIN == PATTERN_RANGES["layer_count"][0]
