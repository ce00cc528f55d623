"""Multipliers: halve, double, triple, N times, xN, 翻倍, 减半, 一半, N 倍 (scale the field)."""

from __future__ import annotations

import re
from fractions import Fraction

from gcv.agents.offline_requirement.phrases import _N
from gcv.agents.offline_requirement.state import Pending, has, num, sub_all
from gcv.agents.offline_requirement.handlers.segment import Segment

RATE = r"rate|射速|频率|often|frequen"
WORDS = (r"\bhalve[ds]?\b|\bhalf\s+as\s+(?:many|much|fast)\b|\bin\s+half\b|\bhalf\b|"
         r"\bdouble[ds]?\b|\btwice\b|\btriple[ds]?\b|减少一半|减半|砍半|砍一半|原来的一半|一半|翻倍|加倍|"
         r"双倍|三倍(?!以)")


# the comparative right after a multiple names its field, before any field word nearby:
# "1.5x as fast" is the speed even in "phase 2 bullets 1.5x as fast"
_AS = {"fast": "bullet_speed", "quick": "bullet_speed", "quickly": "bullet_speed", "many": "bullets_per_wave",
       "often": "wave_interval_ms", "frequent": "wave_interval_ms", "frequently": "wave_interval_ms"}
_AS_AFTER = re.compile(r"\s*as\s+(fast|quick(?:ly)?|many|often|frequent(?:ly)?)\b")


def _as_field(seg: Segment, m: re.Match[str]) -> str | None:
    said = _AS_AFTER.match(seg.text, m.end()) or _AS_AFTER.search(m.group())
    return _AS[said.group(1)] if said else None


def read_words(seg: Segment) -> str:
    r = seg.r

    def multiplier(m: re.Match[str]) -> None:
        word = m.group()
        factor = (Fraction(1, 2) if has(r"half|halve|一半|减半|砍半", word)
                  else Fraction(3) if has(r"triple|三倍", word) else Fraction(2))
        name = _as_field(seg, m) or seg.resolve(m)
        if name == "wave_interval_ms" and _as_field(seg, m):
            factor = 1 / factor  # twice as often = half the interval
            seg.ctx.edit(r, seg.clause, name, "scale", factor, word)
            return
        if name is None and has(r"\bfast\b|快", seg.text):
            name = "bullet_speed"
        if name is None and has(r"\bmany\b|\bmuch\b", seg.text):
            name = "bullets_per_wave"
        if name is None:
            r.wait(Pending("multiplier", word.strip(), factor, "scale"))
            return
        if name == "wave_interval_ms" and has(RATE, seg.text):
            factor = 1 / factor  # double the fire rate = halve the interval
        seg.ctx.edit(r, seg.clause, name, "scale", factor, word)
    return sub_all(WORDS, seg.text, multiplier)


def read_times(seg: Segment) -> str:
    r = seg.r

    def times(m: re.Match[str]) -> None:
        value = num(next(g for g in m.groups() if g))
        name = _as_field(seg, m) or seg.resolve(m)
        if name is None and has(r"\bfast\w*|快", seg.text):
            name = "bullet_speed"
        if name is None:
            r.wait(Pending("multiplier", m.group().strip(), value, "scale"))
            return
        if name == "wave_interval_ms" and (has(RATE, seg.text) or _as_field(seg, m)):
            inv = 1 / value
            if inv * 10 ** 6 != int(inv * 10 ** 6):
                r.ask("Say the wave interval instead of a fire-rate multiple (e.g. 'every 0.4 s').")
                return
            value = inv
        seg.ctx.edit(r, seg.clause, name, "scale", value, m.group())
    return sub_all(rf"{_N}\s*(?:x|times)\b(?:\s+as\s+(?:many|much|fast))?|\bx\s*{_N}(?!\d)|{_N}\s*倍", seg.text, times)


__all__ = ["read_words", "read_times"]
