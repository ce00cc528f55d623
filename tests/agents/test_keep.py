"""Explicit no-op and "keep the look" (gcv.agents.offline_requirement.handlers.keep)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import keep
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

CTX = Context(base())  # the committed baseline: phase_1 ring, phase_2 spiral, phase_3 petal


def read(handler, text: str):  # type: ignore[no-untyped-def]
    """(the text left for later handlers, the reading, the clause) after ``handler`` read ``text``."""
    r, clause = Reading(text=text), Clause()
    return handler(CTX, normalize(text), r, clause), r, clause


def test_an_explicit_no_op_is_read_and_its_words_used() -> None:
    left, r, _ = read(keep.read, "keep everything as it is")
    assert r.no_change and not r.preserve_visual and left.strip() == ""
    assert read(keep.read, "保持不变")[1].no_change


def test_keep_the_look_is_not_a_no_op() -> None:
    left, r, _ = read(keep.read, "keep the look but make phase 2 denser")
    assert r.preserve_visual and not r.no_change
    assert left.strip() == "but make phase 2 denser"


def test_other_words_are_left_alone() -> None:
    left, r, _ = read(keep.read, "make phase 2 denser")
    assert left == "make phase 2 denser" and not r.no_change and not r.preserve_visual
