"""Benchmark of the fair-fight analysis (prints figures; not a test).

Measures the whole analysis (``gcv.analysis.analyze``: the reachable-set bound, the witness
search, the witness's replay, the safe-area curve) on one core:

- the committed baseline (a 36 s fight), median of ``--repeat`` runs;
- the densest candidate of the baseline: its scenario, player and boss (a candidate may only
  change patterns), every phase's ``bullets_per_wave`` raised as far as the validation rules
  allow (the alive bound against ``limits.max_alive_bullets``, the spawn rate);
- the densest valid config the contract allows: the longest fight (600 s), six phases (the
  most), every phase a non-aimed pattern (the expensive path: the whole bound runs) at short
  wave intervals with ``bullets_per_wave`` raised round-robin until no phase can grow without
  breaking a validation rule, so the alive bound sits at the limit, 350 bullets. Arena and
  player are the baseline's: a smaller arena is denser per area but such fights end early.

Every constructed config passes all four validation layers (checked here).
Usage: python benchmarks/bench_fair.py [--repeat 5] [--skip-densest] [--json]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as the figures claim
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gcv.analysis import analyze  # noqa: E402
from gcv.contract.models import BulletHellConfig  # noqa: E402
from gcv.sim.program import compile_program  # noqa: E402
from gcv.sim.schedule import emission_schedule  # noqa: E402
from gcv.validation.validate import validate  # noqa: E402

# (type, wave_interval_ms, bullet_speed, lifetime_s, rotation_deg, layers, bidirectional)
DENSE_PATTERNS = [
    ("ring", 400, 3.0, 5.0, 0, 1, False),
    ("spiral", 200, 3.6, 5.0, 13, 1, True),
    ("petal", 300, 4.0, 5.0, 11, 2, True),
    ("spiral", 150, 4.5, 4.0, -17, 2, False),
    ("ring", 250, 5.0, 4.0, 0, 3, False),
    ("petal", 350, 3.2, 6.0, 7, 3, False),
]


def _grow(cfg: dict[str, Any], baseline: dict[str, Any] | None = None) -> dict[str, Any]:
    """Raise bullets_per_wave round-robin while every validation layer still passes."""
    base = baseline if baseline is not None else cfg
    grown = True
    while grown:
        grown = False
        for ph in cfg["phases"]:
            pat = ph["pattern"]
            if pat["bullets_per_wave"] >= 64:
                continue
            pat["bullets_per_wave"] += 1
            if validate(base, cfg).ok:
                grown = True
            else:
                pat["bullets_per_wave"] -= 1
    return cfg


def densest_candidate(baseline: dict[str, Any]) -> dict[str, Any]:
    """The baseline's patterns at the shortest wave interval the dense set uses, grown."""
    cfg = copy.deepcopy(baseline)  # the name too: the safety layer keeps everything but patterns
    for k, ph in enumerate(cfg["phases"]):
        ph["pattern"].update(bullets_per_wave=1, wave_interval_ms=DENSE_PATTERNS[k][1])
    return _grow(cfg, baseline)


def densest_valid(baseline: dict[str, Any]) -> dict[str, Any]:
    cfg = copy.deepcopy(baseline)
    seconds, phases = 600, 6
    cfg["name"] = "Densest valid config"
    cfg["scenario"].update(scenario_id="densest_valid", duration_seconds=seconds)
    shots = seconds * 10  # the baseline's auto-fire: 10 damage every 0.1 s
    cfg["boss"]["max_health"] = 10 * shots * 2  # the boss outlives the fight (half its health left)
    cfg["targets"]["min_survival_seconds"] = seconds
    # six equal phases over the fight: phase k starts when k/12 of the health is gone
    triggers = [1.0] + [round(1 - k / 12, 6) for k in range(1, phases)]
    cfg["phases"] = [{
        "phase_id": f"phase_{k + 1}", "title": f"Dense {kind} {k + 1}", "trigger_boss_hp_below": triggers[k],
        "pattern": {"type": kind, "bullets_per_wave": 1, "wave_interval_ms": ms, "bullet_speed": speed,
                    "bullet_lifetime_seconds": life, "rotation_per_wave_deg": rot, "spread_angle_deg": 360,
                    "layer_count": layers, "bidirectional": bidi},
    } for k, (kind, ms, speed, life, rot, layers, bidi) in enumerate(DENSE_PATTERNS[:phases])]
    return _grow(cfg)


