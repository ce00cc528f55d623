"""Benchmark: what hostile inputs cost to refuse (prints figures; not a test).

Each case runs the real command line (``python -m gcv.cli.app ... --json``) in a fresh
interpreter and reports the wall time, the exit code and the child's peak resident set
(getrusage ru_maxrss of the children):

* ``validate`` on a 12 MB config with 40,000 phases (the contract allows 6);
* ``validate`` on a config with 200,000 unknown fields;
* ``validate`` on a 1 GiB file (sparse: costs no disk);
* an engine's 1 GiB ``telemetry.json`` checked by ``engine_runners.base.check_telemetry``;
* ``gcv --help`` as the floor (interpreter and CLI start-up).

Usage: python benchmarks/bench_hostile.py [--json]
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
BASELINE = ROOT / "artifacts" / "baselines" / "shrine_trial.json"

TELEMETRY_CHECK = """
import sys
from pathlib import Path
from engine_runners.base import check_telemetry
_, kind, message = check_telemetry(None, Path(sys.argv[1]))
print(kind, message)
"""


def _measure(argv: list[str], home: Path) -> dict[str, object]:
    env = dict(os.environ, GCV_HOME=str(home), PYTHONPATH=str(ROOT))
    script = ("import resource, subprocess, sys, time\n"
              "t = time.perf_counter()\n"
              "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
              "s = time.perf_counter() - t\n"
              "r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
              "print(s, p.returncode, r)\n")
    out = subprocess.run([sys.executable, "-c", script, *argv], env=env, capture_output=True, text=True,
                         timeout=600, check=True)
    seconds, code, rss_kib = out.stdout.split()
    return {"seconds": round(float(seconds), 2), "exit_code": int(code), "peak_rss_mib": round(int(rss_kib) / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    gcv = [sys.executable, "-m", "gcv.cli.app"]
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base = json.loads(BASELINE.read_text(encoding="utf-8"))
        phases = dict(base, phases=[dict(base["phases"][0], phase_id=f"p{i}") for i in range(40_000)])
        (work / "phases.json").write_text(json.dumps(phases))
        keys = dict(base, **{f"x{i}": i for i in range(200_000)})
        (work / "keys.json").write_text(json.dumps(keys))
        for name in ("huge.json", "telemetry.json"):
            with open(work / name, "wb") as fh:
                fh.truncate(1 << 30)
        cases = {
            "gcv --help (start-up floor)": gcv + ["--help"],
            f"validate: 40,000 phases ({(work / 'phases.json').stat().st_size / 1e6:.0f} MB)":
                gcv + ["validate", str(work / "phases.json"), "--json"],
            f"validate: 200,000 unknown fields ({(work / 'keys.json').stat().st_size / 1e6:.1f} MB)":
                gcv + ["validate", str(work / "keys.json"), "--json"],
            "validate: a 1 GiB file": gcv + ["validate", str(work / "huge.json"), "--json"],
            "engine telemetry.json of 1 GiB": [sys.executable, "-c", TELEMETRY_CHECK, str(work / "telemetry.json")],
        }
        for label, argv in cases.items():
            started = time.perf_counter()
            results[label] = _measure(argv, work / "home")
            results[label].setdefault("seconds", round(time.perf_counter() - started, 2))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    width = max(len(label) for label in results)
    print(f"{'case':<{width}}  {'seconds':>7}  {'exit':>4}  {'peak RSS MiB':>12}")
    for label, r in results.items():
        print(f"{label:<{width}}  {r['seconds']:>7}  {r['exit_code']:>4}  {r['peak_rss_mib']:>12}")


if __name__ == "__main__":
    main()
