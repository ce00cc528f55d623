"""Benchmark the C++ simulation core (the UE5 plugin's GcvSimCore, built as gcv-ue5-harness).

Two figures, both timed inside the harness process with ``-GcvBench=<n>`` (the harness runs
the request once through the protocol, then ``n`` more times in-process and prints one
``GCV-BENCH {"ms": ..}`` line per run), so process start-up and file I/O are excluded:

* scripted baseline: the committed baseline fight (36 s = 2160 ticks at 60 Hz) with the
  scripted player, median of ``--runs`` in-process runs;
* bot batch: ``--seeds`` seeds x the three bot skills on the baseline, one in-process
  timed run each (plus the process wall time, start-up included, for reference).

Each figure is printed as ms per run and as the ratio to real time (the fight's duration,
36000 ms for the baseline, divided by the time to simulate it). ``--python`` also times the
Python reference on the scripted baseline for comparison. Not a timed test: it prints.

    .venv/bin/python benchmarks/bench_cpp_core.py [--runs 15] [--seeds 16] [--opt -O2] [--python]
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine_runners.harness_cpp import build_cpp_harness, cpp_harness_command  # noqa: E402
from gcv.contract.models import BulletHellConfig  # noqa: E402
from gcv.sim.players import player_label  # noqa: E402
from gcv.sim.program import compile_program, program_hash  # noqa: E402

BASELINE = REPO / "artifacts" / "baselines" / "shrine_trial.json"
SKILLS = ("novice", "average", "expert")


def make_request(program: dict[str, Any], seed: int, player: dict[str, Any], out_dir: Path, run_id: str) -> dict[str, Any]:
    return {"run_request": "gcv.run_request/1", "run_id": run_id, "program": program,
            "program_hash": program_hash(program), "config_hash": program["config_hash"], "seed": seed,
            "player": player, "player_label": player_label(player), "capture_ticks": [],
            "output_dir": str(out_dir)}


def bench(exe: Path, request: dict[str, Any], runs: int, work: Path) -> tuple[list[dict[str, Any]], dict[str, Any], float]:
    """(per-run GCV-BENCH records, summary record, process wall ms) for one request."""
    work.mkdir(parents=True, exist_ok=True)
    req_path = work / "request.json"
    req_path.write_text(json.dumps(dict(request, output_dir=str(work))), encoding="utf-8")
    started = time.perf_counter()
    proc = subprocess.run(cpp_harness_command(exe, req_path) + [f"-GcvBench={runs}"], capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)
    wall = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"harness failed (exit {proc.returncode}): {proc.stderr.strip()}")
    records = [json.loads(line[len("GCV-BENCH "):]) for line in proc.stdout.splitlines()
               if line.startswith("GCV-BENCH ")]
    return [r for r in records if "run" in r], next(r for r in records if "runs" in r), wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="in-process runs of the scripted baseline")
    parser.add_argument("--seeds", type=int, default=16, help="seeds per bot skill")
    parser.add_argument("--opt", default="-O2", choices=["-O0", "-O1", "-O2", "-O3"])
    parser.add_argument("--python", action="store_true", help="also time the Python reference (scripted)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    args = parser.parse_args(argv)

    out_dir = REPO / "ue5_plugin" / "harness" / "bin" / f"bench{args.opt}"
    exe = build_cpp_harness(out_dir, args.opt)
    program = compile_program(BulletHellConfig.model_validate(json.loads(BASELINE.read_text(encoding="utf-8"))))
    real_ms = program["duration_ticks"] * 1000 / program["tick_hz"]
    figures: dict[str, Any] = {"harness": str(exe), "opt": args.opt, "fight_real_time_ms": real_ms}
    print(f"C++ core ({exe.name}, g++ {args.opt}); baseline fight = {program['duration_ticks']} ticks = "
          f"{real_ms:.0f} ms of real time")

    with tempfile.TemporaryDirectory(prefix="gcv-bench-cpp-") as tmp:
        work = Path(tmp)
        # Scripted baseline: median of N in-process runs.
        scripted = make_request(program, 1, {"kind": "scripted"}, work / "scripted", "bench-scripted")
        runs, summary, wall = bench(exe, scripted, args.runs, work / "scripted")
        ms = [r["ms"] for r in runs]
        median = statistics.median(ms)
        print(f"scripted baseline: median {median:.3f} ms/run over {len(ms)} runs "
              f"(min {min(ms):.3f}, max {max(ms):.3f}; {summary['ticks']} ticks simulated) = "
              f"{real_ms / median:,.0f}x real time; process wall {wall:.1f} ms for {len(ms) + 1} runs")
        figures["scripted"] = {"runs": len(ms), "median_ms": median, "min_ms": min(ms), "max_ms": max(ms),
                               "ticks": summary["ticks"], "x_real_time": real_ms / median}

        if args.python:
            from gcv.sim.engine import Simulation

            py_ms = []
            for _ in range(3):
                t0 = time.perf_counter()
                Simulation(program, {"kind": "scripted"}).run(seed=1)
                py_ms.append((time.perf_counter() - t0) * 1000)
            py_median = statistics.median(py_ms)
            print(f"python reference (scripted): median {py_median:.1f} ms/run over 3 runs = "
                  f"{real_ms / py_median:,.0f}x real time; C++ is {py_median / median:.1f}x faster")
            figures["python_scripted_median_ms"] = py_median

        # Bot batch: seeds x skills, one timed in-process run each.
        batch: dict[str, Any] = {}
        all_ms: list[float] = []
        all_wall: list[float] = []
        for skill in SKILLS:
            skill_ms, skill_wall, ticks = [], [], []
            for seed in range(1, args.seeds + 1):
                req = make_request(program, seed, {"kind": "bot", "skill": skill}, work / f"{skill}-{seed}",
                                   f"bench-{skill}-{seed}")
                runs, summary, wall = bench(exe, req, 1, work / f"{skill}-{seed}")
                skill_ms.append(runs[0]["ms"])
                skill_wall.append(wall)
                ticks.append(summary["ticks"])
            med = statistics.median(skill_ms)
            print(f"bot:{skill:<7} {len(skill_ms)} seeds: median {med:.3f} ms/run, mean "
                  f"{statistics.mean(skill_ms):.3f}, max {max(skill_ms):.3f} = {real_ms / med:,.0f}x real time; "
                  f"median process wall {statistics.median(skill_wall):.1f} ms (start-up + 2 runs); "
                  f"ticks {min(ticks)}..{max(ticks)}")
            batch[skill] = {"seeds": len(skill_ms), "median_ms": med, "mean_ms": statistics.mean(skill_ms),
                            "max_ms": max(skill_ms), "x_real_time": real_ms / med}
            all_ms += skill_ms
            all_wall += skill_wall
        total = sum(all_ms)
        print(f"bot batch: {len(all_ms)} runs ({args.seeds} seeds x {len(SKILLS)} skills) in {total:.1f} ms "
              f"in-process ({total / len(all_ms):.3f} ms/run, {real_ms * len(all_ms) / total:,.0f}x real time); "
              f"{sum(all_wall) / 1000:.2f} s with one process per run")
        batch["runs"] = len(all_ms)
        batch["total_ms"] = total
        batch["process_wall_s"] = sum(all_wall) / 1000
        figures["bot_batch"] = batch
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
