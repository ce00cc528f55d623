"""Benchmark of the C# port (Gcv.Core) through the mcs-built harness (prints figures; not a test).

Measures, on the committed baseline (a 36 s fight = 36000 ms of game time):
- the scripted single run: one harness process with ``-gcvBench N`` runs the request N more
  times in-process and prints each run's time (simulation + telemetry incl. state hashes;
  no file I/O, no mono start-up, no JIT: the real run before them warms up). Reported: the
  median and min ms/run and the ratio to real time (36000 ms / ms per run);
- the same, end to end: wall time of whole harness processes (mono start-up, JIT, request
  parse, outputs), median of a few launches;
- a bot batch: SEEDS seeds x 3 skills, each one process with ``-gcvBench K``; per-skill mean
  of the per-request median ms/run, and the aggregate ratio to real time;
- for scale, the python-sim median on the same scripted run.

Usage: python benchmarks/bench_csharp_core.py [--repeat 25] [--seeds 16] [--bench-runs 3]
                                               [--launches 5] [--out DIR] [--json]
Needs mcs + mono (apt-get install -y mono-mcs mono-runtime).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine_runners.harness_csharp import (build_csharp_harness, csharp_harness_bench_command,  # noqa: E402
                                           csharp_harness_command)
from gcv.contract.models import BulletHellConfig  # noqa: E402
from gcv.sim.engine import Simulation  # noqa: E402
from gcv.sim.players import player_label  # noqa: E402
from gcv.sim.program import compile_program, program_hash  # noqa: E402

SKILLS = ("novice", "average", "expert")
BENCH_PREFIX = "GCV-BENCH "


def write_request(work: Path, name: str, program: dict[str, Any], seed: int, player: dict[str, Any]) -> Path:
    out = work / name
    out.mkdir(parents=True, exist_ok=True)
    request = {
        "run_request": "gcv.run_request/1", "run_id": name, "program": program,
        "program_hash": program_hash(program), "config_hash": program["config_hash"], "seed": seed,
        "player": player, "player_label": player_label(player), "capture_ticks": [], "output_dir": str(out),
    }
    path = out / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    return path


def bench_runs(exe: Path, request: Path, runs: int) -> tuple[list[float], int]:
    """(per-run ms of the in-process repeats, ticks) from one harness process."""
    proc = subprocess.run(csharp_harness_bench_command(exe, request, runs), capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"harness failed (exit {proc.returncode}): {proc.stderr}")
    lines = [json.loads(line[len(BENCH_PREFIX):]) for line in proc.stdout.splitlines()
             if line.startswith(BENCH_PREFIX)]
    per_run = [entry for entry in lines if "run" in entry]
    return [float(entry["ms"]) for entry in per_run], int(per_run[0]["ticks"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=25, help="in-process runs of the scripted baseline")
    parser.add_argument("--seeds", type=int, default=16, help="bot seeds per skill")
    parser.add_argument("--bench-runs", type=int, default=3, help="in-process runs per bot request")
    parser.add_argument("--launches", type=int, default=5, help="whole-process launches (end-to-end)")
    parser.add_argument("--out", type=Path, default=None, help="harness build dir (default harness/bin)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    exe = build_csharp_harness(args.out)
    config = BulletHellConfig.model_validate(
        json.loads((ROOT / "artifacts/baselines/shrine_trial.json").read_text()))
    program = compile_program(config)
    fight_ms = program["duration_ticks"] * 1000 / 60

    with tempfile.TemporaryDirectory(prefix="gcv-bench-cs-") as tmp:
        work = Path(tmp)
        scripted = write_request(work, "scripted", program, 1, {"kind": "scripted"})
        times, ticks = bench_runs(exe, scripted, args.repeat)
        scripted_ms = statistics.median(times)

        launches = []
        for _ in range(args.launches):
            t0 = time.perf_counter()
            proc = subprocess.run(csharp_harness_command(exe, scripted), capture_output=True, text=True)
            launches.append((time.perf_counter() - t0) * 1000)
            if proc.returncode != 0:
                raise SystemExit(f"harness failed (exit {proc.returncode}): {proc.stderr}")
        process_ms = statistics.median(launches)

        per_skill: dict[str, dict[str, float]] = {}
        total_ms = 0.0
        total_runs = 0
        batch_t0 = time.perf_counter()
        for skill in SKILLS:
            medians = []
            for seed in range(args.seeds):
                req = write_request(work, f"bot_{skill}_{seed}", program, seed, {"kind": "bot", "skill": skill})
                runs, _ = bench_runs(exe, req, args.bench_runs)
                medians.append(statistics.median(runs))
            per_skill[skill] = {"mean_ms_per_run": round(statistics.fmean(medians), 3),
                                "max_ms_per_run": round(max(medians), 3),
                                "ratio_to_real_time": round(fight_ms / statistics.fmean(medians), 1)}
            total_ms += sum(medians)
            total_runs += len(medians)
        batch_wall = time.perf_counter() - batch_t0

    sim = Simulation(program, {"kind": "scripted"})
    sim.run(seed=1)
    py_times = []
    for _ in range(7):
        t0 = time.perf_counter()
        sim.run(seed=1)
        py_times.append((time.perf_counter() - t0) * 1000)
    py_ms = statistics.median(py_times)

    figures = {
        "fight_ms": fight_ms,
        "scripted": {"ticks": ticks, "runs": len(times), "median_ms_per_run": round(scripted_ms, 3),
                     "min_ms_per_run": round(min(times), 3),
                     "ratio_to_real_time": round(fight_ms / scripted_ms, 1),
                     "ticks_per_second": round(ticks / scripted_ms * 1000)},
        "scripted_process": {"launches": len(launches), "median_ms": round(process_ms, 1),
                             "ratio_to_real_time": round(fight_ms / process_ms, 1)},
        "bot_batch": {"runs": total_runs, "seeds_per_skill": args.seeds, "in_process_ms_total": round(total_ms, 1),
                      "ratio_to_real_time": round(total_runs * fight_ms / total_ms, 1),
                      "wall_seconds_incl_process_start": round(batch_wall, 2), "per_skill": per_skill},
        "python_sim_scripted_median_ms": round(py_ms, 2),
        "csharp_speedup_vs_python_sim": round(py_ms / scripted_ms, 1),
    }
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    s, p, b = figures["scripted"], figures["scripted_process"], figures["bot_batch"]
    print(f"C# core (mono {exe.name}), baseline fight = {fight_ms:.0f} ms of game time")
    print(f"  scripted, in-process : median {s['median_ms_per_run']:.3f} ms/run (min {s['min_ms_per_run']:.3f}, "
          f"{s['runs']} runs, {s['ticks']} ticks) -> {s['ratio_to_real_time']:.0f}x real time, "
          f"{s['ticks_per_second']:,} ticks/s")
    print(f"  scripted, whole process (mono start-up + JIT + I/O): median {p['median_ms']:.1f} ms "
          f"-> {p['ratio_to_real_time']:.0f}x real time")
    print(f"  bot batch {b['runs']} runs ({b['seeds_per_skill']} seeds x 3 skills), in-process: "
          f"{b['in_process_ms_total']:.1f} ms total -> {b['ratio_to_real_time']:.0f}x real time "
          f"(wall incl. process start: {b['wall_seconds_incl_process_start']:.2f} s)")
    for skill, f in b["per_skill"].items():
        print(f"    bot:{skill:<8} mean {f['mean_ms_per_run']:.3f} ms/run (max {f['max_ms_per_run']:.3f}) "
              f"-> {f['ratio_to_real_time']:.0f}x real time")
    print(f"  python-sim scripted median {figures['python_sim_scripted_median_ms']:.2f} ms/run; "
          f"C# in-process is {figures['csharp_speedup_vs_python_sim']:.1f}x faster")


if __name__ == "__main__":
    main()
