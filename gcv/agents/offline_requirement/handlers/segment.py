"""One segment of a clause as the numeric handlers see it: its text and how to find a number's field."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Callable

from gcv.agents.offline_requirement.phrases import FIELD_WORDS, INTERVAL_CONTEXT, LIFETIME_CONTEXT, RATE_WORDS
from gcv.agents.offline_requirement.state import Clause, Context, Reading, has, nearest_field

SECONDS = r"^(?:s|secs?|seconds?|秒钟?)$"
DEGREES = r"^(?:degrees?|deg|°|度)$"
MILLIS = r"^(?:ms|msec|millis(?:econds?)?|milliseconds?|毫秒)$"


def in_field_unit(name: str, unit: str, value: Fraction) -> Fraction:
    """``value`` written in ``unit``, in the unit of field ``name``: seconds of an interval become
    ms, milliseconds of a lifetime become seconds ("last 800 ms": 0.8 s)."""
    unit = unit.strip()
    if name == "wave_interval_ms" and re.fullmatch(SECONDS, unit):
        return value * 1000
    if name == "bullet_lifetime_seconds" and re.fullmatch(MILLIS, unit):
        return value / 1000
    return value


class Segment:
    """One segment of a clause, as the numeric handlers see it."""

    def __init__(self, ctx: Context, text: str, r: Reading, clause: Clause) -> None:
        self.ctx, self.text, self.r, self.clause = ctx, text, r, clause
        self.rate_said = has(RATE_WORDS, text)

    def resolve(self, m: re.Match[str], default: str | None = None) -> str | None:
        return nearest_field(self.text, m.start(), m.end()) or default

    def time_field(self) -> str | None:
        """For a number in seconds: the interval, the lifetime, or (None) unclear."""
        lifetime = has(LIFETIME_CONTEXT, self.text)
        interval = has(INTERVAL_CONTEXT, self.text)
        if lifetime and not interval:
            return "bullet_lifetime_seconds"
        if interval and not lifetime:
            return "wave_interval_ms"
        return None

    def unit_field(self, unit: str) -> str | None:
        unit = unit.strip()
        if not unit:
            return None
        if re.fullmatch(r"bullets?|shots?|projectiles?|rounds?|发|颗|枚|个子弹|个", unit):
            return "bullets_per_wave"
        if re.fullmatch(r"layers?|层", unit):
            return "layer_count"
        if re.fullmatch(MILLIS, unit):  # milliseconds of the bullets' life are a lifetime ("last 800 ms")
            return "bullet_lifetime_seconds" if self.time_field() == "bullet_lifetime_seconds" else "wave_interval_ms"
        if re.fullmatch(r"units?\s*/\s*s|units?\s+per\s+second|u/s", unit):
            return "bullet_speed"
        if re.fullmatch(r"s|secs?|seconds?|秒钟?", unit):
            return None if not has(FIELD_WORDS["bullet_lifetime_seconds"], self.text) and not has(
                INTERVAL_CONTEXT, self.text) else self.time_field()
        if re.fullmatch(r"degrees?|deg|°|度", unit):
            if has(FIELD_WORDS["rotation_per_wave_deg"], self.text):
                return "rotation_per_wave_deg"
            if has(FIELD_WORDS["spread_angle_deg"] + r"|\bfan\b|扇", self.text) or self.r.pattern_type == "aimed_fan":
                return "spread_angle_deg"  # an aimed fan does not rotate per wave: its degrees are its spread
        return None


NumericHandler = Callable[[Segment], str]

__all__ = ["Segment", "NumericHandler", "SECONDS", "DEGREES", "MILLIS", "in_field_unit"]
