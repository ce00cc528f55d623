"""Benchmark of ``gcv batch`` with the local executor (prints figures; not a test).

Runs the baseline bot population (SEEDS seeds x 3 skills = 1,002 python-sim runs by
default) end to end through ``gcv.batch.job.run_job`` (matrix, executor, results log,
Parquet/CSV table, statistics) with 1 worker and with 2 workers, and prints runs/s, the
aggregate ratio to real time (each run simulates a 36 s fight) and the 2-vs-1 speed-up.
Also checks that both runs produced identical rows.

Usage: python benchmarks/bench_batch.py [--seeds 334] [--workers 1 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=334)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
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
          f"({out['cpu_count']} CPUs, load average {out['load_average_1m']} at the end)")
    for workers, r in results.items():
        print(f"  {workers} worker(s): {r['runs']} runs in {r['seconds']} s = {r['runs_per_second']} runs/s "
              f"= {r['ratio_to_real_time']}x real time (exit {r['exit_code']})")
    if "speedup_2_vs_1" in out:
        print(f"  speed-up 2 vs 1 workers: {out['speedup_2_vs_1']}x")
    print(f"  rows identical across worker counts: {identical}")


if __name__ == "__main__":
    main()
