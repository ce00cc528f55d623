"""Benchmark of the CLI's start-up and of the README's ``gcv run`` (prints figures; not a test).

Measures these commands as a user runs them, each in a fresh process through the installed
``gcv`` entry point (the console script beside this interpreter):

- ``help``: ``gcv --help``
- ``validate``: ``gcv validate artifacts/baselines/shrine_trial.json``
- ``run``: ``gcv run README_REQUEST --yes`` (a fresh, empty ``GCV_HOME`` for every run; it
  ends awaiting the designer's choice, exit 7, which counts as done)
- ``status``, ``status-json``: ``gcv status WF`` and ``gcv status WF --json``
- ``list``, ``list-json``: ``gcv list`` and ``gcv list --json``

The read-only commands share one workspace per checkout, made once before the warm-up by that
checkout's own ``gcv run README_REQUEST --yes`` (WF is its workflow); they leave it unchanged.

For each: the median CPU time of the process (user + system, from ``getrusage`` of the
children) and the median wall time over ``--repeat`` runs, after one warm-up run that also
writes the bytecode cache (``PYTHONDONTWRITEBYTECODE`` is removed from the environment: a
user's ``gcv`` runs from cached bytecode). With ``--against DIR`` (another checkout, e.g.
``git archive main | tar -x -C /tmp/gcv-main``) the same commands run from that checkout too,
interleaved run by run with this one so that a shared machine's load hits both alike, and
the ratios are printed.

Then one more run of each command under ``python -X importtime``: the slowest top-level
imports (cumulative), the import time per top-level package (self times summed) and which
heavy libraries the command imported at all (pydantic, numpy, matplotlib, pandas, pyarrow,
rich, PIL). ``-X importtime`` itself slows imports down; read those as proportions.

Usage: python benchmarks/bench_cli.py [--repeat 11] [--against DIR] [--commands help,validate,run,status,list]
                                      [--top 12] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUEST = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep "
           "the low FPS at 55 or above")
HEAVY = ("pydantic", "numpy", "matplotlib", "pandas", "pyarrow", "rich", "PIL", "jsonschema")
# command -> its arguments, given the checkout and the prepared workspace's workflow id
COMMANDS = {
    "help": lambda root, wf: ["--help"],
    "validate": lambda root, wf: ["validate", str(root / "artifacts" / "baselines" / "shrine_trial.json")],
    "run": lambda root, wf: ["run", REQUEST, "--yes"],
    "status": lambda root, wf: ["status", wf],
    "status-json": lambda root, wf: ["status", wf, "--json"],
    "list": lambda root, wf: ["list"],
    "list-json": lambda root, wf: ["list", "--json"],
}
# the read-only commands: they run in the checkout's prepared workspace (see ``prepare``)
IN_WORKSPACE = {"status", "status-json", "list", "list-json"}
# exit codes that count as done: the README's request ends awaiting the designer's choice (7)
DONE = {"run": {0, 7}}
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def entry_point() -> list[str]:
    """The console script as a user calls it, or the same import through ``-c``."""
    script = Path(sys.executable).with_name("gcv")
    if script.exists():
        return [sys.executable, str(script)]
    return [sys.executable, "-c", "import sys; from gcv.cli.entry import main; sys.argv[0] = 'gcv'; main()"]


def environment(root: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(root), GCV_HOME=str(home), COLUMNS="100", NO_COLOR="1")
    return env


# checkout -> (its prepared workspace, the workflow id in it)
WORKSPACES: dict[Path, tuple[Path, str]] = {}


def prepare(root: Path) -> tuple[Path, str]:
    """The checkout's workspace for the read-only commands: one README run, made once."""
    if root not in WORKSPACES:
        home = Path(tempfile.mkdtemp(prefix="gcv-bench-cli-ws-"))
        done = subprocess.run([*entry_point(), *COMMANDS["run"](root, "")], cwd=home, env=environment(root, home),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)
        found = sorted(p.name for p in (home / "workflows").glob("*") if p.is_dir())
        if done.returncode not in DONE["run"] or len(found) != 1:
            raise SystemExit(f"{root}: preparing the workspace: gcv run exited {done.returncode} with "
                             f"{len(found)} workflow(s):\n{done.stderr[-2000:]}")
        WORKSPACES[root] = (home, found[0])
    return WORKSPACES[root]


