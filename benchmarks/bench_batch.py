"""Benchmark of ``gcv batch`` (prints figures; not a test).

Default (``--compare``): the baseline bot population (SEEDS seeds x 3 skills = 1,002
python-sim runs), end to end through ``gcv.batch.job.run_job`` (matrix, executor, results
log, Parquet/CSV table, statistics), as three *setups*: the local executor with 1 worker,
the local executor with 2 workers and ``--executor dask`` without a scheduler (a local
cluster of 2 workers). Each trial runs in a fresh interpreter, as ``gcv batch`` does, so
worker start-up, library loads and program parses are in the figures; the setups run
interleaved (A B C A B C ...) ``--repeat`` times and the medians are printed with:

* wall: seconds of ``run_job`` (the batch, not the interpreter's imports); also "runs":
  from ``run_job``'s start to its last row (what the executor does; the rest is the table,
  statistics and summary, the same for every setup);
* CPU: user + system seconds of the whole process tree of the trial (the driver, its
  forkserver and pool workers, a Dask cluster's scheduler, nannies and workers), less the
  driver's CPU before ``run_job`` started (its imports; the driver ends with ``os._exit`` once
  ``run_job`` returned, so no interpreter teardown is counted either). The tree is measured exactly: this
  process becomes a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``), so every
  descendant, orphaned or not, is reaped here and its CPU lands in ``RUSAGE_CHILDREN``;
* the 1-minute load average before each trial (the machine may be shared: a figure taken
  under load says so).

Also checks that all setups produced identical rows (timing left out). python-sim takes
this machine's path (``engine_runners.native``: the C++ core, or Python); ``--python``
forces Python.

``--memory`` instead measures ``gcv batch`` itself: the peak resident set (getrusage
ru_maxrss) of the main process of a 256-run batch (64 seeds x scripted and the three bot
skills), run as ``gcv batch SPEC --json`` in a fresh interpreter, for 1 and 2 workers and
for both python-sim paths, beside the resident set of the imported libraries alone
(numpy, pydantic, pandas, pyarrow, ...: most of it).

``--before DIR`` runs every setup also with another checkout (``git archive REV | tar -x -C
DIR``), interleaved with this one (before:A A before:B B ...), and checks that both trees'
rows are identical: a before/after comparison under the same load.

Usage: python benchmarks/bench_batch.py [--seeds 334] [--repeat 3] [--setups local1 local2 dask2]
                                        [--before DIR] [--python] [--json]
       python benchmarks/bench_batch.py --memory [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


SPEC = """
name = "benchmark: baseline bot population"
configs = ["{config}"]
seeds = {{ count = {seeds} }}
players = ["bot:novice", "bot:average", "bot:expert"]
output = "{output}"
"""


MEMORY_SPEC = """
name = "benchmark: memory of gcv batch"
configs = ["{config}"]
seeds = {{ count = 64 }}
players = ["scripted", "bot:novice", "bot:average", "bot:expert"]
output = "{output}"
"""
# Runs the real CLI entry point in this interpreter, then reports this process's peak RSS
# (ru_maxrss, KiB on Linux); "imports" is the peak after importing what the batch command
# imports, before any run.
MEMORY_PROBE = """
import importlib, resource, sys
if sys.argv[3] == "imports":
    for name in ("gcv.cli.app", "gcv.batch.job", "gcv.batch.executors", "gcv.batch.results", "gcv.batch.stats",
                 "pandas", "pyarrow.parquet", "engine_runners.native", "gcv.sim.engine"):
        importlib.import_module(name)
    print("MAXRSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, 0, file=sys.stderr)
    sys.exit(0)
from gcv.cli.app import main
sys.argv = ["gcv", "batch", sys.argv[1], "--workers", sys.argv[2], "--json", "--overwrite"]
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code
print("MAXRSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, code, file=sys.stderr)
"""


def measure_memory(as_json: bool) -> None:
    config = ROOT / "artifacts" / "baselines" / "shrine_trial.json"
    results = []
    with tempfile.TemporaryDirectory(prefix="gcv-bench-memory-") as tmp:
        spec = Path(tmp) / "memory.toml"
        spec.write_text(MEMORY_SPEC.format(config=config, output=Path(tmp) / "out"))
        env = dict(os.environ, PYTHONPATH=str(ROOT), GCV_HOME=str(Path(tmp) / "ws"))
        probe = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(spec), "1", "imports"], env=env,
                               capture_output=True, text=True, timeout=600)
        imports_mib = round(int(probe.stderr.split("MAXRSS ")[-1].split()[0]) / 1024, 1)
        for path in ("native", "python"):
            env["GCV_NATIVE"] = "auto" if path == "native" else "off"
            for workers in (1, 2):
                t0 = time.perf_counter()
                proc = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(spec), str(workers), "run"], env=env,
                                      capture_output=True, text=True, timeout=3600)
                elapsed = time.perf_counter() - t0
                line = [ln for ln in proc.stderr.splitlines() if ln.startswith("MAXRSS ")][-1].split()
                doc = json.loads(proc.stdout)
                results.append({"path": doc.get("python_sim_path", {}).get("path"), "workers": workers,
                                "runs": doc["counts"]["rows"], "main_peak_mib": round(int(line[1]) / 1024, 1),
                                "exit_code": int(line[2]), "seconds": round(elapsed, 1)})
    if as_json:
        print(json.dumps({"cpu_count": os.cpu_count(), "imports_mib": imports_mib, "memory": results}, indent=2))
        return
    print(f"gcv batch, 256 runs (64 seeds x scripted + 3 bot skills): peak resident set of the main process "
          f"({os.cpu_count()} CPUs)")
    for r in results:
        print(f"  python-sim on {r['path']:<6} {r['workers']} worker(s): {r['main_peak_mib']} MiB; "
              f"{r['runs']} runs in {r['seconds']} s wall (exit {r['exit_code']})")
    print(f"  of which the imported libraries alone (numpy, pydantic, pandas, pyarrow, ...): {imports_mib} MiB")


# One trial, in a fresh interpreter: argv = spec, executor, workers. Prints one JSON line.
TRIAL_PROBE = """
import hashlib, json, resource, sys, time
from gcv.batch.job import run_job
from gcv.batch.results import figures
from gcv.batch.spec import load_batch
resolved = load_batch(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
last = [t0]
def on_row(row, final):
    last[0] = time.perf_counter()
outcome = run_job(resolved, executor=sys.argv[2], workers=int(sys.argv[3]), overwrite=True, on_row=on_row)
wall = time.perf_counter() - t0
after = resource.getrusage(resource.RUSAGE_SELF)
# the rows as written, key order included, without the timing (duration_ms) and the table's flag
digest = hashlib.sha256(json.dumps([figures(r) for r in outcome.rows]).encode()).hexdigest()
print(json.dumps({"wall": wall, "runs_wall": last[0] - t0, "driver_cpu_before": before.ru_utime + before.ru_stime,
                  "driver_cpu_batch": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                  "runs": outcome.counts["runs_this_time"], "exit_code": outcome.exit_code, "rows": digest,
                  "fight_seconds": resolved.configs[0].program["duration_ticks"] / 60}), flush=True)
import os
os._exit(0)  # the batch is over (executor closed, workers joined): its teardown is not the batch's cost
"""
SETUPS = {"local1": ("local", 1), "local2": ("local", 2), "dask2": ("dask", 2)}
_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Orphaned descendants of a trial (a forkserver, a resource tracker) are reaped here, so
    their CPU counts in RUSAGE_CHILDREN. Linux only; elsewhere the figures may miss them."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_all(deadline: float) -> None:
    """Wait for every descendant of this process (the trial's leftovers included)."""
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no children left
        if pid == 0:
            time.sleep(0.01)
    raise RuntimeError("a trial left processes running for 60 s")


def run_trial(setup: str, spec: Path, env: dict[str, str]) -> dict[str, Any]:
    executor, workers = SETUPS[setup.split(":")[-1]]
    load = os.getloadavg()[0]
    cpu0 = _children_cpu()
    # cwd: not a checkout (``python -c`` puts the working directory first on sys.path)
    proc = subprocess.run([sys.executable, "-c", TRIAL_PROBE, str(spec), executor, str(workers)], env=env,
                          cwd=spec.parent, capture_output=True, text=True, timeout=3600)
    _reap_all(time.monotonic() + 60)
    tree = _children_cpu() - cpu0
    if proc.returncode != 0:
        raise RuntimeError(f"trial {setup} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"setup": setup, "load_1m": round(load, 2), "wall": round(doc["wall"], 3),
            "runs_wall": round(doc["runs_wall"], 3),
            "cpu": round(tree - doc["driver_cpu_before"], 3), "driver_cpu": round(doc["driver_cpu_batch"], 3),
            "runs": doc["runs"], "exit_code": doc["exit_code"], "rows": doc["rows"],
            "fight_seconds": doc["fight_seconds"]}


def compare(args: argparse.Namespace) -> None:
    config = ROOT / "artifacts" / "baselines" / "shrine_trial.json"
    subreaper = become_subreaper()
    trees = {"": ROOT}
    if args.before:
        trees["before:"] = Path(args.before).resolve()
    setups = [tag + setup for setup in args.setups for tag in trees]  # before:local1, local1, before:local2, ...
    trials: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gcv-bench-batch-") as tmp:
        envs = {tag: dict(os.environ, PYTHONPATH=str(tree), GCV_HOME=str(Path(tmp) / "ws"))
                for tag, tree in trees.items()}
        if args.python:
            for env in envs.values():
                env["GCV_NATIVE"] = "off"
        specs = {}
        for setup in setups:
            specs[setup] = Path(tmp) / f"bench_{setup.replace(':', '_')}.toml"
            specs[setup].write_text(SPEC.format(config=config, seeds=args.seeds,
                                                output=Path(tmp) / f"out_{setup.replace(':', '_')}"))
        # warm-up: the native library is built (once per machine) outside the figures
        run_trial(setups[0], specs[setups[0]], envs[""])
        for _ in range(args.repeat):
            for setup in setups:
                tag = "before:" if setup.startswith("before:") else ""
                trials.append(run_trial(setup, specs[setup], envs[tag]))
    by_setup: dict[str, dict[str, Any]] = {}
    for setup in setups:
        mine = [t for t in trials if t["setup"] == setup]
        wall = statistics.median(t["wall"] for t in mine)
        executor, workers = SETUPS[setup.split(":")[-1]]
        by_setup[setup] = {
            "executor": executor, "workers": workers, "runs": mine[0]["runs"],
            "wall_s": round(wall, 3), "runs_wall_s": round(statistics.median(t["runs_wall"] for t in mine), 3),
            "cpu_s": round(statistics.median(t["cpu"] for t in mine), 3),
            "driver_cpu_s": round(statistics.median(t["driver_cpu"] for t in mine), 3),
            "runs_per_s": round(mine[0]["runs"] / wall, 1),
            "x_real_time": round(mine[0]["runs"] * mine[0]["fight_seconds"] / wall),
            "walls": [t["wall"] for t in mine], "cpus": [t["cpu"] for t in mine],
            "loads_1m": [t["load_1m"] for t in mine], "exit_codes": sorted({t["exit_code"] for t in mine}),
        }
    ratios: dict[str, float] = {}

    def ratio(name: str, a: str, b: str, key: str) -> None:
        if a in by_setup and b in by_setup and by_setup[b][key]:
            ratios[name] = round(by_setup[a][key] / by_setup[b][key], 2)

    for tag in trees:
        ratio(f"{tag}wall_local1_over_local2", f"{tag}local1", f"{tag}local2", "wall_s")
        ratio(f"{tag}runs_wall_local1_over_local2", f"{tag}local1", f"{tag}local2", "runs_wall_s")
        ratio(f"{tag}cpu_local2_over_local1", f"{tag}local2", f"{tag}local1", "cpu_s")
        ratio(f"{tag}cpu_dask2_over_local2", f"{tag}dask2", f"{tag}local2", "cpu_s")
        ratio(f"{tag}cpu_dask2_over_local1", f"{tag}dask2", f"{tag}local1", "cpu_s")
        ratio(f"{tag}wall_local1_over_dask2", f"{tag}local1", f"{tag}dask2", "wall_s")
    loads = [t["load_1m"] for t in trials]
    out = {"cpu_count": os.cpu_count(), "python_sim": "python" if args.python else "this machine's path",
           "seeds": args.seeds, "repeat": args.repeat, "exact_tree_cpu": subreaper,
           "before_tree": str(trees.get("before:", "")) or None,
           "load_1m": {"min": min(loads), "median": statistics.median(loads), "max": max(loads)},
           "by_setup": by_setup, "ratios": ratios,
           "identical_rows": len({t["rows"] for t in trials}) == 1, "trials": trials}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"gcv batch: baseline bot population, {args.seeds} seeds x 3 skills, median of {args.repeat} interleaved "
          f"trials ({out['cpu_count']} CPUs; 1-min load average before the trials {out['load_1m']['min']}-"
          f"{out['load_1m']['max']}, median {out['load_1m']['median']}); python-sim "
          f"{'in Python (GCV_NATIVE=off)' if args.python else 'on this machine path (native if built)'}"
          + (f"; before: {out['before_tree']}" if args.before else ""))
    print(f"  {'setup':<14} {'runs':>5} {'wall s':>7} {'runs s':>7} {'CPU s':>7} {'driver':>7} {'runs/s':>8}  "
          "trials (wall/CPU, load)")
    for setup, r in by_setup.items():
        detail = ", ".join(f"{w:.2f}/{c:.2f} @{ld}" for w, c, ld in zip(r["walls"], r["cpus"], r["loads_1m"]))
        print(f"  {setup:<14} {r['runs']:>5} {r['wall_s']:>7.3f} {r['runs_wall_s']:>7.3f} {r['cpu_s']:>7.3f} "
              f"{r['driver_cpu_s']:>7.3f} {r['runs_per_s']:>8.1f}  {detail}")
    print("  (wall: run_job; runs: run_job's start to its last row, before the table and statistics)")
    for name, value in ratios.items():
        print(f"  {name.replace('_', ' ')}: {value}x")
    print(f"  rows identical across setups and trials{' and trees' if args.before else ''}: {out['identical_rows']}"
          + ("" if subreaper else "  (CPU of orphaned descendants not measured: not Linux)"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=334)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved trials per setup (medians)")
    parser.add_argument("--setups", nargs="+", choices=list(SETUPS), default=list(SETUPS))
    parser.add_argument("--before", metavar="DIR", help="a checkout of the code before a change (git archive "
                        "REV | tar -x -C DIR): each setup also runs with it, interleaved, same figures")
    parser.add_argument("--python", action="store_true", help="python-sim in Python (GCV_NATIVE=off)")
    parser.add_argument("--memory", action="store_true", help="peak RSS of gcv batch itself (256 runs)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.memory:
        measure_memory(args.json)
        return
    compare(args)


if __name__ == "__main__":
    main()
