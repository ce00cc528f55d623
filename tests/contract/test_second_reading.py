"""The second reading's record (gcv.contract.second_reading): what it lists as misses and the
headline a person reads."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gcv.contract.second_reading import AskedItem, SecondReading


def _item(asked: str, holds: bool) -> AskedItem:
    return AskedItem(asked=asked, path="$.phases[1].pattern.wave_interval_ms", rule="direction",
                     expected="shorter", found="450" if not holds else "300", holds=holds)


def test_holds_headline_counts_the_items() -> None:
    reading = SecondReading(reader="offline rules-v1", verdict="holds", items=[_item("a", True), _item("b", True)])
    assert reading.misses == []
    assert reading.headline() == "second reading: all 2 thing(s) asked for hold"


def test_misses_headline_names_what_does_not_hold() -> None:
    reading = SecondReading(reader="offline rules-v1", verdict="misses",
                            items=[_item("Phase 2 · wave interval: shorter", False), _item("b", True)])
    assert [i.asked for i in reading.misses] == ["Phase 2 · wave interval: shorter"]
    assert reading.headline() == ("second reading: 1 of 2 thing(s) asked for do not hold: "
                                  "Phase 2 · wave interval: shorter (expected shorter, found 450)")


def test_unread_says_why_and_an_empty_note_is_not_written() -> None:
    reading = SecondReading(reader="offline rules-v1", verdict="unread", note="a model read the request")
    assert reading.headline() == "second reading: not checked (a model read the request)"
    assert "note" not in SecondReading(reader="r", verdict="holds").model_dump()


def test_the_record_is_strict() -> None:
    with pytest.raises(ValidationError):
        SecondReading(reader="r", verdict="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        AskedItem.model_validate({**_item("a", True).model_dump(), "extra": 1})
    with pytest.raises(ValidationError):
        AskedItem.model_validate({**_item("a", True).model_dump(), "rule": "roughly"})
