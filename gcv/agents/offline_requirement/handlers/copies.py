"""A value taken from another phase: "phase 3 bullets as fast as the spiral's", "the same speed
as phase 2", "和第二阶段一样快".

The phase the value comes from is a reference, never a phase to change, and its pattern word is
never a switch ("as fast as the spiral's" does not make phase 3 a spiral). The field comes from
the comparative (fast: the speed, many: bullets per wave, often: the interval) or a field word
next to "same"; the value is that phase's own, set on the phases the request changes. Read on
the whole request before it is cut into clauses (``RequestReader.read``).
"""

from __future__ import annotations

import re
from fractions import Fraction

from gcv.agents.goal_applier import fmt
from gcv.agents.offline_requirement.handlers.exclusion import _REFS_EN, _REFS_ZH, _positions
from gcv.agents.offline_requirement.phrases import FIELD_WORDS
from gcv.agents.offline_requirement.state import Clause, Context, Reading, sub_all

_AS = {"fast": "bullet_speed", "quick": "bullet_speed", "slow": "bullet_speed", "many": "bullets_per_wave",
       "often": "wave_interval_ms", "frequent": "wave_interval_ms", "wide": "spread_angle_deg",
       "快": "bullet_speed", "慢": "bullet_speed", "多": "bullets_per_wave", "密": "bullets_per_wave"}
COPIES = (
    rf"\bas\s+(?P<adj>fast|quick|slow|many|often|frequent|wide)\s+(?:(?:bullets?|shots?)\s+(?:per\s+wave\s+)?)?as\s+(?P<en>{_REFS_EN})(?:'s)?(?:\s+(?:ones?|bullets?))?",
    rf"\b(?:the\s+)?same\s+(?P<field>[a-z ]{{0,30}}?)\s*as\s+(?P<en2>{_REFS_EN})(?:'s)?",
    rf"(?:和|跟|与|同)\s*(?P<zh>{_REFS_ZH})\s*(?:的)?\s*(?P<zhfield>子弹速度|弹速|速度|间隔|寿命|每波子弹数)?\s*(?:一样|相同)\s*(?P<zhadj>快|慢|多|密)?",
)


def _field(m: re.Match[str]) -> str | None:
    words = m.groupdict()
    adj = words.get("adj") or words.get("zhadj")
    if adj:
        return _AS[adj]
    said = (words.get("field") or "") + (words.get("zhfield") or "")
    found = [name for name, rx in FIELD_WORDS.items() if said.strip() and re.search(rx, said)]
    return found[0] if len(found) == 1 else None


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    def copied(m: re.Match[str]) -> None:
        said = " ".join(m.group().split())
        words = next(g for k, g in m.groupdict().items() if k in ("en", "en2", "zh") and g)
        positions = _positions(ctx, words)
        name = _field(m)
        if positions is None or len(positions) != 1 or name is None:
            r.ask(f"'{said}': which value of which phase should be copied? Say the number instead (e.g. "
                  "'speed 3.6').")
            return
        source = ctx.baseline.phases[positions[0] - 1]
        value = Fraction(repr(float(getattr(source.pattern, name))))
        if positions[0] not in r.excluded_positions:
            r.excluded_positions.append(positions[0])  # the phase the value comes from does not change
        ctx.edit(r, clause, name, "set", value, said)
        r.note(f"{name} as {source.phase_id}'s: {fmt(value)} ('{said}')")
    for rx in COPIES:
        text = sub_all(rx, text, copied)
    return text


__all__ = ["read", "COPIES"]
