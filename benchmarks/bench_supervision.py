"""Benchmark of engine supervision on this machine (prints figures; not a test).

Measures, with the misbehaving fake engine of the tests (a Python process that prints its
handshake and then sleeps with a child process, i.e. a hung engine with a process tree):
- interrupt latency: N hung engines supervised on N threads (a batch with N workers), then
  ``stop_all()`` as Ctrl-C does: seconds until every supervising thread has returned and
  every engine and child process is gone;
- hang detection: a hung engine with a liveness limit of L seconds: seconds from launch to
  the run's end (L plus the kill), and the reported phase;
- overhead of a successful supervised run: the python-sim subprocess runner end to end
  versus the same run in process.

Usage: python benchmarks/bench_supervision.py [--engines 1,4,8] [--liveness 1.0] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from engine_runners import supervision  # noqa: E402
from engine_runners.base import Capabilities, EnvironmentStatus, SubprocessRunner  # noqa: E402
from engine_runners.python_sim import PythonSimRunner  # noqa: E402
from engine_runners.requests import build_request  # noqa: E402
from gcv.contract.models import BulletHellConfig  # noqa: E402

FAKE = ROOT / "tests" / "support" / "fakes" / "fake_engine.py"
BASELINE = ROOT / "artifacts" / "baselines" / "shrine_trial.json"


class Fake(SubprocessRunner):
    name = "fake"
    startup_budget = 60.0
    liveness_timeout = 600.0

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def command(self, request_path, request):
        return [sys.executable, str(FAKE), self.mode, str(request_path)]

    def environment(self):
        return dict(os.environ, PYTHONPATH=str(ROOT))

    def check(self):
        return EnvironmentStatus("fake", "available", "benchmark double")

    def capabilities(self):
        return Capabilities(False, False, True, "python", "fake")


def _request(out: Path, run_id: str):
    config = BulletHellConfig.model_validate(json.loads(BASELINE.read_text(encoding="utf-8")))
    return build_request(config, seed=1, player={"kind": "scripted"}, output_dir=out, run_id=run_id)


def interrupt_latency(n: int, tmp: Path) -> dict[str, float]:
    supervision.allow_launches()
    threads, results = [], {}
    for i in range(n):
        req = _request(tmp / f"int{n}-{i}", f"int-{i}")
        th = threading.Thread(target=lambda r=req, k=i: results.setdefault(k, Fake("hang").run(r, timeout=600)))
        th.start()
        threads.append(th)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(tmp.glob(f"int{n}-*/child.pid"))) < n:
        time.sleep(0.02)
    children = [int(p.read_text()) for p in tmp.glob(f"int{n}-*/child.pid")]
    started = time.monotonic()
    supervision.stop_all()
    for th in threads:
        th.join()
    returned = time.monotonic() - started
    while any(psutil.pid_exists(c) and psutil.Process(c).status() != psutil.STATUS_ZOMBIE for c in children):
        time.sleep(0.01)
    gone = time.monotonic() - started
    supervision.allow_launches()
    assert all(r.error_kind == "interrupted" for r in results.values())
    return {"engines": n, "threads_returned_s": round(returned, 3), "all_processes_gone_s": round(gone, 3)}


def hang_detection(liveness: float, tmp: Path) -> dict[str, object]:
    runner = Fake("spam_after_handshake")
    runner.liveness_timeout = liveness
    started = time.monotonic()
    result = runner.run(_request(tmp / "hang", "hang"), timeout=600)
    return {"liveness_s": liveness, "ended_after_s": round(time.monotonic() - started, 3),
            "error_kind": result.error_kind, "phase": result.phase, "last_tick": result.last_tick}


def overhead(tmp: Path, repeat: int) -> dict[str, float]:
    sub, inproc = [], []
    for i in range(repeat):
        t0 = time.monotonic()
        assert PythonSimRunner("subprocess").run(_request(tmp / f"sub{i}", f"sub-{i}")).ok
        sub.append(time.monotonic() - t0)
        t0 = time.monotonic()
        assert PythonSimRunner("inprocess").run(_request(tmp / f"in{i}", f"in-{i}")).ok
        inproc.append(time.monotonic() - t0)
    return {"subprocess_median_s": round(statistics.median(sub), 3),
            "inprocess_median_s": round(statistics.median(inproc), 3),
            "supervision_and_process_start_s": round(statistics.median(sub) - statistics.median(inproc), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="1,4,8")
    parser.add_argument("--liveness", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        figures = {
            "interrupt": [interrupt_latency(int(n), tmp) for n in args.engines.split(",")],
            "hang_detection": hang_detection(args.liveness, tmp),
            "overhead": overhead(tmp, args.repeat),
        }
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    for row in figures["interrupt"]:
        print(f"interrupt: {row['engines']} hung engine(s): supervising threads returned in "
              f"{row['threads_returned_s']:.3f} s, every process gone in {row['all_processes_gone_s']:.3f} s")
    h = figures["hang_detection"]
    print(f"hang detection: liveness {h['liveness_s']} s -> run ended after {h['ended_after_s']} s "
          f"({h['error_kind']} in {h['phase']} at tick {h['last_tick']})")
    o = figures["overhead"]
    print(f"python-sim run: subprocess {o['subprocess_median_s']} s, in process {o['inprocess_median_s']} s "
          f"(process start + supervision {o['supervision_and_process_start_s']} s)")


if __name__ == "__main__":
    main()
