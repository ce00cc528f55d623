"""Benchmark of ``gcv fair`` over a generated set of valid configs, sparse to walls (prints figures).

Why a set and not one fight: the analysis has several ways to end (a cheap witness, the beam
search, the impossibility bound, a budget that runs out) and each kind of fight exercises a
different one. The set is generated from a fixed seed, so "before" and "after" measure the very
same configs:

- ``sparse``: the baseline's arena and player, a few slow bullets (standing still often survives);
- ``medium``: baseline-like fights, 8-20 bullets per wave;
- ``dense``: patterns grown until the validation rules stop them (the alive bound at the limit);
- ``aimed``: aimed fans and scatter mixed with rings (never provable unfair);
- ``walls``: solid rings in small arenas (gaps between bullets smaller than the hit radius);
- ``gap``: a 4-wide arena whose only safe lane beside a falling column is as wide as the hit
  radius (``tests.support.fairutil.edge_gap``);
- ``big_radius``: a large hit radius and a slow player (the case that used to take 1-1.5 GB).

Every config passes all four validation layers (checked when the set is built). Each config is
analysed in its own child process (``--one K``), so its CPU time and peak memory are its own
(``os.wait4``); a child over ``--timeout`` seconds is killed and counted as such.

Usage:
  nice python benchmarks/bench_fair_set.py [--gcv-path DIR] [--budget-seconds S] [--json OUT]
``--gcv-path`` runs the analysis of another checkout (for the "before" figures); the figures
docs/analysis.md quotes were measured this way on the commit before the work budget.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SET_SEED = 29
KINDS = ("ring", "spiral", "petal")


def _base() -> dict[str, Any]:
    return json.loads((ROOT / "artifacts/baselines/shrine_trial.json").read_text(encoding="utf-8"))


def _phase(k: int, pattern: dict[str, Any], trigger: float) -> dict[str, Any]:
    return {"phase_id": f"phase_{k + 1}", "title": f"Generated {pattern['type']} {k + 1}",
            "trigger_boss_hp_below": trigger, "pattern": pattern}


def _pattern(rng: random.Random, kind: str, bullets: int, interval: int, speed: float, life: float) -> dict[str, Any]:
    rot = 0 if kind == "ring" else rng.choice([-23, -13, 7, 11, 17, 29])
    return {"type": kind, "bullets_per_wave": bullets, "wave_interval_ms": interval, "bullet_speed": speed,
            "bullet_lifetime_seconds": life, "rotation_per_wave_deg": rot, "spread_angle_deg": 360,
            "layer_count": 2 if kind == "petal" else 1, "bidirectional": False}


def _fight(rng: random.Random, name: str, seconds: int, patterns: list[dict[str, Any]]) -> dict[str, Any]:
    cfg = _base()
    cfg["name"] = name
    cfg["scenario"].update(scenario_id=name.lower().replace(" ", "_").replace("-", "_"), duration_seconds=seconds)
    cfg["targets"]["min_survival_seconds"] = seconds
    cfg["boss"]["max_health"] = 100 * seconds  # auto-fire deals 100/s: the boss dies near the end
    n = len(patterns)
    cfg["phases"] = [_phase(k, p, 1.0 if k == 0 else round(1 - k / n, 4)) for k, p in enumerate(patterns)]
    return cfg


def _grow(cfg: dict[str, Any]) -> dict[str, Any]:
    """Raise bullets_per_wave round-robin while every validation layer still passes."""
    from gcv.validation.validate import validate

    grown = True
    while grown:
        grown = False
        for ph in cfg["phases"]:
            pat = ph["pattern"]
            if pat["bullets_per_wave"] >= 64:
                continue
            pat["bullets_per_wave"] += 1
            if validate(cfg, cfg).ok:
                grown = True
            else:
                pat["bullets_per_wave"] -= 1
    return cfg


def generate() -> list[dict[str, Any]]:
    """The benchmark's configs, the same on every call (a fixed seed), all valid."""
    sys.path.insert(0, str(ROOT))
    from gcv.validation.validate import validate
    from tests.support.fairutil import edge_gap, ring_wall

    rng = random.Random(SET_SEED)
    out: list[dict[str, Any]] = []

    def add(group: str, cfg: dict[str, Any]) -> None:
        if not validate(cfg, cfg).ok:
            raise AssertionError(f"generated {group} config {cfg['name']} does not validate")
        out.append({"group": group, "config": cfg})

    for k in range(8):
        pats = [_pattern(rng, rng.choice(KINDS), rng.randint(1, 4), rng.randint(1500, 5000),
                         rng.choice([1.5, 2.0, 3.0]), 5.0) for _ in range(rng.randint(1, 3))]
        cfg = _fight(rng, f"Sparse {k + 1}", rng.choice([10, 20, 40]), pats)
        if k >= 4:  # wide and long: the bound's pass is what costs here
            side = rng.choice([40, 60, 100])
            cfg = _fight(rng, f"Sparse {k + 1}", rng.choice([120, 300]), pats)
            cfg["scenario"].update(arena_width=side, arena_height=side)
            for ph in cfg["phases"]:
                ph["pattern"]["bullet_lifetime_seconds"] = 12
        add("sparse", cfg)
    for k in range(8):
        pats = [_pattern(rng, rng.choice(KINDS), rng.randint(8, 20), rng.randint(500, 1500),
                         rng.choice([2.5, 3.0, 3.6, 4.0]), 5.0) for _ in range(rng.randint(2, 3))]
        add("medium", _fight(rng, f"Medium {k + 1}", rng.choice([20, 30, 36]), pats))
    for k in range(8):
        pats = [_pattern(rng, rng.choice(KINDS), 1, rng.choice([150, 200, 250, 300]),
                         rng.choice([3.0, 3.6, 4.5, 5.0]), rng.choice([4.0, 5.0])) for _ in range(rng.randint(2, 4))]
        add("dense", _grow(_fight(rng, f"Dense {k + 1}", rng.choice([20, 30]), pats)))
    for k in range(6):
        pats = []
        for _ in range(rng.randint(2, 3)):
            kind = rng.choice(["aimed_fan", "scatter", "ring"])
            p = _pattern(rng, "ring", rng.randint(5, 12), rng.randint(500, 1200), rng.choice([3.0, 4.0]), 5.0)
            if kind != "ring":
                p.update(type=kind, spread_angle_deg=rng.choice([40, 60, 90]), rotation_per_wave_deg=0)
            pats.append(p)
        add("aimed", _fight(rng, f"Aimed {k + 1}", rng.choice([20, 30]), pats))
    for k in range(8):
        add("walls", ring_wall(width=rng.choice([5, 6, 7, 8]), bullets=rng.choice([48, 56, 64]),
                               hit_radius=rng.choice([0.4, 0.5, 0.6]), speed=rng.choice([1.5, 2.0, 3.0]),
                               player_speed=rng.choice([2.0, 3.0, 5.0]),
                               start_y=-rng.choice([1.0, 1.5, 2.0]), name=f"Wall {k + 1}"))
    add("gap", edge_gap())
    add("gap", edge_gap(hit_radius=1.5, name="Edge gap 1.5"))
    for k in range(3):
        cfg = _fight(rng, f"Big radius {k + 1}", rng.choice([60, 90]),
                     [_pattern(rng, rng.choice(KINDS), rng.randint(6, 12), rng.randint(800, 1500), 2.0, 8.0)
                      for _ in range(2)])
        side = rng.choice([40, 60, 80])
        cfg["scenario"].update(arena_width=side, arena_height=side)
        cfg["player"].update(hit_radius=rng.choice([1.5, 2.0]), graze_radius=2.5, move_speed=rng.choice([0.5, 1.0]))
        add("big_radius", cfg)
    return out


