"""The reader's handlers, one per kind of thing a request can say, in the order they read.

Each handler reads one clause (``(context, text, reading, clause) -> text``), records what
it understood in the ``Reading`` and blanks the words it used, so a later handler cannot
read them again: the ``350`` of "never more than 350 bullets alive" is a constraint and never
becomes bullets per wave. To teach the reader a new phrasing, add it to its table in
``phrases.py``; to teach it a new kind of request, add a handler here.
"""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import (keep, numeric, off_topic, patterns, phases, pressure, qualitative,
                                                     rotation, scope, targets)
from gcv.agents.offline_requirement.state import Handler

STEPS: list[Handler] = [
    targets.read_statements,    # "raise the low FPS target to 60" (judged by value, before the limit rules)
    scope.read,                 # new phases, limits, boss / player / arena, unknown mechanics
    phases.read,                # phase references
    targets.read,               # "never more than 350 bullets alive", "at most 2 hits"
    keep.read,                  # "keep everything as it is", "keep the look"
    phases.read_whole_fight,    # "overall", "the whole fight", 整体
    rotation.read_bidirectional,
    rotation.read_direction,    # clockwise, counter-clockwise, reverse
    patterns.read,              # pattern names and switches
    numeric.read,               # numbers: from-to, old values, ranges, multipliers, %, counts, values
    qualitative.read,           # "faster bullets", "more layers"
    pressure.read,              # "denser", "easier"
    off_topic.read,             # music, art, UI
]

__all__ = ["STEPS"]
