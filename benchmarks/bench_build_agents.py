"""Benchmark of engine runs on build agents (prints figures; not a test).

Starts a real ``dask scheduler`` and one ``dask worker --resources "ue5=1"`` on loopback whose
environment runs the C++ harness as UE5, then runs the same kind of request (the committed
baseline, scripted player, the workflow's three capture ticks, a new seed each time) RUNS times
locally (``UE5Runner`` with ``GCV_UE_HARNESS`` set here) and RUNS times through
``AgentRunner`` (the request out content-addressed, the parcel back, every hash checked, the
files written). Prints the median and the spread of each and the median overhead of the
dispatch, and checks that each agent run's telemetry equals its local twin but ``wall_time_ms``.

Usage: python benchmarks/bench_build_agents.py [--runs 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine_runners.build_agents import AgentRunner, BuildAgentsConfig  # noqa: E402
from engine_runners.harness_cpp import build_cpp_harness  # noqa: E402
from engine_runners.requests import build_request  # noqa: E402
from engine_runners.ue5 import UE5Runner  # noqa: E402
from gcv.contract.loading import load_config  # noqa: E402
from gcv.workflow.state import CAPTURE_TICKS  # noqa: E402
from tests.support.dask_agents import Cluster  # noqa: E402

WALL = re.compile(rb'"wall_time_ms": ?[0-9]+')


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    harness = build_cpp_harness()
    config = load_config(ROOT / "artifacts" / "baselines" / "shrine_trial.json")
    with tempfile.TemporaryDirectory(prefix="gcv-bench-agents-") as tmp:
        folder = Path(tmp)
        cluster = Cluster(folder / "cluster")
        try:
            t0 = time.perf_counter()
            cluster.start_scheduler()
            cluster.start_worker("agent-ue5", "ue5=1", {"GCV_UE_HARNESS": str(harness)})
            startup = time.perf_counter() - t0
            agents = AgentRunner("ue5", BuildAgentsConfig(scheduler=cluster.address, engines=("ue5",)))
            os.environ["GCV_UE_HARNESS"] = str(harness)
            local_runner = UE5Runner()
            local, remote, equal = [], [], 0
            for i in range(args.runs):
                def request(where: str):
                    return build_request(config, seed=100 + i, player={"kind": "scripted"},
                                         output_dir=folder / where / str(i), run_id=f"bench-{i}",
                                         capture_ticks=list(CAPTURE_TICKS))
                t = time.perf_counter()
                a = local_runner.run(request("local"))
                local.append(time.perf_counter() - t)
                t = time.perf_counter()
                b = agents.run(request("agent"))
                remote.append(time.perf_counter() - t)
                if not (a.ok and b.ok):
                    raise SystemExit(f"run {i} failed: local {a.error}, agent {b.error}")
                same = (WALL.sub(b"", (folder / "local" / str(i) / "telemetry.json").read_bytes())
                        == WALL.sub(b"", (folder / "agent" / str(i) / "telemetry.json").read_bytes()))
                equal += same
        finally:
            cluster.close()
    figures = {
        "runs": args.runs, "cluster_start_s": round(startup, 2),
        "local_median_ms": round(statistics.median(local) * 1000, 1),
        "local_p90_ms": round(sorted(local)[int(0.9 * (len(local) - 1))] * 1000, 1),
        "agent_median_ms": round(statistics.median(remote) * 1000, 1),
        "agent_p90_ms": round(sorted(remote)[int(0.9 * (len(remote) - 1))] * 1000, 1),
        "dispatch_overhead_median_ms": round((statistics.median(remote) - statistics.median(local)) * 1000, 1),
        "telemetry_equal_but_wall_time": f"{equal}/{args.runs}",
    }
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        for key, value in figures.items():
            print(f"{key:32} {value}")
    return 0 if equal == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