def _child(path: str, index: int, budget_seconds: float | None) -> None:
    """One config's analysis (the frames too: drawing them is what used to crash)."""
    entry = json.loads(Path(path).read_text(encoding="utf-8"))[index]
    from gcv.analysis import run_analysis

    kwargs: dict[str, Any] = {"seed": 1}
    if budget_seconds is not None:
        kwargs["budget_seconds"] = budget_seconds
    t0 = time.process_time()
    row: dict[str, Any] = {"name": entry["config"]["name"], "group": entry["group"]}
    try:
        analysis = run_analysis(entry["config"], **kwargs)
        r = analysis.report
        e = r.effort
        row.update(verdict=r.verdict, reach_complete=e.reach_complete, stopped_by=e.search.stopped_by,
                   nodes=e.search.nodes_expanded, witness_hash=r.witness.trace_hash if r.witness else None,
                   unfair_tick=r.unfair.tick if r.unfair else None,
                   work=getattr(e, "work_units", None), stopped_by_time=getattr(e, "stopped_by_time", None),
                   cheap=(e.cheap.found or (f"seed: {e.cheap.seed}" if e.cheap.seed else None)) if getattr(e, "cheap", None) else None)
        try:
            analysis.unfair_frame()
            analysis.tightest_frame()
            row["frames"] = "ok"
        except Exception as exc:  # what the command would have died of
            row["frames"] = f"crash: {type(exc).__name__}"
    except Exception as exc:
        row.update(verdict="error", error=f"{type(exc).__name__}: {exc}")
    row["analysis_cpu_s"] = round(time.process_time() - t0, 3)
    print(json.dumps(row))


