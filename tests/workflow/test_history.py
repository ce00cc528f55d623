"""The workflow as a history of steps (issue 31.7): each step's start is its event's time, its
duration the time until the next step, from the event log alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.events import TraceEvent, TransitionEvent, parse_events
from gcv.workflow.history import duration_words, history, step_label
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings


class UnevenClock:
    """Each reading later than the last by a different amount, so every duration is its own."""

    def __init__(self) -> None:
        self.t, self.n = 1_800_000_000.0, 0

    def __call__(self) -> float:
        self.n += 1
        self.t += 0.125 * self.n
        return self.t


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> list:
    loop = WorkflowLoop(Workspace(tmp_path_factory.mktemp("history") / "ws"), clock=UnevenClock())
    base, source = active_baseline(loop.ws, 0.0)
    wf = loop.create("make phase 3 much denser", base, Settings(), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="omar")
    loop.advance(wf)
    d, _ = loop.load(wf)
    return parse_events(d.events())


def test_each_step_starts_at_its_event_and_lasts_until_the_next(events: list) -> None:
    rows = history(events)
    marks = [e for e in events if not isinstance(e, TraceEvent)]
    assert [r.seq for r in rows] == [e.seq for e in marks]
    for row, e, nxt in zip(rows, marks, marks[1:] + [None]):
        assert row.at == e.at and row.offset == e.at - marks[0].at
        assert row.duration == (None if nxt is None else nxt.at - e.at)
    assert rows[-1].duration is None and rows[-1].duration_words == "—"
    assert all(r.duration > 0 for r in rows[:-1])
    # the steps of a whole run are there, in words, and the waits for a person too
    keys = [r.key for r in rows if r.kind == "step"]
    assert keys[:2] == ["requirement", "run:baseline"] and "run:candidate:1" in keys and "review:1" in keys
    assert {r.label for r in rows if r.key == "run:baseline"} == {"run the baseline"}
    assert "Awaiting authorization" in [r.label for r in rows if r.kind == "status"]
    assert rows[-1].key == str(next(e for e in reversed(events) if isinstance(e, TransitionEvent)).target)
    # every trace line is shown once, with the step it was written in
    lines = [line for r in rows for line in r.lines]
    assert lines == [e.data.line for e in events if isinstance(e, TraceEvent)] and lines
    assert any(line.startswith("[round 1]") for r in rows if r.key == "review:1" for line in r.lines)


def test_durations_and_labels_in_words() -> None:
    assert [duration_words(s) for s in (0, 0.004, 12.3, 59.999, 60, 185, 3600, 7380, 86400 * 3 + 3600 * 4)] == [
        "0.00 s", "0.00 s", "12.30 s", "60.00 s", "1 min 00 s", "3 min 05 s", "1 h 00 min", "2 h 03 min", "3 d 04 h"]
    assert step_label("requirement:2") == "requirement agent reads the request (reading 2)"
    assert step_label("run:candidate:3") == "run candidate 3" and step_label("review:2") == "review agent judges round 2"
    assert step_label("something:new") == "something:new"
    assert history([]) == []


def test_the_history_has_nothing_but_the_log(tmp_path: Path) -> None:
    # no clock: the same events give the same rows, whenever they are read
    loop = WorkflowLoop(Workspace(tmp_path / "ws"), clock=UnevenClock())
    base, source = active_baseline(loop.ws, 0.0)
    wf = loop.create("make phase 3 much denser", base, Settings(), baseline_source=source)
    loop.advance(wf)
    d, _ = loop.load(wf)
    first = history(parse_events(d.events()))
    assert first == history(parse_events(d.events()))
    assert [r.label for r in first] == ["Proposed", "requirement agent reads the request", "Awaiting authorization"]
