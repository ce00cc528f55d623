"""How often "evidence ready" verifies the requested change, through the whole loop (issue 26).

Every accepted request of the labeled sets (artifacts/requests/*.jsonl; --limit for a subset)
runs offline on python-sim twice: with the repair scope of the request (the product's default:
a repair outside it becomes trade-offs for the designer) and with the whole fight in scope
(``--repair-scope fight``: what the loop did before issue 26, silent repairs anywhere). For each
it counts: evidence_ready with every intent check holding and no edit nobody asked for;
evidence_ready carrying edits nobody asked for (a silent repair: "the wrong change"); ended
with a choice; and, for the choice, evidence_ready after the first offered trade-off is
chosen. Runs per request are the engine runs (baseline included). Prints a table and JSON.

``--second-reading`` (issue 26 item 6): the same requests, in each scope, once without the
second reading (an authorization recorded before it) and once with it, the first trade-off
chosen where one is offered: how many workflows the second reading sends back (a miss:
blocked, ``second_reading_miss``) and the share that ends evidence_ready before and after.

    python benchmarks/bench_intent.py [--limit N] [--set dev,heldout,heldout2] [--json] [--second-reading]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gcv.repair.scope import whole_fight  # noqa: E402
from gcv.store.catalog import Workspace  # noqa: E402
from gcv.workflow.baselines import active_baseline  # noqa: E402
from gcv.workflow.loop import WorkflowLoop  # noqa: E402
from gcv.workflow.state import Settings  # noqa: E402
from gcv.workflow.summary import summary_object  # noqa: E402


def requests(sets: list[str], limit: int | None) -> list[dict]:
    out = []
    for name in sets:
        for line in (REPO / "artifacts" / "requests" / f"{name}.jsonl").read_text(encoding="utf-8").split("\n"):
            if line.strip():
                item = json.loads(line)
                if item.get("expect", {}).get("decision") == "accepted" and not item.get("follow_ups"):
                    out.append(item)
    return out[:limit] if limit else out


def one(text: str, scope: str, second_reading: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="gcv-bench-intent-") as tmp:
        loop = WorkflowLoop(Workspace(Path(tmp)))
        baseline, source = active_baseline(loop.ws, loop.clock())
        wf = loop.create(text, baseline, Settings(), baseline_source=source)
        state = loop.advance(wf)
        if state.status != "awaiting_authorization":
            return {"end": str(state.status), "runs": 0}
        loop.authorize(wf, actor="bench", repair_scope=whole_fight(baseline) if scope == "fight" else None,
                       second_reading_check=second_reading)
        state = loop.advance(wf)
        d = loop.ws.workflow_dir(wf)
        s = summary_object(d, state)
        row = {"end": str(state.status), "runs": state.usage.engine_runs,
               "silent": any(u["authorized_by"] is None for u in s["unrequested"]),
               "intents_hold": s["intent_checks_hold"], "reason": str(state.terminal_reason)}
        if state.status == "awaiting_choice":
            loop.choose(wf, number=1, actor="bench")
            after = loop.advance(wf)
            if after.status == "awaiting_choice":  # the second reading sent the choice back: the first again
                row["chose_again"] = True
                loop.choose(wf, number=1, actor="bench")
                after = loop.advance(wf)
            row["after_choice"] = str(after.status)
            row["reason"] = str(after.terminal_reason)
            row["runs"] = after.usage.engine_runs
            s = summary_object(d, after)
        sr = s.get("second_reading")
        if sr is not None:
            row["read"] = sr["verdict"]
            row["items"] = len(sr["items"])
            row["misses"] = [f"{i['asked']} (expected {i['expected']}, found {i['found']})"
                             for i in sr["items"] if not i["holds"]]
        return row


def second_reading_figures(items: list[dict]) -> dict:
    """Each scope without and with the second reading (the first trade-off chosen)."""
    out: dict = {}
    for scope in ("request", "fight"):
        for check in (False, True):
            started = time.process_time()
            rows = [dict(one(item["text"], scope, check), text=item["text"]) for item in items]
            ran = [r for r in rows if r["runs"]]
            n = max(len(ran), 1)
            ready = [r for r in ran if r["end"] == "evidence_ready" or r.get("after_choice") == "evidence_ready"]
            sent_back = [r for r in ran if r["reason"] == "second_reading_miss" or r.get("chose_again")]
            out[f"{scope}:{'after' if check else 'before'}"] = {
                "ran": len(ran), "ready": len(ready) / n, "sent_back": len(sent_back),
                "sent_back_share": len(sent_back) / n,
                "stopped_by_it": sum(1 for r in ran if r["reason"] == "second_reading_miss"),
                "ready_after_choosing_again": sum(1 for r in ran if r.get("chose_again")
                                                  and r.get("after_choice") == "evidence_ready"),
                "read_again": sum(1 for r in ran if "read" in r), "unread": sum(1 for r in ran if r.get("read") == "unread"),
                "items_per_reading": (statistics.mean(r["items"] for r in ran if "items" in r)
                                      if any("items" in r for r in ran) else 0.0),
                "misses": [{"text": r["text"], "misses": r.get("misses") or [], "after_choice": "after_choice" in r,
                            "chose_again": bool(r.get("chose_again")), "end": r.get("after_choice") or r["end"]}
                           for r in sent_back],
                "runs_per_request": statistics.mean(r["runs"] for r in ran) if ran else 0.0,
                "cpu_seconds": round(time.process_time() - started, 1)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--set", default="dev,heldout,heldout2")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--second-reading", action="store_true", help="without and with the second reading")
    args = parser.parse_args()
    items = requests(args.set.split(","), args.limit)
    if args.second_reading:
        figures = second_reading_figures(items)
        if args.json:
            print(json.dumps(figures, indent=2, ensure_ascii=False))
            return
        print(f"{len(items)} accepted requests of {args.set} (limit {args.limit}), offline, python-sim, first "
              "trade-off chosen")
        for key, f in figures.items():
            print(f"{key:16} ran {f['ran']:4}  evidence ready {f['ready'] * 100:5.1f}%  sent back {f['sent_back']:3} "
                  f"({f['sent_back_share'] * 100:.1f}%; stopped {f['stopped_by_it']}, ready after choosing again "
                  f"{f['ready_after_choosing_again']})  read again {f['read_again']} (unread {f['unread']}, "
                  f"{f['items_per_reading']:.2f} items each)  engine runs {f['runs_per_request']:.2f}/request  "
                  f"cpu {f['cpu_seconds']} s")
            for m in f["misses"]:
                how = " (after the choice)" if m["after_choice"] else ""
                how += " -> chose again" if m["chose_again"] else ""
                print(f"    {m['text']!r}{how} -> {m['end']}: {'; '.join(m['misses'])}")
        return
    result = {}
    for scope in ("fight", "request"):
        started = time.process_time()
        rows = [one(item["text"], scope) for item in items]
        ran = [r for r in rows if r["runs"]]
        n = max(len(ran), 1)
        ready = [r for r in ran if r["end"] == "evidence_ready"]
        result[scope] = {
            "requests": len(items), "ran": len(ran),
            "ready_requested_change": sum(1 for r in ready if r["intents_hold"] and not r["silent"]) / n,
            "ready_with_unrequested_edits": sum(1 for r in ready if r["silent"]) / n,
            "ended_with_choice": sum(1 for r in ran if r["end"] == "awaiting_choice") / n,
            "ready_after_first_choice": sum(1 for r in ran if r.get("after_choice") == "evidence_ready") / n,
            "ready_directly_or_after_first_choice": sum(1 for r in ran if r["end"] == "evidence_ready" and not r["silent"]
                                                        or r.get("after_choice") == "evidence_ready") / n,
            "runs_per_request": statistics.mean(r["runs"] for r in ran) if ran else 0.0,
            "cpu_seconds": round(time.process_time() - started, 1),
        }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{len(items)} accepted requests of {args.set} (limit {args.limit}), offline, python-sim")
    print(f"{'':38} {'before (fight)':>16} {'after (request)':>16}")
    for key in ("ran", "ready_requested_change", "ready_with_unrequested_edits", "ended_with_choice",
                "ready_after_first_choice", "ready_directly_or_after_first_choice", "runs_per_request", "cpu_seconds"):
        a, b = result["fight"][key], result["request"][key]
        fmt = (lambda v: f"{v * 100:.1f}%") if isinstance(a, float) and key not in ("runs_per_request", "cpu_seconds") \
            else (lambda v: f"{v:g}")
        print(f"{key:38} {fmt(a):>16} {fmt(b):>16}")


if __name__ == "__main__":
    main()
