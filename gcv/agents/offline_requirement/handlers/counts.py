"""Counts added or taken away: "5 more bullets", "add 4 bullets", "take 3 bullets off", "+200ms",
"reduce the interval by 100 ms", "增加 4 发", "多打 2 发", "少 4 颗"."""

from __future__ import annotations

import re

from gcv.agents.offline_requirement.phrases import DOWN_WORDS, NUM
from gcv.agents.offline_requirement.state import Pending, field_in, has, num, sub_all
from gcv.agents.offline_requirement.handlers.segment import Segment, in_field_unit

UNITS = (r"bullets?|shots?|projectiles?|layers?|degrees?|deg|°|ms|milliseconds?|seconds?|secs?|s\b|"
         r"毫秒|秒|发|颗|枚|层|度")


def read(seg: Segment) -> str:
    r = seg.r

    def add(m: re.Match[str]) -> None:
        groups = m.groupdict()
        value = num(groups["n"])
        said = m.group()
        sign = -1 if has(DOWN_WORDS + r"|\bremove\b|\bsubtract\b|\bminus\b|\btake\b|\boff\b|去掉", said) else 1
        unit = groups.get("unit") or groups.get("what") or ""
        name = seg.unit_field(unit) or field_in(said) or seg.resolve(m)
        if name is None:
            r.wait(Pending("field", said.strip(), sign * value, "add"))
            return
        value = in_field_unit(name, unit, value)
        seg.ctx.edit(r, seg.clause, name, "add", sign * value, said)
    text = seg.text
    text = sub_all(rf"(?P<n>{NUM})\s*(?P<unit>{UNITS})?\s*(?:more|fewer|less|extra|additional)\b"
                   rf"(?:\s+(?P<what>bullets?|layers?|degrees?))?", text, add)
    # a difference with its unit before a comparative: "200 ms shorter", "1 s longer", "10 degrees wider"
    text = sub_all(rf"(?P<n>{NUM})\s*(?P<unit>{UNITS})\s*(?:shorter|longer|wider|narrower)\b", text, add)
    text = sub_all(rf"\b(?:add|plus|remove|subtract|minus|take)\s+(?:an?\s+)?(?:extra\s+)?(?P<n>{NUM})\s*"
                   rf"(?P<unit>{UNITS})(?:\s+(?:off|away))?", text, add)
    text = sub_all(rf"\b(?:increase|raise|boost|up|lengthen|extend|decrease|reduce|lower|cut|shorten|drop)\w*\s+"
                   rf"(?:the\s+)?(?:[\w'-]+\s+){{0,4}}?by\s+(?P<n>{NUM})\s*(?P<unit>{UNITS})?", text, add)
    text = sub_all(rf"(?<![\w.])(?P<n>\+\d+(?:\.\d+)?)\s*(?P<unit>{UNITS})?", text, add)
    return sub_all(rf"(?:增加|多加|多打|多发|多|加上|加|提高|增多|减少|少打|少发|少|减去|减|降低|去掉)\s*了?\s*(?P<n>{NUM})\s*"
                   rf"(?P<unit>毫秒|秒|发|颗|枚|层|度)?", text, add)


__all__ = ["read"]
