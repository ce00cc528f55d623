"""Qualitative edits: a field word with a direction and no number ("faster bullets", "more layers",
"转得更快"). Each moves its field by a default step; an explicit number for the same field in
the same request replaces it (one quantity, applied once), and a bare percentage elsewhere in
the request ("a bit slower, about 10%") becomes its size (reader.py)."""

from __future__ import annotations

import re
from fractions import Fraction

from gcv.agents.offline_requirement.phrases import FIRE_RATE_DOWN, FIRE_RATE_UP, QUALITATIVE_DOWN, QUALITATIVE_UP
from gcv.agents.offline_requirement.state import Clause, Context, Reading, sub_all


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    table: list[tuple[str, str, str, Fraction]] = [
        (r"\b(?:rotate|spin|turn)\w*\s+faster\b|\bfaster\s+(?:rotation|spin)\b|转得?更快|转得?快一?[点些]|旋转更快|转速(?:更快|提高|加快)",
         "rotation_per_wave_deg", "scale", QUALITATIVE_UP),
        (r"\b(?:rotate|spin|turn)\w*\s+slower\b|\bslower\s+(?:rotation|spin)\b|转得?更慢|转得?慢一?[点些]|旋转更慢|转速(?:更慢|降低|减慢)",
         "rotation_per_wave_deg", "scale", QUALITATIVE_DOWN),
        (r"\b(?:fire|shoot)\w*\s+(?:a\s+(?:bit|little|touch)\s+|slightly\s+)?(?:faster|more\s+often|more\s+frequently)\b|\bmore\s+often\b|\bmore\s+frequent\w*\b|"
         r"\bshorter\s+(?:wave\s+)?intervals?\b|射速更快|射速加快|发射更频繁|更频繁|间隔更短|缩短间隔",
         "wave_interval_ms", "scale", FIRE_RATE_UP),
        (r"\b(?:fire|shoot)\w*\s+(?:a\s+(?:bit|little|touch)\s+|slightly\s+)?(?:slower|less\s+often|less\s+frequently)\b|\bless\s+often\b|\bless\s+frequent\w*\b|"
         r"\blonger\s+(?:wave\s+)?intervals?\b|射速更慢|射速减慢|发射更慢|间隔更长|延长间隔",
         "wave_interval_ms", "scale", FIRE_RATE_DOWN),
        (r"\bmore\s+layers\b|\badd\s+(?:a|one|another)\s+layer\b|\bextra\s+layer\b|多一层|增加一层|加一层",
         "layer_count", "add", Fraction(1)),
        (r"\bfewer\s+layers\b|\bless\s+layers\b|\bremove\s+(?:a|one)\s+layer\b|少一层|减少一层|减一层",
         "layer_count", "add", Fraction(-1)),
        (r"\blonger[- ]lived\b|\blive\s+longer\b|\blast\s+longer\b|\blonger\s+(?:bullet\s+)?life\s*times?\b|寿命变长|存在更久|寿命更长|延长寿命",
         "bullet_lifetime_seconds", "scale", QUALITATIVE_UP),
        (r"\bshorter[- ]lived\b|\bshorter\s+(?:bullet\s+)?life\s*times?\b|寿命缩短|寿命变短|\bdisappear\s+sooner\b|寿命更短|缩短寿命|消失更快",
         "bullet_lifetime_seconds", "scale", QUALITATIVE_DOWN),
        (r"\bwider\s+(?:spread|fan|arc|cone)\b|\bspread\s+(?:it\s+)?wider\b|扩散更大|角度更大|更宽",
         "spread_angle_deg", "scale", QUALITATIVE_UP),
        (r"\bnarrower\s+(?:spread|fan|arc|cone)\b|\bnarrower\b|角度更小|更窄",
         "spread_angle_deg", "scale", QUALITATIVE_DOWN),
        (r"\bfaster\s+bullets\b|\bbullets?\s+(?:move\s+|fly\s+|travel\s+)?faster\b|\bspeed\s+(?:it\s+|them\s+)?up\b|"
         r"\b(?:increase|raise|boost)\s+(?:the\s+)?(?:bullet\s+)?speed\b|\bfaster\b|\bquicker\b|"
         r"子弹更快|弹速更快|弹速加快|速度更快|加快速度|提高速度|加快子弹速度|提高子弹速度|快一?[点些]|更快",
         "bullet_speed", "scale", QUALITATIVE_UP),
        (r"\bslower\s+bullets\b|\bbullets?\s+(?:move\s+|fly\s+|travel\s+)?slower\b|\bslow\s+(?:it\s+|them\s+|the\s+bullets\s+)?down\b|"
         r"\b(?:decrease|reduce|lower)\s+(?:the\s+)?(?:bullet\s+)?speed\b|\bslower\b|"
             r"\bslow\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?bullets\b|\bslow\b|"
         r"子弹更慢|弹速更慢|弹速减慢|速度更慢|减慢速度|降低速度|降低子弹速度|减慢子弹速度|放慢|慢一?[点些]|更慢",
         "bullet_speed", "scale", QUALITATIVE_DOWN),
    ]
    for pattern, name, op, value in table:
        def edit(m: re.Match[str], n: str = name, o: str = op, v: Fraction = value) -> None:
            ctx.edit(r, clause, n, o, v, m.group(), True)
        text = sub_all(pattern, text, edit)
    return text


__all__ = ["read"]
