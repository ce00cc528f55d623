"""Population measurement: is bot skill monotone (expert no worse than average, average no
worse than novice)? Prints figures; changes nothing (issue 29, item 6: report only).

Runs each bot skill over seeds 1..N on the committed baseline, its densest candidate
(``bench_fair.densest_candidate``), the medium, dense and aimed configs of ``bench_fair_set``
(the same generated set) and 8 hard ones (fast bullets at short intervals, grown to the
rules' limits), and reports the mean hits per
skill per config and the configs where a higher skill takes more hits on average.
Usage: nice python benchmarks/bench_fair_bots.py [--seeds 10] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import random  # noqa: E402

from bench_fair import densest_candidate  # noqa: E402
from bench_fair_set import KINDS, _fight, _grow, _pattern, generate  # noqa: E402
from gcv.contract.models import BulletHellConfig  # noqa: E402
from gcv.sim.engine import Simulation  # noqa: E402
from gcv.sim.program import compile_program  # noqa: E402

SKILLS = ("novice", "average", "expert")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    base = json.loads((ROOT / "artifacts/baselines/shrine_trial.json").read_text(encoding="utf-8"))
    configs = [("baseline", base), ("densest cand.", densest_candidate(base))]
    configs += [(e["config"]["name"], e["config"]) for e in generate() if e["group"] in ("medium", "dense", "aimed")]
    rng = random.Random(6)
    for k in range(8):  # hard: fast bullets at short intervals, grown to the rules' limits
        pats = [_pattern(rng, rng.choice(KINDS), 1, rng.choice([150, 200, 250]), rng.choice([5.0, 6.5, 8.0]), 4.0)
                for _ in range(rng.randint(2, 3))]
        configs.append((f"Hard {k + 1}", _grow(_fight(rng, f"Hard {k + 1}", 30, pats))))
    rows = []
    for name, cfg in configs:
        program = compile_program(BulletHellConfig.model_validate(cfg))
        hits = {s: [Simulation(program, {"kind": "bot", "skill": s}).run(seed=k).telemetry["player_hits"]
                    for k in range(1, args.seeds + 1)] for s in SKILLS}
        means = {s: statistics.mean(v) for s, v in hits.items()}
        rows.append({"config": name, "hits": hits, "mean": means})
        flag = " EXPERT WORSE" if means["expert"] > means["average"] else ""
        print(f"{name:<14} " + "  ".join(f"{s} {means[s]:5.2f}" for s in SKILLS) + flag, flush=True)
    worse = [r["config"] for r in rows if r["mean"]["expert"] > r["mean"]["average"]]
    worse_nov = [r["config"] for r in rows if r["mean"]["average"] > r["mean"]["novice"]]
    print(f"{len(rows)} configs x {args.seeds} seeds: expert worse than average on {len(worse)} ({', '.join(worse)}); "
          f"average worse than novice on {len(worse_nov)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
