"""Notifications through a real local receiver over HTTP on 127.0.0.1 that succeeds, fails and
hangs: who is told what, once, with back-off, never a secret, never at the workflow's cost."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.evidence.notify import backoff, deliveries, kind_of, notify

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"
TOKEN = "tok-9f8e7d6c5b4a39281706"


@dataclass
class Receiver:
    """Scripted answers, one per request: an HTTP status, or "hang" (answer after 5 s)."""

    script: deque[Any] = field(default_factory=deque)
    got: list[dict[str, Any]] = field(default_factory=list)

    def start(self) -> "Receiver":
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                receiver.got.append({"at": time.monotonic(), "headers": {k.lower(): v for k, v in self.headers.items()},
                                     "body": json.loads(body)})
                what = receiver.script.popleft() if receiver.script else 200
                if what == "hang":
                    time.sleep(5)
                    what = 200
                try:
                    self.send_response(what)
                    self.send_header("content-length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("GCV_WEBHOOK_TOKEN", TOKEN)
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


def configure(home: Path, url: str, *, extra: str = "", top: str = "") -> None:
    (home / "notify.toml").write_text(f'{top}\n[[webhook]]\nurl = "{url}"\n'
                                      f'headers = {{ Authorization = "env:GCV_WEBHOOK_TOKEN" }}\n{extra}\n',
                                      encoding="utf-8")


def gcv(*args: str) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout), result.stderr


@pytest.mark.slow
def test_evidence_ready_tells_the_reviewer_once_with_the_token_as_a_header_only(home: Path, receiver: Receiver) -> None:
    configure(home, receiver.url, extra='console_url = "https://gcv.studio.test"')
    code, out, _ = gcv("run", REQUEST, "--yes")
    assert code == 7 and out["status"] == "awaiting_choice"  # the designer is needed first: a trade-off
    wf = out["workflow_id"]
    (sent,) = receiver.got
    assert sent["body"]["kind"] == "needs_choice" and sent["body"]["next"] == f"gcv answer {wf} --choose N"
    code, out, _ = gcv("answer", wf, "--choose", "1", "--actor", "dana")
    assert code == 0 and out["status"] == "evidence_ready"
    body = receiver.got[1]["body"]
    assert body["kind"] == "needs_decision" and body["workflow_id"] == wf
    assert body["next"].startswith(f"gcv decide {wf}")
    assert body["url"] == f"https://gcv.studio.test/workflows/{wf}"
    assert receiver.got[1]["headers"]["authorization"] == TOKEN
    assert TOKEN not in json.dumps(body)
    outbox = (home / "notifications" / "outbox.sqlite").read_bytes()
    assert TOKEN.encode() not in outbox and receiver.url.encode() not in outbox  # neither the token nor the URL
    # the same situation is never sent twice: a status and a second notify change nothing
    assert gcv("status", wf)[0] == 0
    notify(home, wf)
    assert len(receiver.got) == 2
    # the decision is an end: told once more
    code, _, _ = gcv("decide", wf, "accept", "--actor", "rin", "--note", "ok")
    assert code == 0 and [g["body"]["kind"] for g in receiver.got] == ["needs_choice", "needs_decision", "ended"]
    assert receiver.got[2]["body"]["status"] == "accepted"


@pytest.mark.slow
def test_a_question_tells_the_designer_with_the_answer_command(home: Path, receiver: Receiver) -> None:
    configure(home, receiver.url, extra='format = "slack"')
    code, out, _ = gcv("run", "make it better", "--yes")
    assert out["status"] == "needs_clarification"
    (sent,) = receiver.got
    text = sent["body"]["text"]
    assert set(sent["body"]) == {"text"} and "needs an answer" in text and f"gcv answer {out['workflow_id']}" in text


@pytest.mark.slow
def test_a_failing_receiver_is_retried_with_back_off_and_never_fails_the_workflow(home: Path,
                                                                                  receiver: Receiver) -> None:
    configure(home, receiver.url)
    receiver.script.extend([500, 503, 200])
    code, out, stderr = gcv("run", REQUEST, "--yes", "--repair-scope", "fight")
    assert code == 0 and out["status"] == "evidence_ready"  # unchanged by the receiver
    assert len(receiver.got) == 3
    gaps = [b["at"] - a["at"] for a, b in zip(receiver.got, receiver.got[1:])]
    assert gaps[0] >= backoff(1) - 0.05 and gaps[1] >= backoff(2) - 0.05, gaps
    (log,) = deliveries(home)
    assert log["state"] == "delivered" and [a["http_status"] for a in log["attempts"]] == [500, 503, 200]


def _fake_workflow(home: Path, wf_id: str = "wf-1", status: str = "evidence_ready") -> None:
    """A workflow folder with a state and one transition, as the loop writes them."""
    from gcv.contract.status import Status
    from gcv.store.workflow_dir import WorkflowDir
    from gcv.workflow.state import Settings, WorkflowState

    d = WorkflowDir(home / "workflows" / wf_id, workspace=home)
    d.root.mkdir(parents=True)
    d.append_event({"type": "transition", "at": time.time(), "from": "reviewing", "to": status,
                    "data": {"message": "every hard and intent check passes"}})
    d.write_state(WorkflowState(id=wf_id, status=Status(status), request=f"make phase 2 denser {TOKEN}",
                                settings=Settings(), baseline_hash="0" * 64, baseline_source="embedded",
                                created_at=time.time()).to_json())


def test_a_hanging_receiver_costs_at_most_the_budget_and_is_retried_later(home: Path, receiver: Receiver) -> None:
    configure(home, receiver.url, extra="timeout_seconds = 0.3", top="budget_seconds = 1.0")
    _fake_workflow(home)
    receiver.script.extend(["hang", "hang", "hang", "hang"])
    started = time.monotonic()
    outcome = notify(home, "wf-1")
    assert time.monotonic() - started < 2.0
    assert outcome.delivered == 0 and outcome.pending == 1 and outcome.warning and "gcv notify flush" in outcome.warning
    receiver.script.clear()  # the receiver is back
    time.sleep(backoff(len(deliveries(home)[0]["attempts"])))
    later = notify(home, None)  # the next command (or gcv notify flush) delivers it
    assert later.delivered == 1 and deliveries(home)[0]["state"] == "delivered"


def test_a_secret_in_the_request_is_redacted_from_the_payload(home: Path, receiver: Receiver,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    configure(home, receiver.url)
    _fake_workflow(home)
    notify(home, "wf-1")
    (sent,) = receiver.got
    assert TOKEN not in json.dumps(sent["body"]) and "[redacted:GCV_WEBHOOK_TOKEN]" in sent["body"]["request"]


def test_a_bad_notify_file_is_a_note_for_workflows_and_an_error_for_gcv_notify(home: Path) -> None:
    (home / "notify.toml").write_text('[[webhook]]\nurl = "ftp://x"\n', encoding="utf-8")
    _fake_workflow(home)
    outcome = notify(home, "wf-1")
    assert outcome.warning and "webhook.0.url" in outcome.warning and "http(s)" in outcome.warning
    code, out, _ = gcv("notify", "status")
    assert code == 2 and "webhook.0.url" in out["error"]
    (home / "notify.toml").write_text('[[webhook]]\nurl = "http://127.0.0.1:9/"\nheaders = { A = "literal" }\n',
                                      encoding="utf-8")
    code, out, _ = gcv("notify", "status")
    assert code == 2 and "env:VARIABLE" in out["error"]


def test_gcv_notify_test_and_status(home: Path, receiver: Receiver) -> None:
    configure(home, receiver.url)
    code, out, _ = gcv("notify", "test")
    assert code == 0 and out["results"][0]["ok"] and receiver.got[0]["body"]["workflow_id"] == "wf-test"
    receiver.script.append(500)
    code, out, _ = gcv("notify", "test")
    assert code == 1 and out["results"][0]["http_status"] == 500
    code, out, _ = gcv("notify", "status")
    assert code == 0 and out["webhooks"][0]["webhook"].endswith(f"127.0.0.1:{receiver.httpd.server_address[1]}")
    assert receiver.url not in json.dumps(out)  # the host only


def test_which_statuses_call_for_a_person() -> None:
    assert [kind_of(s) for s in ("needs_clarification", "awaiting_authorization", "evidence_ready", "failed",
                                 "accepted", "running_candidate", "authorized")] == [
        "needs_answer", "needs_authorization", "needs_decision", "ended", "ended", None, None]
    assert [backoff(n) for n in (1, 2, 3, 20)] == [0.5, 1.0, 2.0, 300.0]


def test_two_senders_at_once_deliver_once(home: Path, receiver: Receiver) -> None:
    """The console delivers on threads and a CLI command may run beside it: one delivery."""
    configure(home, receiver.url)
    _fake_workflow(home)
    threads = [threading.Thread(target=notify, args=(home, "wf-1")) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    notify(home, None)  # whatever a busy sender left pending
    assert len(receiver.got) == 1 and deliveries(home)[0]["state"] == "delivered"
