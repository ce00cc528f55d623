"""Benchmark of the python-sim reference simulator (prints figures; not a test).

Measures, on the committed baseline (a 36 s fight):
- the scripted single run: median of repeated runs and the ratio to real time;
- a bot population batch (SEEDS seeds of each skill) through the batch API with 1 and 2
  workers: runs/s and the aggregate ratio to real time;
- ticks/s and bullet-updates/s (alive bullets summed over ticks, per second);
- peak memory (max RSS of this process and of its worker processes).

Usage: python benchmarks/bench_sim.py [--repeat 15] [--seeds 64] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gcv.contract.models import BulletHellConfig  # noqa: E402
from gcv.simio.pool import run_batch  # noqa: E402
from gcv.sim.engine import Simulation  # noqa: E402
from gcv.sim.program import compile_program  # noqa: E402

SKILLS = ("novice", "average", "expert")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seeds", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    config = BulletHellConfig.model_validate(
        json.loads((ROOT / "artifacts/baselines/shrine_trial.json").read_text()))
    program = compile_program(config)
    fight_ms = program["duration_ticks"] * 1000 / 60

    sim = Simulation(program, {"kind": "scripted"})
    sim.run(seed=0)  # warm-up
    times = []
    for i in range(args.repeat):
        t0 = time.perf_counter()
        tel = sim.run(seed=i).telemetry
        times.append((time.perf_counter() - t0) * 1000)
    scripted_ms = statistics.median(times)
    alive_sum = sum(p["alive_tick_sum"] for p in tel["phase_results"])
    ticks = tel["ticks"]

    runs = [(seed, {"kind": "bot", "skill": skill}) for skill in SKILLS for seed in range(args.seeds)]
    per_skill = {}
    for skill in SKILLS:
        bot = Simulation(program, {"kind": "bot", "skill": skill})
        t0 = time.perf_counter()
        for seed in range(8):
            bot.run(seed=seed)
        per_skill[skill] = (time.perf_counter() - t0) * 1000 / 8
    batch = {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        results = run_batch(program, runs, workers=workers)
        elapsed = time.perf_counter() - t0
        batch[workers] = {
            "runs": len(results),
            "seconds": round(elapsed, 3),
            "runs_per_second": round(len(results) / elapsed, 2),
            "ratio_to_real_time": round(len(results) * fight_ms / 1000 / elapsed, 1),
        }
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures = {
        "fight_seconds": fight_ms / 1000,
        "scripted_median_ms": round(scripted_ms, 2),
        "scripted_min_ms": round(min(times), 2),
        "scripted_ratio_to_real_time": round(fight_ms / scripted_ms, 1),
        "ticks_per_second": round(ticks / (scripted_ms / 1000)),
        "bullet_updates_per_second": round(alive_sum / (scripted_ms / 1000)),
        "bot_ms_per_run": {k: round(v, 1) for k, v in per_skill.items()},
        "bot_population": batch,
        "parallel_speedup": round(batch[2]["runs_per_second"] / batch[1]["runs_per_second"], 2),
        "peak_rss_mb": {"main": round(own, 1), "largest_worker": round(children, 1)},
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"scripted baseline: median {figures['scripted_median_ms']} ms over {args.repeat} runs "
          f"(min {figures['scripted_min_ms']} ms) = {figures['scripted_ratio_to_real_time']}x real time")
    print(f"  {figures['ticks_per_second']:,} ticks/s, {figures['bullet_updates_per_second']:,} bullet-updates/s")
    print("bot single runs (ms): " + ", ".join(f"{k} {v}" for k, v in figures["bot_ms_per_run"].items()))
    for workers, b in batch.items():
        print(f"bot population {b['runs']} runs, {workers} worker(s): {b['seconds']} s, "
              f"{b['runs_per_second']} runs/s, {b['ratio_to_real_time']}x real time")
    print(f"parallel speed-up 2 vs 1 workers: {figures['parallel_speedup']}x")
    print(f"peak RSS: main {figures['peak_rss_mb']['main']} MB, largest worker {figures['peak_rss_mb']['largest_worker']} MB")


if __name__ == "__main__":
    main()
