"""Percentages: "20% slower", "speed down 20%", "提高 30%", "降到 80%" (八成), "fire 30% faster".

"N% more/less" scales by 1 +/- N/100; "to N%" (降到八成, down to 80%) scales by N/100. N % faster
firing is N % shorter interval (docs/requirements-agent.md). A percentage with no direction
waits: a qualitative word elsewhere in the request ("a bit slower, about 10%") gives it one,
and is then the same quantity, applied once.
"""

from __future__ import annotations

import re

from gcv.agents.goal_applier import fmt
from gcv.contract.ranges import PATTERN_RANGES
from gcv.agents.offline_requirement.phrases import _N, DOWN_WORDS, UP_WORDS
from gcv.agents.offline_requirement.state import BlockIssue, Pending, has, num, sub_all
from gcv.agents.offline_requirement.handlers.segment import Segment

SPEED_WORDS = r"\bfast\w*|\bslow\w*|\bquick\w*|快|慢"
ADJECTIVES = (r"faster|slower|quicker|more|fewer|less|longer|shorter|higher|lower|denser|sparser|bigger|"
              r"smaller|wider|narrower")
VERBS = r"提高|增加|加快|提升|增大|延长|加大|降低|减少|减慢|缩短|减小|下调|上调|快|慢|多|少"
TO_PERCENT = r"(?:降到|降为|降至|减到|变成|变为|改成|改为|调到|到|为|down\s+to|up\s+to|to)\s*(?:原来的)?\s*$"


def read(seg: Segment) -> str:
    r = seg.r

    def percent(m: re.Match[str]) -> None:
        p = num(m.group(1)) / 100
        # words around the number, with the blanks of words already read squeezed out
        before = re.sub(r"\s+", " ", seg.text[:m.start()])[-24:]
        window = before + m.group() + re.sub(r"\s+", " ", seg.text[m.end():])[:24]
        before = before[-16:]
        name = seg.resolve(m)
        if name == "bullets_per_wave" and has(SPEED_WORDS, window):
            name = None  # "bullets 20% faster" is about speed
        if re.search(TO_PERCENT, before) and not has(r"\bby\b", m.group()):
            factor = p  # "降到八成", "down to 80%": a share of the current value
            if name is None and has(SPEED_WORDS + r"|速", window):
                name = "bullet_speed"
            if name is None:
                r.wait(Pending("field", m.group().strip(), factor, "scale"))
                return
            seg.ctx.edit(r, seg.clause, name, "scale", factor, m.group())
            return
        up, down = has(UP_WORDS, window), has(DOWN_WORDS, window)
        if m.group(1).startswith(("+", "-")):  # "+30%", "-20%": the sign is the direction
            up, down, p = m.group(1).startswith("+"), m.group(1).startswith("-"), abs(p)
        if up == down:
            r.wait(Pending("direction", m.group().strip(), p, "scale", name))
            return
        sign = 1 if up else -1
        rate = has(r"rate|射速|频率|\boften\b|\bfrequent\w*|频繁", window)
        if name is None and has(SPEED_WORDS, window):
            name = "wave_interval_ms" if seg.rate_said else "bullet_speed"
        if name is None and has(r"\bdenser\b|\bsparser\b|密|稀", window):
            name = "bullets_per_wave"
        if name is None and rate:
            name = "wave_interval_ms"
        if name is None:
            r.wait(Pending("field", m.group().strip(), 1 + sign * p, "scale"))
            return
        if name == "wave_interval_ms" and (rate or (seg.rate_said and has(SPEED_WORDS, window))):
            sign = -sign  # firing faster, more often, a higher fire rate: a shorter interval
        factor = 1 + sign * p
        if factor <= 0:
            r.blocks.append(BlockIssue(
                field=f"$.phases[*].pattern.{name}", asked=m.group().strip(),
                allowed=f"{fmt(PATTERN_RANGES[name][0])}..{fmt(PATTERN_RANGES[name][1])}",
                message=f"reducing {name} by {fmt(p * 100)}% leaves nothing (or less than nothing)"))
            return
        seg.ctx.edit(r, seg.clause, name, "scale", factor, m.group())
    return sub_all(rf"(?:(?:{VERBS})\s*了?\s*)?(?:\bby\s+)?{_N}\s*%(?:\s*(?:{ADJECTIVES})\b)?", seg.text, percent)


__all__ = ["read"]
