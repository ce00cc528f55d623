"""Explicit no-op and "keep the look" (gcv.agents.offline_requirement.handlers.keep)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import keep
from tests.support.readerutil import read_clause as read



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
