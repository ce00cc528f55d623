"""Live progress: the stream follows the event log, whoever writes it (the console or the CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from gcv.console.events import LogTail
from gcv.store.catalog import Workspace
from tests.console.conftest import REQUEST


def messages(lines) -> list[dict]:
    out = []
    for line in lines:
        if line.startswith("data: "):
            out.append(json.loads(line[6:]))
    return out


def gcv(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("gcv")
    return subprocess.run([str(exe), *args, "--json"], capture_output=True, text=True, timeout=300, env=os.environ.copy())


@pytest.mark.slow
def test_events_written_by_the_cli_stream_to_a_connected_client(live_local, workspace: Path) -> None:
    r = httpx.post(f"{live_local.url}/api/workflows", json={"request": REQUEST, "actor": "dana"}, timeout=60)
    wf = r.json()["workflow_id"]
    got: list[dict] = []
    connected = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", f"{live_local.url}/api/workflows/{wf}/events", timeout=120) as stream:
            lines = stream.iter_lines()
            for line in lines:
                connected.set()
                if not line.startswith("data: "):
                    continue
                msg = json.loads(line[6:])
                got.append(msg)
                if msg["kind"] == "progress" and msg["status"]["value"] == "evidence_ready":
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert connected.wait(30)
    # another process (the CLI) authorizes and runs the workflow the console created
    assert gcv("authorize", wf, "--actor", "omar").returncode == 0
    assert gcv("resume", wf).returncode == 0
    listener.join(120)
    assert not listener.is_alive(), "the stream never showed the end of the run"
    events = [m["event"] for m in got if m["kind"] == "event"]
    on_disk = Workspace(workspace).workflow_dir(wf).events()
    assert [e["seq"] for e in events] == list(range(len(on_disk)))  # every event, once, in order
    assert [e["hash"] for e in events] == [e["hash"] for e in on_disk]
    kinds = {e["type"] for e in events}
    assert {"created", "step", "trace", "transition"} <= kinds
    assert any(e["type"] == "transition" and e["data"].get("authorization", {}).get("actor") == "omar" for e in events)
    progress = [m for m in got if m["kind"] == "progress"]
    assert progress[-1]["status"]["value"] == "evidence_ready" and progress[-1]["trace"][-1].endswith("accept")
    assert progress[-1]["usage"]["candidate_runs"][0] >= 1


def test_a_stream_without_follow_ends_after_the_log(live_local) -> None:
    wf = httpx.post(f"{live_local.url}/api/workflows", json={"request": REQUEST}, timeout=60).json()["workflow_id"]
    with httpx.stream("GET", f"{live_local.url}/api/workflows/{wf}/events", params={"follow": "false"},
                      timeout=30) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        got = messages(stream.iter_lines())
    events = [m["event"] for m in got if m["kind"] == "event"]
    assert events[0]["type"] == "created" and events[-1]["to"] == "awaiting_authorization"
    assert got[-1]["kind"] == "progress" and got[-1]["status"]["value"] == "awaiting_authorization"
    # Last-Event-ID: a reconnecting client gets only what it missed
    with httpx.stream("GET", f"{live_local.url}/api/workflows/{wf}/events", params={"follow": "false"},
                      headers={"last-event-id": str(events[-2]["seq"])}, timeout=30) as stream:
        again = [m["event"]["seq"] for m in messages(stream.iter_lines()) if m["kind"] == "event"]
    assert again == [events[-1]["seq"]]


def test_the_tail_checks_the_chain_and_follows_a_log_cut_back(tmp_path: Path) -> None:
    d = Workspace(tmp_path / "ws").workflow_dir("wf-tail")
    d.root.mkdir(parents=True)
    for i in range(3):
        d.append_event({"type": "step", "at": float(i), "data": {"step": f"s{i}"}})
    tail = LogTail(d.events_path)
    assert [e["seq"] for e in tail.read()] == [0, 1, 2] and tail.read() == []
    with open(d.events_path, "ab") as fh:
        fh.write(b'{"half": ')  # an append in progress: not read yet
    assert tail.read() == []
    d.truncate_events(2)  # what resume does with the events of an interrupted step
    assert tail.read() == [] or tail.reset
    d.append_event({"type": "step", "at": 9.0, "data": {"step": "redo"}})
    again = tail.read()
    assert tail.reset and [e["seq"] for e in again][-1] == 2 and again[-1]["data"]["step"] == "redo"
    # a line that breaks the chain is refused, not shown
    lines = d.events_path.read_bytes().splitlines()
    forged = json.loads(lines[1])
    forged["data"] = {"step": "forged"}
    d.events_path.write_bytes(lines[0] + b"\n" + json.dumps(forged).encode() + b"\n")
    fresh = LogTail(d.events_path)
    with pytest.raises(ValueError, match="hash does not match"):
        fresh.read()
