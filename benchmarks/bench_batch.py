"""Benchmark of ``gcv batch`` with the local executor (prints figures; not a test).

Runs the baseline bot population (SEEDS seeds x 3 skills = 1,002 python-sim runs by
default) end to end through ``gcv.batch.job.run_job`` (matrix, executor, results log,
Parquet/CSV table, statistics) with 1 worker and with 2 workers, and prints runs/s, the
aggregate ratio to real time (each run simulates a 36 s fight) and the 2-vs-1 speed-up.
Also checks that both runs produced identical rows. python-sim takes this machine's path
(``engine_runners.native``: the C++ core, or Python); ``--python`` forces Python.

``--memory`` instead measures ``gcv batch`` itself: the peak resident set (getrusage
ru_maxrss) of the main process of a 256-run batch (64 seeds x scripted and the three bot
skills), run as ``gcv batch SPEC --json`` in a fresh interpreter, for 1 and 2 workers and
for both python-sim paths, beside the resident set of the imported libraries alone
(numpy, pydantic, pandas, pyarrow, ...: most of it).

Usage: python benchmarks/bench_batch.py [--seeds 334] [--workers 1 2] [--python] [--json]
       python benchmarks/bench_batch.py --memory [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gcv.batch.job import run_job  # noqa: E402
from gcv.batch.results import figures  # noqa: E402
from gcv.batch.spec import load_batch  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=334)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--python", action="store_true", help="python-sim in Python (GCV_NATIVE=off)")
    parser.add_argument("--memory", action="store_true", help="peak RSS of gcv batch itself (256 runs)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.memory:
        measure_memory(args.json)
        return
    if args.python:
        os.environ["GCV_NATIVE"] = "off"
    config = ROOT / "artifacts" / "baselines" / "shrine_trial.json"
    results = {}
    rows = {}
    with tempfile.TemporaryDirectory(prefix="gcv-bench-batch-") as tmp:
        for workers in args.workers:
            spec = Path(tmp) / f"bench_{workers}.toml"
            spec.write_text(SPEC.format(config=config, seeds=args.seeds, output=Path(tmp) / f"out_{workers}"))
            resolved = load_batch(spec)
            fight_seconds = resolved.configs[0].program["duration_ticks"] / 60
            t0 = time.perf_counter()
            outcome = run_job(resolved, workers=workers)
            elapsed = time.perf_counter() - t0
            runs = outcome.counts["runs_this_time"]
            results[workers] = {
                "runs": runs,
                "seconds": round(elapsed, 2),
                "runs_per_second": round(runs / elapsed, 2),
                "ratio_to_real_time": round(runs * fight_seconds / elapsed, 1),
                "exit_code": outcome.exit_code,
            }
            rows[workers] = [figures(r) for r in outcome.rows]
    identical = len({json.dumps(r, sort_keys=True) for r in rows.values()}) == 1
    out = {"cpu_count": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2),
           "fight_seconds": fight_seconds, "by_workers": results, "identical_rows": identical}
    if 1 in results and 2 in results:
        out["speedup_2_vs_1"] = round(results[2]["runs_per_second"] / results[1]["runs_per_second"], 2)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"baseline bot population, {args.seeds} seeds x 3 skills, local executor "
          f"({out['cpu_count']} CPUs, load average {out['load_average_1m']} at the end); python-sim "
          f"{'in Python (GCV_NATIVE=off)' if args.python else 'on this machine path (native if built)'}")
    for workers, r in results.items():
        print(f"  {workers} worker(s): {r['runs']} runs in {r['seconds']} s = {r['runs_per_second']} runs/s "
              f"= {r['ratio_to_real_time']}x real time (exit {r['exit_code']})")
    if "speedup_2_vs_1" in out:
        print(f"  speed-up 2 vs 1 workers: {out['speedup_2_vs_1']}x")
    print(f"  rows identical across worker counts: {identical}")


if __name__ == "__main__":
    main()
