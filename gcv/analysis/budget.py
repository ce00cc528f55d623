"""The analysis's budget: counted work decides, wall-clock seconds only stop a runaway.

Why work and not seconds: a verdict must be recomputable bit for bit on any machine and any
load (replay re-proves it), so where the analysis stops has to depend on the config alone.
Every stage counts what it does in work units and asks ``exhausted()`` only at fixed points
of its own loop (a chunk boundary of the bound, every 16 ticks of the search, a beam death),
so the same config and seed stop at the same place everywhere.

One work unit is, by stage (weights measured so that a unit costs roughly the same CPU time
everywhere, about a microsecond on the machine of docs/analysis.md):

* the reachable-set bound, forward or backward: one unit per 32 cells of a tick's set
  (a tick of a 65,536-cell grid costs 2,048 units);
* the exact opening and the witness search: one unit per candidate position tested against
  the bullets of its tick;
* the cheap witnesses (standing still, walking then standing, each bot's trajectory): one unit
  per 16 (candidate, bullet) pairs screened, and 64 per simulated tick of a replay or a bot
  run. They may spend at most a quarter of the budget (``CHEAP_SHARE``), so the bound and
  the search always get the rest.

The seconds limit is a safety stop, not a budget: when it fires, the stage stops, the report
says ``stopped by time`` and the verdict is ``undetermined`` (never ``fair`` or ``unfair``
that another machine might not reach). The default is generous so that it fires only on a
machine far slower or busier than any the default work budget was sized on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

DEFAULT_BUDGET_WORK = 100_000_000  # docs/analysis.md section 6: how it was sized
DEFAULT_SAFETY_SECONDS = 600.0
CELLS_PER_UNIT = 32
PAIRS_PER_UNIT = 16
CHEAP_SHARE = 4  # the cheap witnesses stop once they have spent work_limit // CHEAP_SHARE
REPLAY_TICK_UNITS = 64
MAX_BUDGET_WORK = 10**12


@dataclass
class Budget:
    """Work counted by every stage against ``work_limit``; seconds only as a safety stop."""

    work_limit: int = DEFAULT_BUDGET_WORK
    seconds_limit: float = DEFAULT_SAFETY_SECONDS
    clock: Callable[[], float] = time.monotonic
    work: int = 0
    stopped_by_time: bool = False
    by_stage: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 < self.work_limit <= MAX_BUDGET_WORK:
            raise ValueError(f"budget_work must be 1..{MAX_BUDGET_WORK}, got {self.work_limit}")
        if not self.seconds_limit > 0:
            raise ValueError(f"budget_seconds must be positive, got {self.seconds_limit}")
        self.started = self.clock()

    def spend(self, stage: str, units: int) -> None:
        units = max(0, int(units))
        self.work += units
        self.by_stage[stage] = self.by_stage.get(stage, 0) + units

    def out_of_work(self) -> bool:
        return self.work >= self.work_limit

    def exhausted(self) -> bool:
        """True once the work budget is spent, or (the safety stop) the seconds ran out."""
        if self.work >= self.work_limit:
            return True
        if self.clock() - self.started >= self.seconds_limit:
            self.stopped_by_time = True
            return True
        return False

    def elapsed(self) -> float:
        return self.clock() - self.started

    @property
    def stop_reason(self) -> str:
        """``time`` (the safety stop fired), ``work`` (the budget ran out) or ``none``."""
        if self.stopped_by_time:
            return "time"
        return "work" if self.out_of_work() else "none"