def _run_one(path: str, index: int, gcv_path: Path, budget_seconds: float | None, timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(index), "--set-file", path]
    if budget_seconds is not None:
        cmd += ["--budget-seconds", str(budget_seconds)]
    env = dict(os.environ, PYTHONPATH=str(gcv_path))
    started = time.monotonic()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=str(gcv_path))
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout and not killed:
                proc.send_signal(signal.SIGKILL)
                killed = True
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace").strip().splitlines()
    row = json.loads(text[-1]) if text and not killed else {"verdict": "killed" if killed else "error"}
    row.update(cpu_s=round(usage.ru_utime + usage.ru_stime, 2), peak_rss_mb=round(usage.ru_maxrss / 1024, 1),
               wall_s=round(time.monotonic() - started, 2))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--set-file", help=argparse.SUPPRESS)
    parser.add_argument("--gcv-path", type=Path, default=ROOT, help="the checkout whose gcv.analysis runs")
    parser.add_argument("--budget-seconds", type=float, default=None,
                        help="pass a seconds budget (the only budget before the work budget existed)")
    parser.add_argument("--timeout", type=float, default=120.0, help="kill a config's child after this many seconds")
    parser.add_argument("--json", type=Path, help="also write every row to this file")
    parser.add_argument("--only", help="comma-separated groups")
    args = parser.parse_args()
    if args.one is not None:
        _child(args.set_file, args.one, args.budget_seconds)
        return
    entries = generate()
    if args.only:
        keep = set(args.only.split(","))
        entries = [e for e in entries if e["group"] in keep]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(entries, f)
        path = f.name
    rows = []
    started = time.monotonic()
    try:
        for k in range(len(entries)):
            row = _run_one(path, k, args.gcv_path.resolve(), args.budget_seconds, args.timeout)
            rows.append(row)
            print(f"{row.get('group', ''):<10} {row.get('name', entries[k]['config']['name']):<16} "
                  f"{row['verdict']:<12} cpu {row['cpu_s']:>6} s  rss {row['peak_rss_mb']:>7} MB  "
                  f"work {row.get('work')}  frames {row.get('frames')}", flush=True)
    finally:
        os.unlink(path)
    total = time.monotonic() - started
    print(summarize(rows, total))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "wall_s": round(total, 1),
                                         "load_1min": round(os.getloadavg()[0], 2)}, indent=1) + "\n")


def summarize(rows: list[dict[str, Any]], total: float) -> str:
    n = len(rows)
    lines = [f"{n} configs in {total:.0f} s wall"]
    verdicts: dict[str, int] = {}
    for r in rows:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    lines.append("verdicts: " + ", ".join(f"{v} {c} ({100 * c / n:.0f}%)" for v, c in sorted(verdicts.items())))
    crashes = sum(1 for r in rows if str(r.get("frames", "")).startswith("crash"))
    lines.append(f"frame crashes (the command's exit 70): {crashes}")
    cpu = sorted(r["cpu_s"] for r in rows)
    rss = sorted(r["peak_rss_mb"] for r in rows)
    lines.append(f"CPU per config: median {cpu[n // 2]} s, max {cpu[-1]} s, total {sum(cpu):.0f} s")
    lines.append(f"peak RSS per config: median {rss[n // 2]} MB, max {rss[-1]} MB")
    by_group: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_group.setdefault(r.get("group", "?"), []).append(r)
    for g, rs in by_group.items():
        vs = ", ".join(f"{v} {sum(1 for r in rs if r['verdict'] == v)}" for v in sorted({r['verdict'] for r in rs}))
        lines.append(f"  {g:<10} {len(rs):>2}: {vs}; max CPU {max(r['cpu_s'] for r in rs)} s, "
                     f"max RSS {max(r['peak_rss_mb'] for r in rs)} MB")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
