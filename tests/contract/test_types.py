"""The shared field types (gcv.contract.types): at most six decimal places, finite, and an
integral float accepted where an integer is due (as JSON Schema does)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from gcv.contract.types import DECIMALS_KEYWORD, MAX_DECIMAL_PLACES, Dec, Int, decimal_places


class _M(BaseModel):
    speed: Dec(ge=0, le=10)  # type: ignore[valid-type]
    count: Int(ge=1, le=5)  # type: ignore[valid-type]
    free: Dec() = 0.0  # type: ignore[valid-type]


@pytest.mark.parametrize("value,places", [(1.25, 2), (0.1, 1), (1e-06, 6), (1e-07, 7), (3.0, 1), (7, 1)])
def test_decimal_places_counts_the_shortest_round_trip_text(value: float, places: int) -> None:
    assert decimal_places(value) == places


def test_six_places_pass_and_seven_are_refused() -> None:
    assert MAX_DECIMAL_PLACES == 6
    assert _M(speed=1.123456, count=2).speed == 1.123456
    with pytest.raises(ValidationError, match="7 decimal places"):
        _M(speed=1.1234567, count=2)
    with pytest.raises(ValidationError, match="finite"):
        _M(speed=1, count=2, free=float("inf"))
    with pytest.raises(ValidationError):
        _M(speed=10.5, count=2)  # the bound still holds


def test_an_integral_float_is_an_integer_and_a_fraction_is_not() -> None:
    m = _M(speed=1, count=3.0)
    assert m.count == 3 and type(m.count) is int
    with pytest.raises(ValidationError):
        _M(speed=1, count=3.5)
    with pytest.raises(ValidationError):
        _M(speed=1, count=6)


def test_the_schema_carries_the_decimal_places_keyword() -> None:
    props = _M.model_json_schema()["properties"]
    assert props["speed"][DECIMALS_KEYWORD] == 6 and props["speed"]["maximum"] == 10
    assert DECIMALS_KEYWORD not in props["count"] and props["count"]["type"] == "integer"
