"""Benchmark of the whole offline verification loop (prints figures; not a test).

Runs the main job in process (requirement agent, validation, authorization, baseline run,
up to three candidate runs, evaluation, review, repair) on python-sim, REPEAT times, each
in a fresh workspace, and reports the median wall time and how much of it was simulation.

Usage: python benchmarks/bench_loop.py [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gcv.sim import engine as sim_engine  # noqa: E402
from gcv.workflow.baselines import active_baseline  # noqa: E402
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings  # noqa: E402
from gcv.store.catalog import Workspace  # noqa: E402

REQUESTS = {
    "denser bidirectional spiral (one repair)": "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above",
    "slower ring (passes at once)": "make phase 1 bullets 20% slower",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sim_time = [0.0]
    original = sim_engine.Simulation.run

    def timed_run(self, *a, **k):  # measure the share of simulation in the loop
        t0 = time.perf_counter()
        try:
            return original(self, *a, **k)
        finally:
            sim_time[0] += time.perf_counter() - t0

    sim_engine.Simulation.run = timed_run  # type: ignore[method-assign]
    figures = {}
    for label, request in REQUESTS.items():
        walls, sims, statuses, runs = [], [], set(), set()
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                sim_time[0] = 0.0
                t0 = time.perf_counter()
                engine = WorkflowLoop(Workspace(Path(tmp)))
                baseline, source = active_baseline(engine.ws, time.time())
                wf = engine.create(request, baseline, Settings(), baseline_source=source)
                state = engine.advance(wf)
                if state.status == "awaiting_authorization":
                    engine.authorize(wf, actor="bench")
                    state = engine.advance(wf)
                walls.append(time.perf_counter() - t0)
                sims.append(sim_time[0])
                statuses.add(str(state.status))
                runs.add(state.usage.engine_runs)
        figures[label] = {"median_wall_s": round(statistics.median(walls), 3),
                          "median_simulation_s": round(statistics.median(sims), 3),
                          "simulation_share": round(statistics.median(sims) / statistics.median(walls), 2),
                          "engine_runs": sorted(runs), "status": sorted(statuses)}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for label, f in figures.items():
        print(f"{label}: median {f['median_wall_s']} s wall, {f['median_simulation_s']} s simulating "
              f"({f['simulation_share']:.0%}), runs {f['engine_runs']}, status {f['status']}")


if __name__ == "__main__":
    main()
