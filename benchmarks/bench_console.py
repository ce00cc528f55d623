"""Benchmark of the console (prints figures; not a test).

1. The workflows page with N workflows in the workspace (default 1,000 real workflows,
   each created and proposed by the loop): the server's own time for the page (its
   ``Server-Timing`` header: request in, first byte out), for the first page, a page deep
   in the list, and a filtered page; plus the JSON list. Median and max of REPEAT requests.
2. Live events: the time from an event appended to a workflow's log (as any writer appends
   it: the console's jobs or a ``gcv`` command) to a connected client reading it from the
   server-sent event stream. EVENTS appends, one at a time.

The server is the real one (uvicorn, on 127.0.0.1, in this process).

Usage: python benchmarks/bench_console.py [--workflows 1000] [--repeat 20] [--events 50] [--json]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import uvicorn  # noqa: E402

from gcv.console.app import create_app  # noqa: E402
from gcv.console.context import ConsoleConfig  # noqa: E402
from gcv.store.catalog import Workspace  # noqa: E402
from gcv.workflow.baselines import active_baseline  # noqa: E402
from gcv.workflow.loop import WorkflowLoop  # noqa: E402
from gcv.workflow.state import Settings  # noqa: E402

REQUESTS = ["slow down the bullets by 20%", "make phase 1 bullets 20% slower", "把子弹速度降低20%",
            "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive"]


def populate(root: Path, n: int) -> float:
    loop = WorkflowLoop(Workspace(root))
    base, source = active_baseline(loop.ws, time.time())
    started = time.perf_counter()
    for i in range(n):
        wf = loop.create(f"{REQUESTS[i % len(REQUESTS)]} (#{i})", base, Settings(), baseline_source=source,
                         actor=("ana", "bo", "chen")[i % 3])
        loop.advance(wf)
    return time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_ms(response: httpx.Response) -> float:
    return float(response.headers["server-timing"].split("dur=")[1])


def pages(client: httpx.Client, repeat: int, n: int) -> dict[str, dict[str, float]]:
    last = max(1, (n + 24) // 25)
    urls = {"workflows page 1": "/workflows", f"workflows page {last // 2}": f"/workflows?page_no={last // 2}",
            "filtered (status + actor + text)": "/workflows?status=needs_clarification&actor=ana&q=slow",
            "JSON list, 50 rows": "/api/workflows?limit=50"}
    first = client.get("/api/workflows?limit=1").json()["workflows"][0]["id"]
    urls["one workflow's page"] = f"/workflows/{first}"
    out = {}
    for name, url in urls.items():
        client.get(url)  # warm
        server, total = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            r = client.get(url)
            total.append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200, (url, r.status_code)
            server.append(server_ms(r))
        out[name] = {"server_median_ms": statistics.median(server), "server_max_ms": max(server),
                     "round_trip_median_ms": statistics.median(total)}
    return out


def event_latency(url: str, root: Path, events: int) -> dict[str, float]:
    ws = Workspace(root)
    wf = ws.list_workflows(1)[0]["id"]
    d = ws.workflow_dir(wf)
    start_seq = len(d.events())
    arrived: dict[int, float] = {}
    ready = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", f"{url}/api/workflows/{wf}/events", params={"after": start_seq - 1},
                          timeout=60) as stream:
            for line in stream.iter_lines():
                ready.set()
                if line.startswith("data: "):
                    msg = json.loads(line[6:])
                    if msg["kind"] == "event" and msg["event"]["type"] == "bench":
                        arrived[msg["event"]["seq"]] = time.perf_counter()
                        if len(arrived) == events:
                            return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    ready.wait(30)
    time.sleep(0.3)
    sent: dict[int, float] = {}
    for i in range(events):
        with d.lock():
            t0 = time.perf_counter()
            event = d.append_event({"type": "bench", "at": time.time(), "data": {"i": i}})
        sent[event["seq"]] = t0
        time.sleep(0.137)  # not in step with the stream's polling
    listener.join(60)
    lat = [(arrived[s] - sent[s]) * 1000 for s in sent if s in arrived]
    return {"events": len(lat), "median_ms": statistics.median(lat), "p95_ms": sorted(lat)[int(0.95 * (len(lat) - 1))],
            "max_ms": max(lat)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workflows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gcv-bench-console-") as tmp:
        root = Path(tmp) / "ws"
        made = populate(root, args.workflows)
        port = free_port()
        app = create_app(ConsoleConfig(workspace=root, port=port, secret=b"b" * 32))
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off",
                                               timeout_graceful_shutdown=1))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        url = f"http://127.0.0.1:{port}"
        client = httpx.Client(base_url=url, follow_redirects=False)
        client.post("/login", data={"name": "bench"})
        results = {"workflows": args.workflows, "populate_seconds": round(made, 1),
                   "pages": pages(client, args.repeat, args.workflows),
                   "event_to_client": event_latency(url, root, args.events)}
        server.should_exit = True
        thread.join(10)
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"{results['workflows']} workflows in the workspace (made and proposed by the loop in "
          f"{results['populate_seconds']} s)")
    for name, row in results["pages"].items():
        print(f"  {name:<36} server {row['server_median_ms']:7.1f} ms median, {row['server_max_ms']:7.1f} ms max; "
              f"round trip {row['round_trip_median_ms']:7.1f} ms")
    ev = results["event_to_client"]
    print(f"  event written -> client: {ev['median_ms']:.0f} ms median, {ev['p95_ms']:.0f} ms p95, "
          f"{ev['max_ms']:.0f} ms max ({ev['events']} events)")


if __name__ == "__main__":
    main()
