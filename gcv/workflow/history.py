"""The workflow as a history of steps (issue 31.7): each step with its start and duration.

Read from the typed event log only (``gcv.workflow.events``), so the console and the evidence
report (which ``gcv verify --replay`` re-renders byte for byte from the bundle) show the same
rows from the same events. A row is a ``step`` event (the loop announces each piece of work:
the requirement agent, a run, the review agent) or a status the workflow entered (``created``
and ``transition`` events: waiting for a person is a step too); a trace line is not a step,
it is shown with the step it was written in.
A row's start is its event's time (the loop's clock, read once per event) and its duration is
the time until the next row starts; the last row has none (the log does not say when it
ends; nothing here reads a clock).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from gcv.contract.names import Words
from gcv.contract.status import Status
from gcv.workflow.events import CreatedEvent, Event, StepEvent, TraceEvent, TransitionEvent


@dataclass(frozen=True)
class HistoryStep:
    seq: int  # the event's place in the log
    kind: str  # "step" (work) or "status" (the workflow entered a status)
    key: str  # the step's activity key, or the status's value
    label: str  # in words
    at: float  # Unix time the step started
    offset: float  # seconds since the workflow was created
    duration: float | None  # seconds until the next step started; None for the last
    lines: tuple[str, ...] = ()  # the trace lines written during the step

    @property
    def start_utc(self) -> str:
        return utc_time(self.at)

    @property
    def offset_words(self) -> str:
        return "+" + duration_words(self.offset)

    @property
    def duration_words(self) -> str:
        return "—" if self.duration is None else duration_words(self.duration)


def _same(text: str) -> str:
    return text


def step_label(step: str, tr: Words = _same) -> str:
    """An activity key in words: ``run:candidate:2`` -> "run candidate 2" (``tr``: the words'
    translator of a caller that speaks another language; the console's catalog has them)."""
    head, _, rest = step.partition(":")
    if head == "requirement":
        return (tr("requirement agent reads the request (reading %(answer)s)") % {"answer": rest} if rest
                else tr("requirement agent reads the request"))
    if head == "run" and rest == "baseline":
        return tr("run the baseline")
    if head == "run" and rest.startswith("candidate:"):
        return tr("run candidate %(number)s") % {"number": rest.split(":", 1)[1]}
    if head == "review":
        return tr("review agent judges round %(round)s") % {"round": rest} if rest else tr("review agent")
    if head == "population":
        return tr("bot population (%(which)s)") % {"which": rest} if rest else tr("bot population")
    return step


def _status_label(value: str) -> str:
    try:
        return Status(value).title
    except ValueError:
        return value


def history(events: Iterable[Event]) -> list[HistoryStep]:
    """The rows of the log ``events`` (in log order)."""
    marks: list[tuple[int, str, str, str, float]] = []
    lines: list[list[str]] = []
    for e in events:
        if isinstance(e, StepEvent):
            marks.append((e.seq, "step", e.data.step, step_label(e.data.step), e.at))
            lines.append([])
        elif isinstance(e, (CreatedEvent, TransitionEvent)):
            marks.append((e.seq, "status", str(e.target), _status_label(str(e.target)), e.at))
            lines.append([])
        elif isinstance(e, TraceEvent) and lines:
            lines[-1].append(e.data.line)
    if not marks:
        return []
    t0 = marks[0][4]
    rows = []
    for i, (seq, kind, key, label, at) in enumerate(marks):
        duration = max(0.0, marks[i + 1][4] - at) if i + 1 < len(marks) else None
        rows.append(HistoryStep(seq, kind, key, label, at, max(0.0, at - t0), duration, tuple(lines[i])))
    return rows


def utc_time(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts)) + f".{int(ts * 1000) % 1000:03d}Z"


def duration_words(seconds: float, tr: Words = _same) -> str:
    """``0.42 s``, ``12.30 s``, ``3 min 05 s``, ``2 h 03 min``, ``3 d 04 h`` (``tr`` translates
    the units)."""
    s, m, h, d = tr("s"), tr("min"), tr("h"), tr("d")
    if seconds < 60:
        return f"{seconds:.2f} {s}"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60} {m} {whole % 60:02d} {s}"
    if whole < 86400:
        return f"{whole // 3600} {h} {whole % 3600 // 60:02d} {m}"
    return f"{whole // 86400} {d} {whole % 86400 // 3600:02d} {h}"


__all__ = ["HistoryStep", "history", "step_label", "duration_words", "utc_time"]
