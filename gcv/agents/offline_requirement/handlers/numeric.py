"""Numbers: each clause is cut into segments ("and", "with", 和 ...) and every number in a segment
is read by the first numeric handler that knows its form, in this order: a change written
"from A to B", an old value ("instead of 1.2"), a range ("15 to 20"), a multiplier (halve, double,
N times, 八成), a percentage, a count added or taken away, and last a value to set.

The field of a number comes from its unit (``ms``, ``s``, ``degrees``, ``bullets``, ``发``,
``层``) or from the nearest field word in the segment; a number whose field, direction or unit
is unclear is kept as ``Pending`` and asked about (or filled by the designer's answer), never
guessed.
"""

from __future__ import annotations

import re

from gcv.agents.goal_applier import fmt
from gcv.agents.offline_requirement.handlers import counts, multiply, percent, values
from gcv.agents.offline_requirement.questions import Asked
from gcv.agents.offline_requirement.handlers.segment import NumericHandler, Segment
from gcv.agents.offline_requirement.phrases import NUM
from gcv.agents.offline_requirement.state import Clause, Context, Pending, Reading, num, sub_all

_SEGMENT_SPLIT = re.compile(r"\band\b|\bwith\b|\bplus\b|&|、|和|并|且|及|以及")

def read_rate(seg: Segment) -> str:
    """'20 bullets per second' (the lexicon's 'bps-rate'): per wave or per interval? Asked, never guessed."""
    return sub_all(rf"(?P<n>{NUM})\s*bps-rate", seg.text, lambda m: seg.r.wait(
        Pending("rate", f"{m.group('n')} bullets per second", num(m.group("n")))))


TURN_RATE_WORDS = "per wave, not per second"  # the question's words (an answer with a rotation settles it)


def read_turn_rate(seg: Segment) -> str:
    """'30 degrees per second', '每秒转30度': the rotation is set per wave, so a turn rate is asked
    about (what it is per wave depends on each phase's interval), never read as per wave."""
    def ask(m: re.Match[str]) -> None:
        said = " ".join(m.group().split())
        rate = num(m.group("n") or m.group("m"))
        choices = []
        for i, phase in enumerate(seg.ctx.baseline.phases, start=1):  # what it is per wave at each phase's interval
            per_wave = fmt(rate * phase.pattern.wave_interval_ms / 1000)
            choices.append((f"phase {i} ({phase.pattern.wave_interval_ms} ms): {per_wave} degrees per wave",
                            f"第{i}阶段（{phase.pattern.wave_interval_ms} 毫秒）：每波 {per_wave} 度",
                            f"phase {i} rotate {per_wave} degrees per wave"))
        seg.r.ask(Asked("unit", "turn_rate",
                        f"'{said}': the rotation is set {TURN_RATE_WORDS}; how many degrees per wave (at a phase's "
                        "wave interval, N degrees per second is N x the interval in seconds)?",
                        f"“{said}”：旋转按每波设置，不按每秒；每波转多少度？（每秒 N 度 = N x 该阶段的发射间隔秒数）",
                        choices))
    text = sub_all(rf"(?P<n>{NUM})\s*(?:degrees?|deg|度)\s*(?:(?:per|an?|each|every)\s+|/\s*)(?:second|sec|s)\b", seg.text, ask)
    text = sub_all(rf"每秒(?:钟)?\s*(?:转|旋转|转动)?\s*(?P<n>{NUM})\s*度|(?P<m>{NUM})\s*度\s*(?:/|每)\s*秒", text, ask)
    return text


# the order matters: each step blanks what it read
NUMERIC_STEPS: list[NumericHandler] = [
    read_rate, read_turn_rate, values.read_from_to, values.read_old_value, values.read_range,
    multiply.read_words, multiply.read_times, percent.read, counts.read, values.read,
]


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    out = []
    for part in _SEGMENT_SPLIT.split(text):
        seg = Segment(ctx, part, r, clause)
        for step in NUMERIC_STEPS:
            seg.text = step(seg)
        out.append(seg.text)
    return " ; ".join(out)


__all__ = ["read", "NUMERIC_STEPS", "TURN_RATE_WORDS"]
