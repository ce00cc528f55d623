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

from gcv.agents.offline_requirement.handlers import counts, multiply, percent, values
from gcv.agents.offline_requirement.handlers.segment import NumericHandler, Segment
from gcv.agents.offline_requirement.phrases import NUM
from gcv.agents.offline_requirement.state import Clause, Context, Pending, Reading, num, sub_all

_SEGMENT_SPLIT = re.compile(r"\band\b|\bwith\b|\bplus\b|&|、|和|并|且|及|以及")

def read_rate(seg: Segment) -> str:
    """'20 bullets per second' (the lexicon's 'bps-rate'): per wave or per interval? Asked, never guessed."""
    return sub_all(rf"(?P<n>{NUM})\s*bps-rate", seg.text, lambda m: seg.r.wait(
        Pending("rate", f"{m.group('n')} bullets per second", num(m.group("n")))))


# the order matters: each step blanks what it read
NUMERIC_STEPS: list[NumericHandler] = [
    read_rate, values.read_from_to, values.read_old_value, values.read_range,
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


__all__ = ["read", "NUMERIC_STEPS"]
