"""Values to set: "20 bullets", "every 0.5 s", "speed 4.5", "lifetime 4 s", "rotate 25 degrees",
"3 layers"; and the forms around them: "from 16 to 24" (the new value is 24), "1.5 s instead
of 1.2" (1.2 is the old value, not a change), "15 to 20 bullets" (which one? asked, never
guessed)."""

from __future__ import annotations

import re

from gcv.contract.ranges import PATTERN_RANGES
from gcv.agents.offline_requirement.phrases import FIELD_WORDS, FROM_TO, NUM, OLD_VALUE, RANGE
from gcv.agents.offline_requirement.state import Pending, has, num, sub_all
from gcv.agents.offline_requirement.handlers.segment import DEGREES, SECONDS, Segment, in_field_unit

UNITS = (r"bullets?|shots?|projectiles?|rounds?|layers?|degrees?|deg|°|ms|msec|millis(?:econds?)?|"
         r"milliseconds?|seconds?|secs?|s(?![a-z])|units?\s*/\s*s|units?\s+per\s+second|u/s|"
         r"毫秒|秒钟?|发|颗|枚|层|度|个子弹|个")


def read_from_to(seg: Segment) -> str:
    """'from 16 to 24 bullets', '16 发 -> 24 发': only the new value is read (as if written alone)."""
    text = seg.text

    def keep_new(m: re.Match[str]) -> str:
        new = m.group("b") or m.group("d")
        unit = m.group("ua") or m.group("uc") or ""
        if text[m.end():].lstrip().startswith(unit):
            unit = ""  # the new value carries its own unit
        kept = f"{new} {unit}".rstrip()
        return " " * max(0, m.end() - m.start() - len(kept)) + kept
    return re.sub(FROM_TO, keep_new, text)


def read_old_value(seg: Segment) -> str:
    """'every 1.5 s instead of 1.2': the old value is context, not a second change."""
    def old(m: re.Match[str]) -> None:
        seg.r.note(f"'{m.group().strip()}' is the value being replaced")
    return sub_all(OLD_VALUE, seg.text, old)


def read_range(seg: Segment) -> str:
    """'15 to 20 bullets', '10-15%': two values for one field; the designer picks."""
    def rng(m: re.Match[str]) -> None:
        a, b = m.group("a") or m.group("c"), m.group("b") or m.group("d")
        unit = m.group("ud") or m.group("ua") or m.group("uc") or ""
        seg.r.wait(Pending("range", m.group().strip(), options=(num(a), num(b)), unit=unit))
    return sub_all(RANGE, seg.text, rng)


def read(seg: Segment) -> str:
    """Every number left: a value to set, its field from its unit or the nearest field word."""
    r = seg.r

    def set_value(m: re.Match[str]) -> None:
        value = num(m.group("n"))
        unit = (m.group("unit") or "").strip()
        name = seg.unit_field(unit)
        said = m.group()
        if name is None and unit and re.fullmatch(SECONDS, unit):
            name = seg.time_field()
            if name is None:
                r.wait(Pending("time_field", said.strip(), value, "set"))
                return
        if name is None and unit and re.fullmatch(DEGREES, unit):
            if has(FIELD_WORDS["rotation_per_wave_deg"], seg.text):
                name = "rotation_per_wave_deg"
            elif has(FIELD_WORDS["spread_angle_deg"] + r"|\bfan\b|扇", seg.text) or r.pattern_type == "aimed_fan":
                name = "spread_angle_deg"
            else:
                r.wait(Pending("angle_field", said.strip(), value, "set"))
                return
        if name is None:
            name = seg.resolve(m)
        if name is None and not unit and re.search(r"(?:\bevery|\beach|每隔?|间隔)\s*$", seg.text[:m.start()]):
            name = "wave_interval_ms"  # "every 600": an interval (its unit asked about below 100)
        if name is None:
            r.wait(Pending("field", said.strip(), value, "set", unit=unit))
            return
        value = in_field_unit(name, unit, value)
        if name == "wave_interval_ms":
            if not unit and value < PATTERN_RANGES["wave_interval_ms"][0]:
                r.wait(Pending("unit", said.strip(), value, "set", "wave_interval_ms"))
                return
        seg.ctx.edit(r, seg.clause, name, "set", value, said)
    return sub_all(rf"(?P<n>{NUM})\s*(?P<unit>{UNITS})?", seg.text, set_value)


__all__ = ["read", "read_from_to", "read_old_value", "read_range"]
