"""Real ``dask scheduler`` and ``dask worker --resources`` processes on loopback, for the build-agent
tests (engine_runners.build_agents). Every process is ended (with everything it started) when the
fixture that made the cluster finishes, whatever the test did."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")
START_TIMEOUT = 60.0

# A stand-in for an engine executable on an agent: it notes each launch (one line per run in
# $GCV_TEST_LAUNCHES), may wait before it becomes the real harness ($GCV_TEST_SLEEP seconds each
# time; $GCV_TEST_SLEEP_ONCE: 8 s, the first time only), then execs the harness itself.
WRAPPER = """#!/bin/sh
echo "$*" >> "$GCV_TEST_LAUNCHES"
if [ -n "$GCV_TEST_SLEEP_ONCE" ] && mkdir "$GCV_TEST_SLEEP_ONCE" 2>/dev/null; then sleep 8; fi
sleep "${GCV_TEST_SLEEP:-0}"
exec "$GCV_TEST_HARNESS" "$@"
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_wrapper(folder: Path) -> Path:
    path = folder / "engine-wrapper.sh"
    path.write_text(WRAPPER, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def end_tree(proc: subprocess.Popen[Any] | psutil.Process, sig: str = "kill") -> None:
    """End a process and every descendant (an agent's engine runs in its own session)."""
    try:
        root = psutil.Process(proc.pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return
    for p in tree:
        try:
            p.kill() if sig == "kill" else p.terminate()
        except psutil.Error:
            pass
    psutil.wait_procs(tree, timeout=10)


class Cluster:
    """One scheduler and the workers a test starts; ``close`` ends them all."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.workers: dict[str, subprocess.Popen[Any]] = {}
        self.scheduler: subprocess.Popen[Any] | None = None

    def _env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GCV_UE", "GCV_UNITY", "GCV_TEST"))}
        env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env["DASK_DISTRIBUTED__LOGGING__DISTRIBUTED"] = "warning"
        env.update(extra or {})
        return env

    def start_scheduler(self, **env: str) -> str:
        log = (self.folder / "scheduler.log").open("wb")
        self.scheduler = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
                                           "--no-dashboard"], stdout=log, stderr=subprocess.STDOUT,
                                          env=self._env(env), cwd=self.folder, start_new_session=True)
        self._wait(lambda info: True, "the scheduler")
        return self.address

    def start_worker(self, name: str, resources: str, env: dict[str, str] | None = None, *,
                     wait: bool = True) -> subprocess.Popen[Any]:
        log = (self.folder / f"worker-{name}.log").open("wb")
        folder = self.folder / f"worker-{name}"
        folder.mkdir(exist_ok=True)
        proc = subprocess.Popen([str(DASK), "worker", self.address, "--name", name, "--resources", resources,
                                 "--nthreads", "1", "--no-nanny", "--no-dashboard", "--death-timeout", "60",
                                 "--local-directory", str(folder)],
                                stdout=log, stderr=subprocess.STDOUT, env=self._env(env), cwd=folder,
                                start_new_session=True)
        self.workers[name] = proc
        if wait:
            self._wait(lambda info: any(w.get("name") == name for w in info["workers"].values()), f"worker {name}")
        return proc

    def kill_worker(self, name: str) -> None:
        end_tree(self.workers.pop(name))

    def info(self) -> dict[str, Any]:
        from distributed import Client

        with Client(self.address, timeout=10, set_as_default=False) as client:
            return client.scheduler_info(n_workers=-1)

    def _wait(self, ready: Any, what: str) -> None:
        end = time.monotonic() + START_TIMEOUT
        last: Exception | None = None
        while time.monotonic() < end:
            if self.scheduler is not None and self.scheduler.poll() is not None:
                raise RuntimeError(f"the scheduler exited: {(self.folder / 'scheduler.log').read_text()[-2000:]}")
            try:
                if ready(self.info()):
                    return
            except OSError as exc:
                last = exc
            time.sleep(0.2)
        raise RuntimeError(f"{what} did not come up in {START_TIMEOUT:g} s ({last})")

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(self.folder.glob("*.log")))

    def close(self) -> None:
        for name in list(self.workers):
            self.kill_worker(name)
        if self.scheduler is not None:
            end_tree(self.scheduler)
            self.scheduler = None


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout:g} s")
