"""What GCV does not change at all (gcv.agents.offline_requirement.handlers.off_topic)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import off_topic
from tests.support.readerutil import read_clause as read



def test_topics_are_named_once_and_their_words_used() -> None:
    left, r, _ = read(off_topic.read, "change the music and the background")
    assert r.off_topic == ["music / sound", "UI / visuals"]
    assert "music" not in left and "background" not in left and "change the" in left
    assert read(off_topic.read, "换个背景音乐")[1].off_topic


def test_a_pattern_request_is_not_off_topic() -> None:
    assert read(off_topic.read, "make phase 2 denser")[1].off_topic == []