def run_once(root: Path, command: str, extra: list[str] | None = None) -> tuple[float, float, str]:
    """(cpu seconds, wall seconds, stderr) of one fresh process."""
    shared = command in IN_WORKSPACE
    home, wf = prepare(root) if shared else (Path(tempfile.mkdtemp(prefix="gcv-bench-cli-")), "")
    try:
        argv = entry_point()
        if extra:
            argv = [argv[0], *extra, *argv[1:]]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([*argv, *COMMANDS[command](root, wf)], cwd=home, env=environment(root, home),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in DONE.get(command, {0}):
            raise SystemExit(f"{root}: gcv {command} exited {done.returncode}:\n{done.stderr[-2000:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return cpu, wall, done.stderr
    finally:
        if not shared:
            shutil.rmtree(home, ignore_errors=True)


def import_profile(root: Path, command: str, top: int) -> dict[str, object]:
    _, _, err = run_once(root, command, extra=["-X", "importtime"])
    rows = []
    for line in err.splitlines():
        m = _LINE.match(line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)), m.group(4)))
    by_package: Counter[str] = Counter()
    for self_us, _, _, name in rows:
        by_package[name.split(".")[0]] += self_us
    tops = sorted(((cum, name) for _, cum, depth, name in rows if depth == 0), reverse=True)
    imported = {name for *_, name in rows}
    return {
        "modules": len(rows),
        "total_ms": round(sum(r[0] for r in rows) / 1000, 1),
        "top_level_ms": [[name, round(cum / 1000, 1)] for cum, name in tops[:top]],
        "by_package_ms": [[name, round(us / 1000, 1)] for name, us in by_package.most_common(top)],
        "heavy_imported": [h for h in HEAVY if h in imported],
    }


def main() -> int:
    try:
        return measure()
    finally:
        for home, _ in WORKSPACES.values():
            shutil.rmtree(home, ignore_errors=True)


def measure() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--against", type=Path, help="another checkout to compare with (e.g. main)")
    ap.add_argument("--commands", default="help,validate,run",
                    help=f"comma-separated, from {', '.join(COMMANDS)}")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    commands = [c.strip() for c in args.commands.split(",") if c.strip()]
    unknown = [c for c in commands if c not in COMMANDS]
    if unknown:
        ap.error(f"--commands: unknown {unknown}; choose from {sorted(COMMANDS)}")
    roots = {"this": ROOT}
    if args.against:
        if not (args.against / "gcv" / "cli" / "app.py").exists():
            ap.error(f"--against {args.against}: not a checkout (no gcv/cli/app.py)")
        roots["against"] = args.against.resolve()

    for root in roots.values():  # warm-up: bytecode cache written, files in the page cache
        if IN_WORKSPACE & set(commands):
            prepare(root)
        for command in commands:
            run_once(root, command)
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {k: {c: [] for c in commands} for k in roots}
    for _ in range(args.repeat):  # interleaved: the machine's load falls on both checkouts alike
        for command in commands:
            for key, root in roots.items():
                cpu, wall, _ = run_once(root, command)
                samples[key][command].append((cpu, wall))

    result: dict[str, object] = {"python": sys.version.split()[0], "cpus": os.cpu_count(),
                                 "repeat": args.repeat, "roots": {k: str(v) for k, v in roots.items()},
                                 "commands": {}}
    for command in commands:
        entry: dict[str, object] = {}
        for key, root in roots.items():
            cpus = [s[0] for s in samples[key][command]]
            walls = [s[1] for s in samples[key][command]]
            entry[key] = {"cpu_median_s": round(statistics.median(cpus), 3),
                          "wall_median_s": round(statistics.median(walls), 3),
                          "cpu_min_s": round(min(cpus), 3), "cpu_max_s": round(max(cpus), 3),
                          "imports": import_profile(root, command, args.top)}
        if "against" in entry:
            this, other = entry["this"], entry["against"]
            entry["cpu_ratio_against_over_this"] = round(other["cpu_median_s"] / this["cpu_median_s"], 2)  # type: ignore[index]
            entry["wall_ratio_against_over_this"] = round(other["wall_median_s"] / this["wall_median_s"], 2)  # type: ignore[index]
        result["commands"][command] = entry  # type: ignore[index]

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"Python {result['python']}, {result['cpus']} CPUs, {args.repeat} runs each (medians; "
          f"interleaved{' with ' + str(roots['against']) if 'against' in roots else ''})")
    for command, entry in result["commands"].items():  # type: ignore[union-attr]
        print(f"\ngcv {command}")
        for key in roots:
            e = entry[key]
            print(f"  {key:8s} cpu {e['cpu_median_s']:.3f} s (min {e['cpu_min_s']:.3f}, max {e['cpu_max_s']:.3f})"
                  f"  wall {e['wall_median_s']:.3f} s")
        if "cpu_ratio_against_over_this" in entry:
            print(f"  ratio against/this: cpu {entry['cpu_ratio_against_over_this']}x, "
                  f"wall {entry['wall_ratio_against_over_this']}x")
        for key in roots:
            imp = entry[key]["imports"]
            print(f"  {key}: -X importtime {imp['modules']} modules, {imp['total_ms']} ms; heavy: "
                  f"{', '.join(imp['heavy_imported']) or 'none'}")
            print("    top-level (cumulative ms): " + ", ".join(f"{n} {t}" for n, t in imp["top_level_ms"]))
            print("    per package (self ms):     " + ", ".join(f"{n} {t}" for n, t in imp["by_package_ms"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
