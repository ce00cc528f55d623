"""The names of a workflow's recorded activities (``activities.jsonl``) and steps, in one place.

The loop records each call to the outside world (an agent, an engine run, a pre-screen, a bot
population, a fair-fight analysis) under a key, and a resumed or replayed workflow finds it
again by that key; the evidence collector names the bundle's agent files after them. The same
key names the loop's step in the event log. Keys are strings on disk; these functions are the
only place they are spelt, for the baseline (``round_no`` None) or a round.
"""

from __future__ import annotations

from typing import NewType

ActivityKey = NewType("ActivityKey", str)


def requirement_key(attempt: int) -> ActivityKey:
    """``requirement`` for the request, ``requirement:N`` after the designer's (N-1)th answer."""
    if attempt < 1:
        raise ValueError(f"a requirement attempt counts from 1 (got {attempt})")
    return ActivityKey("requirement" if attempt == 1 else f"requirement:{attempt}")


def review_key(round_no: int) -> ActivityKey:
    return ActivityKey(f"review:{round_no}")


def _subject(round_no: int | None) -> str:
    return "baseline" if round_no is None else f"candidate:{round_no}"


def run_key(round_no: int | None) -> ActivityKey:
    """The engine run of the baseline or of round ``round_no``'s candidate."""
    return ActivityKey(f"run:{_subject(round_no)}")


def prescreen_key(round_no: int | None) -> ActivityKey:
    """The reference simulator's run of the same request (pre-screen and parity check)."""
    return ActivityKey(f"prescreen:{_subject(round_no)}")


def population_key(round_no: int | None) -> ActivityKey:
    return ActivityKey(f"population:{_subject(round_no)}")


def fairness_key(round_no: int | None) -> ActivityKey:
    """The fair-fight analysis (spelt ``analysis:fair:N`` for a round, as workflows have recorded it)."""
    return ActivityKey(f"analysis:fair:{'baseline' if round_no is None else round_no}")


__all__ = ["ActivityKey", "requirement_key", "review_key", "run_key", "prescreen_key", "population_key",
           "fairness_key"]
