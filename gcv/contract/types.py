"""Field types shared by every contract model.

Why these exist: the simulator converts decimals to fixed point exactly, so a decimal may
carry at most six decimal places (checked on the shortest round-trip text of the float,
which is what a person typed). Integers accept an integral float such as ``3.0`` because
JSON Schema's ``integer`` does too; pydantic and the committed schema must agree.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

MAX_DECIMAL_PLACES = 6
# JSON Schema extension keyword; gcv.contract.jsonschema_check enforces it.
DECIMALS_KEYWORD = "x-maxDecimalPlaces"


def decimal_places(value: float) -> int:
    """Decimal places of the shortest text that round-trips ``value``."""
    exponent = Decimal(repr(float(value))).as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def _check_decimals(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number (NaN and Infinity are not allowed)")
    places = decimal_places(value)
    if places > MAX_DECIMAL_PLACES:
        raise ValueError(
            f"has {places} decimal places; at most {MAX_DECIMAL_PLACES} are allowed so that "
            "fixed-point conversion is exact"
        )
    return value


def _integral_float_to_int(value: Any) -> Any:
    if isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
        return int(value)
    return value


def dec_field(ge: float | None = None, le: float | None = None, gt: float | None = None,
              lt: float | None = None, description: str = "") -> Any:
    """The bounds of a decimal field: ``Annotated[float, dec_field(...), DEC_CHECK]``."""
    return Field(ge=ge, le=le, gt=gt, lt=lt, description=description,
                 json_schema_extra={DECIMALS_KEYWORD: MAX_DECIMAL_PLACES})


def int_field(ge: int | None = None, le: int | None = None, description: str = "") -> Any:
    """The bounds of an integer field: ``Annotated[int, INT_COERCE, int_field(...)]``."""
    return Field(ge=ge, le=le, description=description)


# at most six decimal places, finite (after the float is parsed)
DEC_CHECK = AfterValidator(_check_decimals)
# an integral float (3.0) is accepted as JSON Schema does (before the int is parsed)
INT_COERCE = BeforeValidator(_integral_float_to_int)


def Dec(ge: float | None = None, le: float | None = None, gt: float | None = None,
        lt: float | None = None, description: str = "") -> Any:
    """A bounded decimal with at most six decimal places (a type built at run time: the
    models spell it ``Annotated[float, dec_field(...), DEC_CHECK]`` so a type checker sees it)."""
    return Annotated[float, dec_field(ge=ge, le=le, gt=gt, lt=lt, description=description), DEC_CHECK]


def Int(ge: int | None = None, le: int | None = None, description: str = "") -> Any:
    """A bounded integer; an integral float (3.0) is accepted as JSON Schema does (spelled
    ``Annotated[int, INT_COERCE, int_field(...)]`` in the models)."""
    return Annotated[int, INT_COERCE, int_field(ge=ge, le=le, description=description)]
