"""Kill the server in the middle of a run, start it again: the workflow shows as interrupted,
resumes, and ends exactly as an uninterrupted run (nothing lost, nothing run twice)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from gcv.store.catalog import Workspace
from gcv.workflow.loop import WorkflowLoop
from tests.console.conftest import REQUEST, free_port

REPO = Path(__file__).resolve().parents[2]


class Served:
    """A real `gcv serve` process on the workspace."""

    def __init__(self, workspace: Path, port: int, *args: str, **env: str) -> None:
        exe = Path(sys.executable).with_name("gcv")
        self.url = f"http://127.0.0.1:{port}"
        # the checkout under test serves, not whichever one the environment's `gcv` was installed from
        path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen([str(exe), "serve", "--port", str(port), *args], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE,
                                     env={**os.environ, "GCV_HOME": str(workspace), "PYTHONPATH": path, **env})
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, self.proc.stderr.read().decode() if self.proc.stderr else ""
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "gcv serve did not start"
            time.sleep(0.1)

    def wait_dead(self, timeout: float = 60) -> int:
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


def essence(root: Path, wf: str) -> dict:
    d, state = WorkflowLoop(Workspace(root)).load(wf)
    telemetry = [d.get(r.run.telemetry_hash) for r in state.rounds if r.run]
    for t in telemetry:
        t.pop("wall_time_ms", None)
        t.pop("run_id", None)  # names the workflow, whose id differs between the two workspaces
    keys = [k for k in (line.split('"key":"', 1)[1].split('"', 1)[0]
                        for line in d.activities_path.read_text().splitlines())]
    return {"status": state.status, "reason": state.terminal_reason, "final": state.final_candidate_hash,
            "usage": state.usage.model_dump(), "trace": state.trace, "telemetry": telemetry,
            "rounds": [(r.candidate_hash, r.miss_score, r.gate.intent if r.gate else None) for r in state.rounds],
            "activities": keys,
            "transitions": [(e.get("from"), e.get("to")) for e in d.events() if e["type"] == "transition"]}


def wait_status(url: str, wf: str, wanted: set[str], timeout: float = 120, headers: dict | None = None) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = httpx.get(f"{url}/api/workflows/{wf}", timeout=10, headers=headers).json()
        if status["status"] in wanted:
            return status
        time.sleep(0.1)
    raise AssertionError(f"{wf} never reached {wanted}")


def propose(workspace: Path) -> tuple[str, int]:
    port = free_port()
    first = Served(workspace, port)
    try:
        r = httpx.post(f"{first.url}/api/workflows", json={"request": REQUEST, "actor": "dana"}, timeout=60)
        assert r.status_code == 201 and r.json()["status"] == "awaiting_authorization"
        return r.json()["workflow_id"], port
    finally:
        first.kill()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The same workflow run through a server that is never interrupted."""
    root = tmp_path_factory.mktemp("uninterrupted") / "ws"
    wf, port = propose(root)
    server = Served(root, port)
    try:
        httpx.post(f"{server.url}/api/workflows/{wf}/authorize", json={"actor": "omar"}, timeout=60)
        wait_status(server.url, wf, {"evidence_ready"})
    finally:
        server.kill()
    return essence(root, wf)


@pytest.mark.slow
@pytest.mark.parametrize("crash_after", [1, 2, 6, 13])
def test_a_server_killed_mid_run_resumes_to_the_same_result(tmp_path: Path, reference: dict, crash_after: int) -> None:
    root = tmp_path / "ws"
    wf, port = propose(root)
    # this server dies (as if killed: os._exit) right after its N-th durable write of the run
    doomed = Served(root, port, GCV_CRASH_AFTER=str(crash_after))
    try:
        httpx.post(f"{doomed.url}/api/workflows/{wf}/authorize", json={"actor": "omar"}, timeout=60)
    except httpx.TransportError:
        pass  # it may die before it answers
    assert doomed.wait_dead() == 137
    server = Served(root, port)
    try:
        status = httpx.get(f"{server.url}/api/workflows/{wf}", timeout=10).json()
        if status["status"] == "awaiting_authorization":
            # died inside the authorization itself, before its state was written: the operator never got
            # an answer, and nothing was authorized; authorizing again is the whole recovery
            assert crash_after == 1
            httpx.post(f"{server.url}/api/workflows/{wf}/authorize", json={"actor": "omar"}, timeout=60)
            wait_status(server.url, wf, {"evidence_ready"})
            server.kill()
            assert essence(root, wf) == reference
            return
        assert status["status"] in {"authorized", "running_baseline", "running_candidate", "reviewing", "repairing"}
        client = httpx.Client(base_url=server.url, follow_redirects=True)
        client.post("/login", data={"name": "omar"})
        page = client.get(f"/workflows/{wf}").text
        assert "Interrupted." in page and "Resume</button>" in page
        r = httpx.post(f"{server.url}/api/workflows/{wf}/resume", json={}, timeout=30)
        assert r.status_code == 202, r.text
        wait_status(server.url, wf, {"evidence_ready"})
    finally:
        server.kill()
    got = essence(root, wf)
    assert got == reference
    assert len(got["activities"]) == len(set(got["activities"]))  # no engine run or model call twice


@pytest.mark.slow
def test_sigkill_during_the_run(tmp_path: Path, reference: dict) -> None:
    root = tmp_path / "ws"
    wf, port = propose(root)
    server = Served(root, port)
    httpx.post(f"{server.url}/api/workflows/{wf}/authorize", json={"actor": "omar"}, timeout=60)
    time.sleep(0.3)
    server.kill()
    server = Served(root, port)
    try:
        status = httpx.get(f"{server.url}/api/workflows/{wf}", timeout=10).json()
        if status["status"] != "evidence_ready":  # killed before the end: resume it
            assert httpx.post(f"{server.url}/api/workflows/{wf}/resume", json={}, timeout=30).status_code == 202
            wait_status(server.url, wf, {"evidence_ready"})
    finally:
        server.kill()
    assert essence(root, wf) == reference
