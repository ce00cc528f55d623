"""Driving one handler of the offline reader on one text, as the handler tests do."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gcv.agents.offline_requirement.handlers.segment import Segment
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

CTX = Context(base())  # the committed baseline: phase_1 ring, phase_2 spiral, phase_3 petal


def read_segment(handler: Callable[[Segment], Any], text: str) -> tuple[Any, Reading]:
    """(the segment's text after ``handler``, the reading): a numeric handler reads one segment."""
    r = Reading(text=text)
    return handler(Segment(CTX, normalize(text), r, Clause())), r


def read_clause(handler: Callable[..., Any], text: str) -> tuple[Any, Reading, Clause]:
    """(the text left for later handlers, the reading, the clause) after ``handler`` read ``text``."""
    r, clause = Reading(text=text), Clause()
    return handler(CTX, normalize(text), r, clause), r, clause


def edits(r: Reading) -> list[tuple[str, str, Fraction]]:
    return [(e.field, e.operation, e.value) for e in r.edits]
