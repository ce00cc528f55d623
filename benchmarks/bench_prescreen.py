"""Benchmark: engine runs spent per accepted change, with and without the pre-screen and the
repair search (issue 18). Prints figures; not a test.

Every request of the labeled sets (artifacts/requests/*.jsonl) that the offline Requirement
Agent turns into a candidate is run through the whole loop twice on a real engine core, the
UE5 plugin's C++ core built as the console harness (``gcv-ue5-harness``, g++):

* before: ``Settings(prescreen=False, repair_search=False)`` (every candidate runs in the
  engine; each repair is the calculator's single step);
* after: the defaults (the reference pre-screen before every engine run, and the repair
  search on the documented ladders).

Figures: engine runs per workflow (baseline included), engine runs per accepted change
(``evidence_ready``), accepted per authorization, reference runs, and wall time. Without g++
the benchmark says so and exits 2: nothing is invented.

Usage: python benchmarks/bench_prescreen.py [--sets dev,heldout] [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine_runners import harness_cpp  # noqa: E402
from gcv.agents.request_eval import fold_answers, load_set  # noqa: E402
from gcv.contract.status import Status  # noqa: E402
from gcv.store.catalog import Workspace  # noqa: E402
from gcv.workflow.baselines import active_baseline  # noqa: E402
from gcv.workflow.loop import WorkflowLoop  # noqa: E402
from gcv.workflow.state import Settings  # noqa: E402

MODES = {"before": {"prescreen": False, "repair_search": False}, "after": {}}


def run_one(ws_root: Path, text: str, mode: dict[str, bool]) -> dict[str, object] | None:
    """One request through the loop on ue5 (harness); None when no candidate was proposed."""
    loop = WorkflowLoop(Workspace(ws_root))
    baseline, source = active_baseline(loop.ws, time.time())
    wf = loop.create(text, baseline, Settings(engine="ue5", **mode), baseline_source=source)
    state = loop.advance(wf)
    if state.status != Status.AWAITING_AUTHORIZATION:
        return None
    t0 = time.perf_counter()
    loop.authorize(wf, actor="bench")
    state = loop.advance(wf)
    return {"status": str(state.status), "reason": str(state.terminal_reason or ""),
            "engine_runs": state.usage.engine_runs, "candidate_runs": state.usage.candidate_runs,
            "prescreen_runs": state.usage.prescreen_runs, "rounds": len(state.rounds),
            "wall_s": time.perf_counter() - t0}


def summarize(rows: list[dict[str, object]]) -> dict[str, object]:
    accepted = [r for r in rows if r["status"] == Status.EVIDENCE_READY]
    engine_runs = sum(int(r["engine_runs"]) for r in rows)  # type: ignore[call-overload]
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[str(r["status"])] = statuses.get(str(r["status"]), 0) + 1
    return {
        "authorizations": len(rows),
        "accepted": len(accepted),
        "accepted_per_authorization": round(len(accepted) / len(rows), 3) if rows else None,
        "engine_runs": engine_runs,
        "engine_runs_per_workflow": round(engine_runs / len(rows), 3) if rows else None,
        "engine_runs_per_accepted": round(engine_runs / len(accepted), 3) if accepted else None,
        "candidate_runs_per_accepted_workflow": (
            round(statistics.mean(int(r["candidate_runs"]) for r in accepted), 3) if accepted else None),  # type: ignore[call-overload]
        "reference_runs": sum(int(r["prescreen_runs"]) for r in rows),  # type: ignore[call-overload]
        "median_wall_s": round(statistics.median(float(r["wall_s"]) for r in rows), 3) if rows else None,  # type: ignore[arg-type]
        "statuses": statuses,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="dev,heldout", help="labeled sets under artifacts/requests")
    parser.add_argument("--limit", type=int, default=0, help="at most this many accepted requests (0: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ok, reason = harness_cpp.toolchain_status()
    if not ok:
        print(f"cannot measure on an engine core here: {reason}", file=sys.stderr)
        return 2
    os.environ["GCV_UE_HARNESS"] = str(harness_cpp.build_cpp_harness())
    requests = []
    for name in args.sets.split(","):
        requests += [r for r in load_set(ROOT / "artifacts" / "requests" / f"{name}.jsonl")
                     if r.expect.decision == "accepted"]
    rows: dict[str, list[dict[str, object]]] = {m: [] for m in MODES}
    changed: list[str] = []
    done = 0
    for req in requests:
        if args.limit and done >= args.limit:
            break
        text = fold_answers(req.text, req.follow_ups)
        with tempfile.TemporaryDirectory() as tmp:
            pair = {m: run_one(Path(tmp) / m, text, opts) for m, opts in MODES.items()}
        if any(v is None for v in pair.values()):
            continue  # the reader did not propose a candidate: nothing to authorize
        done += 1
        for m, row in pair.items():
            assert row is not None
            rows[m].append(row)
        if pair["before"]["status"] != pair["after"]["status"]:  # type: ignore[index]
            changed.append(f"{req.id}: {pair['before']['status']} -> {pair['after']['status']}")  # type: ignore[index]
        print(f"\r{done} requests run", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    figures = {m: summarize(r) for m, r in rows.items()}
    figures["outcome_changed"] = changed  # type: ignore[assignment]
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{done} accepted-by-the-reader requests, engine ue5 (C++ core harness), seed 1, scripted player")
    for m in MODES:
        f = figures[m]
        print(f"{m:>6}: {f['accepted']}/{f['authorizations']} accepted per authorization "
              f"({f['accepted_per_authorization']}), {f['engine_runs']} engine runs "
              f"({f['engine_runs_per_workflow']} per workflow, {f['engine_runs_per_accepted']} per accepted change), "
              f"{f['reference_runs']} reference runs, median {f['median_wall_s']} s per workflow; {f['statuses']}")
    print(f"outcome changed on {len(changed)} requests" + (": " + "; ".join(changed[:10]) if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
