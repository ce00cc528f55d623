"""Benchmark the C++ simulation core against the core before issue 17 and against Python.

Three implementations side by side, in one run, on the same requests:

* **now**: the UE5 plugin's GcvSimCore as it is in this tree (gcv-ue5-harness, g++ -O2);
* **before**: the same core at commit ``BEFORE`` (the tree issue 17 started from), exported
  with ``git archive`` into a temporary folder and built with its own build.sh;
* **python**: the reference simulator (gcv.sim.engine), in this process.

Workloads: the committed baseline (scripted, and one seed of each bot skill), a dense config
(every phase a 64-bullet, 2-layer, bidirectional pattern every 200 ms), and a load sweep up to
the most the config contract allows (64 bullets x 4 layers x 2 directions = 512 a wave every
100 ms, 12 s lifetimes, slow bullets: 61,440 alive at once), where "far" bullets pile up.

Figures per workload: CPU time per run (the harness process's user+system time over the
protocol run and ``n`` in-process runs, from getrusage, so process start-up is amortised;
Python's ``time.process_time``), the ratios now/before and python/now, and whether the three
end in the same state hash (they must). Not a timed test: it prints.

    .venv/bin/python benchmarks/bench_cpp_core.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
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
from gcv.sim.engine import Simulation  # noqa: E402
from gcv.sim.players import player_label  # noqa: E402
from gcv.sim.program import compile_program, program_hash  # noqa: E402

BEFORE = "41ea4e50a52f4d3d23936a72a549cb15b068e1a9"  # main when issue 17 was taken up
BASELINE = REPO / "artifacts" / "baselines" / "shrine_trial.json"
TARGET_CPU_MS = 600  # per harness measurement: enough in-process runs to amortise start-up


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
        sha_ni = " sha_ni" in flags
    except (OSError, StopIteration):
        sha_ni = False
    gxx = subprocess.run([os.environ.get("CXX", "g++"), "--version"], capture_output=True, text=True).stdout
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(mem, 1), "sha_ni": sha_ni,
            "compiler": gxx.splitlines()[0] if gxx else "?", "python": platform.python_version(),
            "load_average_1m": round(os.getloadavg()[0], 2)}


def config_program(change: Any = None) -> dict[str, Any]:
    data = json.loads(BASELINE.read_text(encoding="utf-8"))
    if change is not None:
        change(data)
    return compile_program(BulletHellConfig.model_validate(data))


def patterns(**fields: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        for phase in data["phases"]:
            phase["pattern"].update(fields)
    return change


def workloads(quick: bool) -> list[tuple[str, dict[str, Any], dict[str, Any], int]]:
    base = config_program()
    dense = config_program(patterns(type="spiral", bullets_per_wave=64, layer_count=2, bidirectional=True,
                                    wave_interval_ms=200))
    out = [("baseline scripted", base, {"kind": "scripted"}, 1)]
    out += [(f"baseline bot:{s}", base, {"kind": "bot", "skill": s}, seed)
            for s, seed in (("novice", 7), ("average", 11), ("expert", 13))]
    out += [("dense scripted", dense, {"kind": "scripted"}, 1),
            ("dense bot:expert", dense, {"kind": "bot", "skill": "expert"}, 3)]
    sweep = [(8, 1, False), (16, 2, False), (32, 2, True), (64, 4, True)]
    if quick:
        sweep = [sweep[0], sweep[-1]]
    for n, layers, both in sweep:
        for speed in (0.5, 12):
            program = config_program(patterns(type="spiral", bullets_per_wave=n, layer_count=layers,
                                              bidirectional=both, wave_interval_ms=100, bullet_speed=speed,
                                              bullet_lifetime_seconds=12))
            per_wave = n * layers * (2 if both else 1)
            for player in ({"kind": "scripted"}, {"kind": "bot", "skill": "average"}):
                if quick and player["kind"] == "bot" and per_wave < 512:
                    continue
                out.append((f"sweep {per_wave:>3}/wave v={speed:<4} {player_label(player)}", program, player, 5))
    return out


def request(program: dict[str, Any], player: dict[str, Any], seed: int, out: Path) -> dict[str, Any]:
    return {"run_request": "gcv.run_request/1", "run_id": "bench", "program": program,
            "program_hash": program_hash(program), "config_hash": program["config_hash"], "seed": seed,
            "player": player, "player_label": player_label(player), "capture_ticks": [], "output_dir": str(out)}


def harness_cpu(exe: Path, req: dict[str, Any], work: Path, runs: int) -> dict[str, Any]:
    """CPU ms per run of ``runs`` in-process runs (+1 protocol run), and the end state hash."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / "request.json"
    path.write_text(json.dumps(dict(req, output_dir=str(work))), encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cpp_harness_command(exe, path) + [f"-GcvBench={runs}"], capture_output=True, text=True,
                          timeout=1800, stdin=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{exe} failed (exit {proc.returncode}): {proc.stderr.strip()}")
    summary = [json.loads(line[len("GCV-BENCH "):]) for line in proc.stdout.splitlines()
               if line.startswith("GCV-BENCH ") and "median_ms" in line][0]
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return {"cpu_ms": cpu / (runs + 1), "median_wall_ms": summary["median_ms"], "runs": runs,
            "state_hash": summary["state_hash"]}


def measure_harness(exe: Path, req: dict[str, Any], work: Path) -> dict[str, Any]:
    probe = harness_cpu(exe, req, work, 2)
    runs = max(3, min(400, int(TARGET_CPU_MS / max(probe["cpu_ms"], 0.05))))
    return harness_cpu(exe, req, work, runs)


def measure_python(program: dict[str, Any], player: dict[str, Any], seed: int, runs: int) -> dict[str, Any]:
    times, telemetry = [], None
    for _ in range(runs):
        t0 = time.process_time()
        telemetry = Simulation(program, player).run(seed=seed).telemetry
        times.append((time.process_time() - t0) * 1000)
    assert telemetry is not None
    return {"cpu_ms": statistics.median(times), "runs": runs, "state_hash": telemetry["state_hash"],
            "peak_alive": telemetry["peak_alive_bullets"], "ticks": telemetry["ticks"]}


def build_before(tmp: Path) -> Path | None:
    """Today's core, as of BEFORE, built into tmp; None (and why) if git or the commit is missing."""
    src = tmp / "before"
    src.mkdir()
    try:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", BEFORE, "ue5_plugin"], capture_output=True,
                                 check=True, timeout=120).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True, timeout=120)
        subprocess.run(["bash", str(src / "ue5_plugin" / "harness" / "build.sh"), str(tmp / "before-bin"), "-O2"],
                       capture_output=True, check=True, timeout=600)
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        print(f"(no 'before' core: cannot build commit {BEFORE[:12]}: {exc})")
        return None
    return tmp / "before-bin" / "gcv-ue5-harness"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sweep points")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    args = parser.parse_args(argv)
    info = machine()
    print(f"machine: {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB, SHA-NI "
          f"{'yes' if info['sha_ni'] else 'no'}; {info['compiler']}; Python {info['python']}; "
          f"load average {info['load_average_1m']}")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gcv-bench-cpp-") as tmp_name:
        tmp = Path(tmp_name)
        now = build_cpp_harness(REPO / "ue5_plugin" / "harness" / "bin" / "bench-O2", "-O2")
        before = build_before(tmp)
        print(f"{'workload':<38} {'peak':>6} {'python':>9} {'before':>9} {'now':>9} {'now/before':>10} "
              f"{'python/now':>10}  same state")
        for i, (name, program, player, seed) in enumerate(workloads(args.quick)):
            req = request(program, player, seed, tmp / f"w{i}")
            heavy = len(program["phases"][0]["slots"]) >= 128
            py = measure_python(program, player, seed, 3 if heavy else 5)
            cur = measure_harness(now, req, tmp / f"w{i}" / "now")
            old = measure_harness(before, req, tmp / f"w{i}" / "before") if before else None
            same = cur["state_hash"] == py["state_hash"] and (old is None or old["state_hash"] == py["state_hash"])
            row = {"workload": name, "peak_alive": py["peak_alive"], "ticks": py["ticks"], "python_cpu_ms": py["cpu_ms"],
                   "now_cpu_ms": cur["cpu_ms"], "now_median_wall_ms": cur["median_wall_ms"],
                   "before_cpu_ms": old["cpu_ms"] if old else None, "same_state_hash": same,
                   "now_vs_before": old["cpu_ms"] / cur["cpu_ms"] if old else None,
                   "python_vs_now": py["cpu_ms"] / cur["cpu_ms"],
                   "python_vs_before": py["cpu_ms"] / old["cpu_ms"] if old else None}
            rows.append(row)
            before_text = f"{old['cpu_ms']:8.2f}" if old else "       -"
            ratio = f"{row['now_vs_before']:9.1f}x" if old else "         -"
            print(f"{name:<38} {py['peak_alive']:>6} {py['cpu_ms']:8.2f} {before_text} {cur['cpu_ms']:8.2f} {ratio} "
                  f"{row['python_vs_now']:9.1f}x  {'yes' if same else 'NO'}", flush=True)
    print("CPU ms per run; 'before' is the core at", BEFORE[:12], "built the same way (g++ -O2)")
    slowest = min(rows, key=lambda r: r["python_vs_now"])
    print(f"now vs python, worst workload: {slowest['python_vs_now']:.1f}x faster ({slowest['workload']})")
    if all(r["before_cpu_ms"] for r in rows):
        worst = min(rows, key=lambda r: r["now_vs_before"])
        print(f"now vs before, worst workload: {worst['now_vs_before']:.1f}x faster ({worst['workload']}); "
              f"before was slower than python on {sum(r['python_vs_before'] < 1 for r in rows)} workload(s)")
    if args.json:
        print(json.dumps({"machine": info, "before_commit": BEFORE, "rows": rows}, sort_keys=True))
    return 0 if all(r["same_state_hash"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
