"""The contract's numeric ranges, read from the models: one table for every consumer.

The goal applier (what a request may set), the repair calculators (how far a repair may
go) and the offline reader's messages ("allowed 0.5..12") all read these, so a range
changed in :mod:`gcv.contract.models` changes everywhere at once and the schema can never
disagree with them. The sim program's own ranges (integers after compilation) live with
the program model, ``gcv/sim/program_model.py``.
"""

from __future__ import annotations

from fractions import Fraction

from annotated_types import Ge, Le
from pydantic import BaseModel

from gcv.contract.models import Pattern, Targets


def _exact(value: object) -> Fraction:
    """The bound as written in the model: the shortest decimal text of a float, exactly."""
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(repr(float(value)))  # type: ignore[arg-type]


def model_bounds(model: type[BaseModel], name: str) -> tuple[Fraction, Fraction]:
    """``(lo, hi)`` of ``model.name``, inclusive, exactly."""
    lo = hi = None
    for meta in model.model_fields[name].metadata:
        if isinstance(meta, Ge):
            lo = _exact(meta.ge)
        elif isinstance(meta, Le):
            hi = _exact(meta.le)
    if lo is None or hi is None:
        raise KeyError(f"{model.__name__}.{name} has no inclusive range")
    return lo, hi


PATTERN_RANGES: dict[str, tuple[Fraction, Fraction]] = {
    name: model_bounds(Pattern, name)
    for name in ("bullets_per_wave", "wave_interval_ms", "bullet_speed", "bullet_lifetime_seconds",
                 "rotation_per_wave_deg", "spread_angle_deg", "layer_count")
}
TARGET_RANGES: dict[str, tuple[Fraction, Fraction]] = {
    name: model_bounds(Targets, name) for name in ("max_alive_bullets", "max_player_hits", "min_low_fps")
}
