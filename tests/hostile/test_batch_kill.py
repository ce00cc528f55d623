"""A SIGKILLed ``gcv batch --workers 2`` leaves nothing behind: no forkserver, no resource
tracker, no pool worker, and the caller's stdout pipe closes (a CI step waiting for it ends);
``--resume`` then finishes the batch with every cell exactly once (docs/reliability.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from tests.hostile.conftest import BASELINE, REPO_ROOT

SPEC = """
configs = ["shrine.json"]
seeds = { start = 1, count = 60 }
players = ["bot:average", "bot:expert"]
output = "out"
"""


def _alive(procs: list[psutil.Process]) -> list[int]:
    out = []
    for proc in procs:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                out.append(proc.pid)
        except psutil.Error:
            continue
    return out


def test_a_sigkilled_batch_leaves_no_process_and_closes_the_callers_pipe(tmp_path: Path) -> None:
    (tmp_path / "shrine.json").write_bytes(BASELINE.read_bytes())
    (tmp_path / "batch.toml").write_text(SPEC, encoding="utf-8")
    env = dict(os.environ, GCV_HOME=str(tmp_path / "ws"), PYTHONPATH=str(REPO_ROOT), GCV_NATIVE="off",
               NO_COLOR="1")
    proc = subprocess.Popen([sys.executable, "-m", "gcv.cli.app", "batch", "batch.toml", "--workers", "2", "--json"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    rows = tmp_path / "out" / "results.jsonl"
    family: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the pool is up and some rows are written
            family = psutil.Process(proc.pid).children(recursive=True)
            if len(family) >= 3 and rows.is_file() and rows.stat().st_size > 0:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the batch finished before it could be killed"
        family = psutil.Process(proc.pid).children(recursive=True)
        names = " ".join(" ".join(p.cmdline()) for p in family)
        assert "forkserver" in names and "resource_tracker" in names, names  # what used to survive
        closed = threading.Event()
        reader = threading.Thread(target=lambda: (proc.stdout.read(), closed.set()), daemon=True)
        reader.start()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        gone_by = time.monotonic() + 5
        while _alive(family) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not _alive(family), f"still alive 5 s after SIGKILL: {_alive(family)} ({names})"
        assert closed.wait(5), "the caller's stdout pipe is still held open"
    finally:
        for p in family + [psutil.Process(proc.pid)] if proc.poll() is None else family:
            try:
                p.kill()
            except psutil.Error:
                pass
    # the rows written before the kill are kept, and resume runs each missing cell once
    done = subprocess.run([sys.executable, "-m", "gcv.cli.app", "batch", "batch.toml", "--workers", "2", "--resume",
                           "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = [row["cell_id"] for row in lines if row.get("status") != "error"]
    assert len(ids) == len(set(ids)) == 120, (len(ids), len(set(ids)))
