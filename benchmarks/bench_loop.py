"""Benchmark of the whole offline verification loop: CPU per workflow (prints figures; not a test).

Runs the main job in process (requirement agent, validation, authorization with the whole
fight as repair scope, baseline run, candidate runs, evaluation, review, repair search,
fair-fight analysis where the request asks for a dodgeable fight), each workflow in a fresh
workspace, on each engine asked for:

* ``python-sim``: the reference simulator is the engine (no pre-screen);
* ``ue5``: the UE5 plugin's C++ core built with g++ as the console harness
  (``gcv-ue5-harness``, ``GCV_UE_HARNESS``), which stands in for a UE5 build: the loop
  pre-screens every candidate in the reference, searches repairs there, and draws the
  reference frames of every harness run (the harness renders none);

and with each ``GCV_NATIVE`` mode asked for (``auto``: the loop's reference work on the
native C++ core where it is exact; ``off``: the Python simulator everywhere). Runs are
interleaved (repeat > request > engine > mode) so a busy neighbour on a shared machine
weighs on every column alike; figures are medians.

Per workflow: wall time, CPU of this process (``time.process_time``) plus the CPU of the
engine processes it waited for (``getrusage(RUSAGE_CHILDREN)``), and where this process's
CPU went (exclusive time, innermost step wins): pre-screens, repair search, trade-offs,
fair-fight analysis, reference frames, engine runs, populations, the rest of the loop; with
the fights simulated in each, by path (Python simulator or native core). ``--profile``
adds a cProfile of one workflow per engine and mode.

Usage: python benchmarks/bench_loop.py [--repeat 5] [--engines python-sim,ue5] [--native auto,off]
                                       [--requests spiral,ring,dodge] [--profile] [--json]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine_runners import base as runner_base  # noqa: E402
from engine_runners import harness_cpp, native  # noqa: E402
from gcv.repair.scope import whole_fight  # noqa: E402
from gcv.sim import engine as sim_engine  # noqa: E402
from gcv.store.catalog import Workspace  # noqa: E402
from gcv.workflow.activities import default_activities  # noqa: E402
from gcv.workflow.baselines import active_baseline  # noqa: E402
from gcv.workflow.loop import WorkflowLoop  # noqa: E402
from gcv.workflow.state import Settings  # noqa: E402

REQUESTS = {
    "spiral": ("denser bidirectional spiral (one repair)",
               "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low "
               "FPS at 55 or above"),
    "ring": ("slower ring (passes at once)", "make phase 1 bullets 20% slower"),
    "dodge": ("denser spiral, kept dodgeable (fair-fight analysis)",
              "make phase 2 a denser bidirectional spiral, but keep it dodgeable"),
}
STEPS = ("prescreen", "repair search", "trade-offs", "fairness", "reference frames", "engine run", "population")
REST = "rest of the loop"


class Meter:
    """Exclusive CPU time per step (the innermost step running is charged) and fights per step and path."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.fights: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._stack: list[list[Any]] = []

    def reset(self) -> None:
        self.cpu.clear()
        self.fights.clear()
        self._stack.clear()

    def enter(self, step: str) -> None:
        now = time.process_time()
        if self._stack:
            top = self._stack[-1]
            self.cpu[top[0]] += now - top[1]
        self._stack.append([step, now])

    def leave(self) -> None:
        now = time.process_time()
        step, started = self._stack.pop()
        self.cpu[step] += now - started
        if self._stack:
            self._stack[-1][1] = now

    def fight(self, path: str) -> None:
        self.fights[self._stack[-1][0] if self._stack else REST][path] += 1

    def timed(self, step: str | Callable[..., str], fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            self.enter(step(*a, **k) if callable(step) else step)
            try:
                return fn(*a, **k)
            finally:
                self.leave()
        return wrapper


METER = Meter()


def _instrument() -> None:
    """Count fights by path, and time the reference frames (drawn inside a harness run)."""
    reset = sim_engine.Simulation.reset  # every Python fight starts with a reset (run() and the bot's steps)

    def counted_reset(self: Any, *a: Any, **k: Any) -> Any:
        METER.fight("python")
        return reset(self, *a, **k)

    sim_engine.Simulation.reset = counted_reset  # type: ignore[method-assign]
    run_bytes = native.NativeProgram.run_bytes

    def counted_run_bytes(self: Any, *a: Any, **k: Any) -> Any:
        METER.fight("native")
        return run_bytes(self, *a, **k)

    native.NativeProgram.run_bytes = counted_run_bytes  # type: ignore[method-assign]
    runner_base.render_reference_frames = METER.timed(  # type: ignore[attr-defined]
        "reference frames", runner_base.render_reference_frames)


def _reference_step(request: Any) -> str:
    run_id = request.run_id
    if run_id.endswith("-search"):
        return "repair search"
    if run_id.endswith("-trade"):
        return "trade-offs"
    return "prescreen"


class _TimedRunner:
    def __init__(self, runner: Any) -> None:
        self._runner = runner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)

    def run(self, *a: Any, **k: Any) -> Any:
        return METER.timed("engine run", self._runner.run)(*a, **k)


