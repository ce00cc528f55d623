"""What GCV does not change at all (gcv.agents.offline_requirement.handlers.off_topic)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import off_topic
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

CTX = Context(base())  # the committed baseline: phase_1 ring, phase_2 spiral, phase_3 petal


def read(handler, text: str):  # type: ignore[no-untyped-def]
    """(the text left for later handlers, the reading, the clause) after ``handler`` read ``text``."""
    r, clause = Reading(text=text), Clause()
    return handler(CTX, normalize(text), r, clause), r, clause


def test_topics_are_named_once_and_their_words_used() -> None:
    left, r, _ = read(off_topic.read, "change the music and the background")
    assert r.off_topic == ["music / sound", "UI / visuals"]
    assert "music" not in left and "background" not in left and "change the" in left
    assert read(off_topic.read, "换个背景音乐")[1].off_topic


def test_a_pattern_request_is_not_off_topic() -> None:
    assert read(off_topic.read, "make phase 2 denser")[1].off_topic == []
