"""Benchmark python-sim's native path (engine_runners/native.py) against the Python simulator.

A bot population of 1,026 fights (342 seeds x the three skills, the nearest to 1,024 that
covers every skill evenly) on the committed baseline, in this process (one worker), twice:

* through the batch API (``engine_runners.native.run_batch`` vs ``gcv.simio.pool.run_batch``):
  CPU time, and whether every telemetry is identical, as dicts and as the bytes python-sim's
  writer produces;
* through ``gcv.batch.population.run_population`` (what the workflow and ``gcv batch`` run:
  executors, schema checks, statistics) with ``GCV_NATIVE=auto`` and ``GCV_NATIVE=off``: CPU
  time, and whether the population summaries are identical.

CPU time is this process's ``time.process_time``. The library is built (or found in the
cache) before timing; its build time is printed apart. Not a timed test: it prints.

    .venv/bin/python benchmarks/bench_native.py [--seeds 342] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_cpp_core import machine  # noqa: E402
from engine_runners import native  # noqa: E402
from gcv.batch.population import run_population  # noqa: E402
from gcv.contract.models import BulletHellConfig  # noqa: E402
from gcv.simio.pool import run_batch as python_run_batch  # noqa: E402
from gcv.sim.program import compile_program  # noqa: E402

BASELINE = REPO / "artifacts" / "baselines" / "shrine_trial.json"
SKILLS = ("novice", "average", "expert")


def writer_bytes(telemetry: dict) -> bytes:
    return (json.dumps(telemetry, indent=1, sort_keys=True) + "\n").encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=342, help="seeds per skill")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    info = machine()
    print(f"machine: {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB, SHA-NI "
          f"{'yes' if info['sha_ni'] else 'no'}; {info['compiler']}; Python {info['python']}; "
          f"load average {info['load_average_1m']}")
    os.environ.pop(native.MODE_ENV, None)
    t0 = time.perf_counter()
    status = native.status(build=True)
    build_s = time.perf_counter() - t0
    if status.path != "native":
        raise SystemExit(f"the native path is not available here: {status.reason}")
    print(f"native core: {status.reason} (ready in {build_s:.1f} s, a first build included if there was one)")
    config = BulletHellConfig.model_validate(json.loads(BASELINE.read_text(encoding="utf-8")))
    program = compile_program(config)
    runs = [(seed, {"kind": "bot", "skill": skill}) for skill in SKILLS for seed in range(args.seeds)]
    fights = len(runs)
    figures: dict = {"machine": info, "fights": fights}

    t0 = time.process_time()
    fast, path = native.run_batch(program, runs)
    native_cpu = time.process_time() - t0
    assert path == "native"
    t0 = time.process_time()
    slow = python_run_batch(program, runs)
    python_cpu = time.process_time() - t0
    same_dicts = fast == slow
    same_bytes = all(writer_bytes(a) == writer_bytes(b) for a, b in zip(fast, slow))
    figures["batch_api"] = {"native_cpu_s": native_cpu, "python_cpu_s": python_cpu,
                            "ratio": python_cpu / native_cpu, "identical_dicts": same_dicts,
                            "identical_bytes": same_bytes}
    print(f"batch API, {fights} fights: python {python_cpu:.2f} s CPU, native {native_cpu:.3f} s CPU = "
          f"{python_cpu / native_cpu:.1f}x less; telemetry identical: dicts {same_dicts}, bytes {same_bytes}")

    t0 = time.process_time()
    fast_pop = run_population(config, skills=("novice", "average", "expert"), seeds=args.seeds)
    native_pop = time.process_time() - t0
    os.environ[native.MODE_ENV] = "off"
    t0 = time.process_time()
    slow_pop = run_population(config, skills=("novice", "average", "expert"), seeds=args.seeds)
    python_pop = time.process_time() - t0
    os.environ.pop(native.MODE_ENV)
    same_summary = fast_pop == slow_pop
    figures["population"] = {"native_cpu_s": native_pop, "python_cpu_s": python_pop,
                             "ratio": python_pop / native_pop, "identical_summaries": same_summary}
    print(f"run_population, {fights} fights (1 worker): python {python_pop:.2f} s CPU, native {native_pop:.3f} s "
          f"CPU = {python_pop / native_pop:.1f}x less; summaries identical: {same_summary}")
    print(f"per fight: python {python_pop / fights * 1000:.1f} ms, native {native_pop / fights * 1000:.2f} ms "
          f"(the native figure includes the schema check of every telemetry and the statistics)")
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0 if same_dicts and same_bytes and same_summary else 1


if __name__ == "__main__":
    sys.exit(main())