def activities() -> Any:
    acts = default_activities()
    runner = acts.runner
    acts.runner = lambda name: _TimedRunner(runner(name))
    acts.reference = METER.timed(_reference_step, acts.reference)
    acts.fairness = METER.timed("fairness", acts.fairness)
    acts.population = METER.timed("population", acts.population)
    return acts


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_workflow(text: str, engine: str) -> dict[str, Any]:
    """One request through the loop on ``engine`` in a fresh workspace: its figures."""
    METER.reset()
    with tempfile.TemporaryDirectory(prefix="gcv-bench-loop-") as tmp:
        cpu0, kids0, wall0 = time.process_time(), children_cpu(), time.perf_counter()
        METER.enter(REST)
        loop = WorkflowLoop(Workspace(Path(tmp)), activities=activities())
        baseline, source = active_baseline(loop.ws, time.time())
        wf = loop.create(text, baseline, Settings(engine=engine), baseline_source=source)
        state = loop.advance(wf)
        if state.status == "awaiting_authorization":
            loop.authorize(wf, actor="bench", repair_scope=whole_fight(baseline))
            state = loop.advance(wf)
        METER.leave()
        wall, cpu, kids = time.perf_counter() - wall0, time.process_time() - cpu0, children_cpu() - kids0
    return {"wall_s": wall, "cpu_s": cpu + kids, "cpu_self_s": cpu, "cpu_engine_processes_s": kids,
            "steps_cpu_s": dict(METER.cpu), "fights": {k: dict(v) for k, v in METER.fights.items()},
            "status": str(state.status), "engine_runs": state.usage.engine_runs,
            "prescreen_runs": state.usage.prescreen_runs}


def set_native(mode: str) -> None:
    os.environ[native.MODE_ENV] = mode


def median_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    med = statistics.median
    steps = sorted({s for r in rows for s in r["steps_cpu_s"]}, key=lambda s: (STEPS + (REST,)).index(s))
    return {"runs": len(rows),
            "median_wall_s": round(med(r["wall_s"] for r in rows), 3),
            "median_cpu_s": round(med(r["cpu_s"] for r in rows), 3),
            "median_cpu_engine_processes_s": round(med(r["cpu_engine_processes_s"] for r in rows), 3),
            "min_cpu_s": round(min(r["cpu_s"] for r in rows), 3),
            "median_steps_cpu_s": {s: round(med(r["steps_cpu_s"].get(s, 0.0) for r in rows), 3) for s in steps},
            "fights": rows[0]["fights"],  # the same in every repeat (the loop is deterministic)
            "status": sorted({r["status"] for r in rows}), "engine_runs": sorted({r["engine_runs"] for r in rows}),
            "prescreen_runs": sorted({r["prescreen_runs"] for r in rows})}


def profile(text: str, engine: str, top: int = 25) -> str:
    prof = cProfile.Profile()
    prof.enable()
    run_workflow(text, engine)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--engines", default="python-sim,ue5")
    parser.add_argument("--native", default="auto,off", help="GCV_NATIVE modes to compare")
    parser.add_argument("--requests", default=",".join(REQUESTS))
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of one workflow each")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    modes = [m for m in args.native.split(",") if m]
    requests = [r for r in args.requests.split(",") if r]
    bad = [m for m in modes if m not in native.MODES] + [r for r in requests if r not in REQUESTS] + [
        e for e in engines if e not in ("python-sim", "ue5")]
    if bad or args.repeat < 1:
        parser.error(f"unknown {bad} or --repeat < 1; modes {native.MODES}, requests {tuple(REQUESTS)}, "
                     "engines python-sim, ue5")
    if "ue5" in engines:
        try:
            os.environ["GCV_UE_HARNESS"] = str(harness_cpp.build_cpp_harness())
        except harness_cpp.HarnessBuildError as exc:
            print(f"cannot build the C++ harness: {exc}", file=sys.stderr)
            return 2
    set_native("auto")
    status = native.status(build=True)
    _instrument()
    load = [os.getloadavg()]
    for key in requests:  # warm up: imports, the native library, the harness's page cache
        for engine in engines:
            for mode in modes:
                set_native(mode)
                run_workflow(REQUESTS[key][1], engine)
    rows: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for _ in range(args.repeat):
        for key in requests:
            for engine in engines:
                for mode in modes:
                    set_native(mode)
                    rows[(key, engine, mode)].append(run_workflow(REQUESTS[key][1], engine))
        load.append(os.getloadavg())
    profiles = {}
    if args.profile:
        for engine in engines:
            for mode in modes:
                set_native(mode)
                profiles[f"{requests[0]} {engine} GCV_NATIVE={mode}"] = profile(REQUESTS[requests[0]][1], engine)
    set_native("auto")
    figures = {"machine": {"load_average_1m_5m_15m": [list(map(lambda x: round(x, 2), la)) for la in load],
                           "native": status.line(), "cores": os.cpu_count()},
               "workflows": {f"{key} | {engine} | GCV_NATIVE={mode}": median_row(r)
                             for (key, engine, mode), r in rows.items()}}
    if args.json:
        print(json.dumps(figures | {"profiles": profiles}, indent=2))
        return 0
    print(f"native: {status.line()}")
    print("load average (1, 5, 15 min) before and after each repeat: "
          + "; ".join("/".join(f"{x:.2f}" for x in la) for la in load))
    for name, f in figures["workflows"].items():
        key = name.split(" | ")[0]
        print(f"\n{REQUESTS[key][0]} | {name.split(' | ', 1)[1]}: median CPU {f['median_cpu_s']} s "
              f"(min {f['min_cpu_s']}; engine processes {f['median_cpu_engine_processes_s']} s), wall "
              f"{f['median_wall_s']} s, engine runs {f['engine_runs']}, pre-screens {f['prescreen_runs']}, "
              f"status {f['status']}, {f['runs']} runs")
        for step, cpu in f["median_steps_cpu_s"].items():
            fights = f["fights"].get(step, {})
            said = ", ".join(f"{n} {p}" for p, n in sorted(fights.items()))
            print(f"  {step:<18} {cpu:7.3f} s CPU" + (f"  fights: {said}" if said else ""))
    for name, text in profiles.items():
        print(f"\n--- cProfile: {name}\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
