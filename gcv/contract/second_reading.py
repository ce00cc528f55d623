"""What the second reading found (gcv.agents.second_reading): the typed list the workflow state
records on a round. Apart from the reader so that reading a state needs no reader."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel

Rule = Literal["equals", "direction", "reversed", "at_most", "at_least"]


class _Strict(GcvModel):
    model_config = ConfigDict(extra="forbid")


class AskedItem(_Strict):
    """One thing the words ask for, and whether the final candidate does it."""

    asked: str = Field(description="what was asked, as a person reads it (Phase 2 · wave interval: shorter)")
    path: str = Field(description="the config path it is about")
    rule: Rule = Field(description="equals (a stated value), direction (a word without a number), reversed "
                                   "(the rotation turns the other way), at_most / at_least (a target)")
    expected: str
    found: str
    holds: bool


class SecondReading(_Strict):
    """The second reading's list (``verdict``: holds, misses, or unread when the offline reader
    does not accept the words on its own)."""

    reader: str = Field(description="who read the words again (offline rules-vN)")
    verdict: Literal["holds", "misses", "unread"]
    items: list[AskedItem] = Field(default_factory=list)
    note: str = Field(default="", exclude_if=lambda v: not v)

    @property
    def misses(self) -> list[AskedItem]:
        return [i for i in self.items if not i.holds]

    def headline(self) -> str:
        if self.verdict == "unread":
            return f"second reading: not checked ({self.note})"
        held = sum(1 for i in self.items if i.holds)
        if self.verdict == "holds":
            return f"second reading: all {held} thing(s) asked for hold"
        return (f"second reading: {len(self.misses)} of {len(self.items)} thing(s) asked for do not hold: "
                + "; ".join(f"{i.asked} (expected {i.expected}, found {i.found})" for i in self.misses))


__all__ = ["AskedItem", "SecondReading", "Rule"]