def _describe(cfg: dict[str, Any]) -> dict[str, Any]:
    program = compile_program(BulletHellConfig.model_validate(cfg))
    schedule = emission_schedule(program)
    return {"name": cfg["name"], "duration_s": cfg["scenario"]["duration_seconds"],
            "fight_ticks": schedule.end_tick, "phases": len(cfg["phases"]),
            "bullets_per_wave": [p["pattern"]["bullets_per_wave"] for p in cfg["phases"]],
            "alive_upper_bound": schedule.alive_upper_bound, "bullets_fired": schedule.total_bullets,
            "valid": validate(cfg, cfg).ok}


def _measure(cfg: dict[str, Any], repeat: int, budget: float) -> dict[str, Any]:
    walls, cpus, reports = [], [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        report = analyze(cfg, seed=1, budget_seconds=budget)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
        reports.append(report)
    r = reports[len(reports) // 2]
    return {"verdict": r.verdict, "wall_s_median": round(statistics.median(walls), 3),
            "wall_s_min": round(min(walls), 3), "cpu_s_median": round(statistics.median(cpus), 3),
            "cpu_s_min": round(min(cpus), 3), "runs": repeat,
            "stages_s": {"bound": r.effort.reach_seconds, "search": r.effort.search_seconds,
                         "replay": r.effort.replay_seconds},
            "search": {"restarts": r.effort.search.restarts, "widths": r.effort.search.widths,
                       "calm_ticks": r.effort.search.calm_ticks, "nodes": r.effort.search.nodes_expanded},
            "grid": f"{r.safe_area.grid.columns}x{r.safe_area.grid.rows}",
            "tightest_safe_pct": None if r.safe_area.tightest_milli is None else r.safe_area.tightest_milli / 10}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-densest", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    baseline = json.loads((ROOT / "artifacts/baselines/shrine_trial.json").read_text())
    out: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}}
    analyze(baseline, seed=1, budget_seconds=60)  # warm-up (imports, tables)
    out["baseline"] = {**_describe(baseline), **_measure(baseline, args.repeat, 60)}
    if not args.skip_densest:
        cand = densest_candidate(baseline)
        out["densest_candidate"] = {**_describe(cand), **_measure(cand, max(1, args.repeat // 2), 120)}
        dense = densest_valid(baseline)
        out["densest_valid"] = {**_describe(dense), **_measure(dense, 1, 600)}
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key in ("baseline", "densest_candidate", "densest_valid"):
        if key not in out:
            continue
        d = out[key]
        print(f"{key} ({d['name']}): {d['duration_s']} s fight ({d['fight_ticks']} ticks), {d['phases']} phases, "
              f"bullets/wave {d['bullets_per_wave']}, alive bound {d['alive_upper_bound']}, "
              f"{d['bullets_fired']} bullets fired, valid={d['valid']}")
        print(f"  verdict {d['verdict']}; wall median {d['wall_s_median']} s (min {d['wall_s_min']}), "
              f"CPU median {d['cpu_s_median']} s (min {d['cpu_s_min']}) over {d['runs']} run(s)")
        print(f"  stages {d['stages_s']}; search {d['search']}; grid {d['grid']}; "
              f"tightest safe area {d['tightest_safe_pct']}%")
    print(f"peak RSS {out['peak_rss_mb']} MB; machine {out['machine']}")


if __name__ == "__main__":
    main()
