"""The budget is counted work: the same config and seed give the same verdict, witness and
stopping point on any machine and load; seconds only stop a runaway, and say so (issue 29)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Iterator

import pytest

from gcv.analysis import analyze, run_analysis
from gcv.analysis.budget import Budget
from gcv.analysis.report import FairnessReport
from tests.support.fairutil import baseline_data, edge_gap

TIMINGS = {"elapsed_seconds", "reach_seconds", "search_seconds", "replay_seconds"}


def _strip(report: FairnessReport) -> dict[str, Any]:
    return report.model_dump(exclude={"effort": TIMINGS})


@pytest.fixture
def cpu_burners() -> Iterator[None]:
    """Two processes spinning beside the test (the machine has two cores): a seconds budget
    would end at a different place under this load."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_a_binding_work_budget_stops_at_the_same_place_under_load(cpu_burners: None) -> None:
    doc = edge_gap(start_x=-1.9)  # far from the lane: the walks are hit, the search needs budget
    quiet_budget = 400_000
    first = analyze(doc, seed=1, budget_work=quiet_budget)
    assert first.effort.stopped_by == "work" and first.verdict == "undetermined"
    assert "work budget ran out" in first.reason or any("work budget" in n for n in first.notes)
    again = analyze(doc, seed=1, budget_work=quiet_budget)
    assert _strip(again) == _strip(first)


def test_the_same_witness_hash_under_load(cpu_burners: None) -> None:
    a = analyze(baseline_data(), seed=1)
    b = analyze(baseline_data(), seed=1)
    assert a.verdict == b.verdict == "fair" and a.witness is not None and b.witness is not None
    assert a.witness.trace_hash == b.witness.trace_hash
    assert a.effort.work_units == b.effort.work_units and _strip(a) == _strip(b)


class _Clock:
    """Every reading is 1 s later: the seconds safety stop fires after a few readings."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def test_the_seconds_safety_stop_reports_stopped_by_time_never_a_verdict() -> None:
    r = run_analysis(edge_gap(start_x=-1.9), seed=1, budget_seconds=3, clock=_Clock()).report
    assert r.effort.stopped_by == "time" and r.verdict == "undetermined"
    assert r.reason.startswith("stopped by time")
    assert r.witness is None and r.unfair is None


def test_budget_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="budget_work"):
        Budget(work_limit=0)
    with pytest.raises(ValueError, match="budget_seconds"):
        Budget(seconds_limit=0)
