"""Notifications: tell people when a workflow needs them, and when it ends.

A workspace may name webhooks in ``GCV_HOME/notify.toml``::

    [[webhook]]
    url = "https://hooks.example.test/gcv"     # http(s); shown by its host only
    format = "json"                            # "json" (default) or "slack" ({"text": ...})
    events = ["needs_answer", "needs_authorization", "needs_choice", "needs_decision", "ended"]
    headers = { Authorization = "env:GCV_WEBHOOK_TOKEN" }   # values from the environment
    timeout_seconds = 2                        # per attempt, 0.1..30
    console_url = "https://gcv.studio.test"    # optional: links in the payload

What is sent: after each command that moves a workflow (``gcv run``, ``resume``, ``answer``,
``authorize``, ``decide``, the console's jobs), the workflow's current situation if it is
one a person acts on or an end (``needs_answer``, ``needs_authorization``,
``needs_choice``, ``needs_decision`` at ``evidence_ready``, ``ended`` for any other status
the loop stops at, and each human decision), once per webhook: a transition of the event
log is queued at most once (its sequence number is the key), so a resumed or repeated command
never sends twice.

How it is sent: an outbox (``GCV_HOME/notifications/outbox.sqlite``) holds every queued
delivery and every attempt (the delivery log, ``gcv notify status``). A delivery is tried
at once; a failure (a refused connection, a timeout, a non-2xx answer) is retried with
back-off (0.5 s, 1 s, 2 s, ... at most 5 minutes apart; given up after ``MAX_ATTEMPTS``) in
the same command while its time budget lasts (``budget_seconds`` at the top of the file,
3 s by default), then by the next command or ``gcv notify flush``. A receiver that fails or hangs costs a command at most the budget;
it never changes a workflow's status or its command's exit code.

What is never sent: a token or a secret. Header values are read from the environment at send
time and stored nowhere; the payload is built from the workflow's id, status, reason,
message and request only, passed through the evidence scrubber (secret-looking environment
values, the workspace's paths); the outbox stores the payload and the webhook's host, never
its URL (a Slack-style URL is itself a credential) or its headers.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import tomllib
import urllib.error
import urllib.request
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Literal
from urllib.parse import urlsplit

from filelock import FileLock, Timeout
from pydantic import ConfigDict, Field, ValidationError, field_validator

from gcv.contract.base import GcvModel
from gcv.contract.status import Status
from gcv.evidence.scrub import Scrubber
from gcv.store.errors import StoreError
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.events import parse_events, transitions
from gcv.workflow.state import load_state

CONFIG_FILE = "notify.toml"
OUTBOX_DIR = "notifications"
OUTBOX_FILE = "outbox.sqlite"
BUDGET_SECONDS = 3.0
MAX_ATTEMPTS = 8
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 300.0
REQUEST_CHARS = 300

Kind = Literal["needs_answer", "needs_authorization", "needs_choice", "needs_decision", "ended"]
KINDS: tuple[Kind, ...] = ("needs_answer", "needs_authorization", "needs_choice", "needs_decision", "ended")
_NEEDS = {"needs_clarification": "needs_answer", "awaiting_authorization": "needs_authorization",
          "awaiting_choice": "needs_choice", "evidence_ready": "needs_decision"}
_NEXT = {"needs_answer": 'gcv answer {wf} "ANSWER"', "needs_authorization": "gcv authorize {wf} --actor NAME",
         "needs_choice": "gcv answer {wf} --choose N", "needs_decision": "gcv decide {wf} accept|revise|rollback "
                                                                         "--actor NAME --note TEXT"}
_WHAT = {"needs_answer": "needs an answer", "needs_authorization": "needs an authorization",
         "needs_choice": "needs a choice", "needs_decision": "needs a decision", "ended": "ended"}


class NotifyConfigError(ValueError):
    """``notify.toml`` cannot be used; the message names the file, the field and what is allowed."""


class Webhook(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(max_length=2000)
    format: Literal["json", "slack"] = "json"
    events: tuple[Kind, ...] = KINDS
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_seconds: float = Field(2.0, ge=0.1, le=30)
    console_url: str | None = Field(None, max_length=500)

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL with a host")
        return value

    @field_validator("headers")
    @classmethod
    def _env_only(cls, value: dict[str, str]) -> dict[str, str]:
        for name, source in value.items():
            if not source.startswith("env:") or not source[4:]:
                raise ValueError(f"header {name!r} must be 'env:VARIABLE' (a value in the file would be a "
                                 "secret at rest)")
        return value

    def host(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)

    def key(self, index: int) -> str:
        """Which webhook a delivery belongs to, without its URL: position and host."""
        return f"{index}:{self.host()}"


class NotifyConfig(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    webhook: tuple[Webhook, ...] = Field(default=(), max_length=20)
    # the most a command spends delivering (attempts and back-off waits together)
    budget_seconds: float = Field(BUDGET_SECONDS, ge=0, le=30)


def load_config(home: Path) -> NotifyConfig | None:
    """The workspace's webhooks, or None without a ``notify.toml``."""
    path = Path(home) / CONFIG_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise NotifyConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if len(raw) > 64 * 1024:
        raise NotifyConfigError(f"{path}: {len(raw)} bytes; at most 65536")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise NotifyConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        return NotifyConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise NotifyConfigError(f"{path}: {where}: {first['msg']}") from None


# ---------------------------------------------------------------------------------------------
# the outbox
# ---------------------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS delivery (
  webhook TEXT NOT NULL, workflow_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
  payload TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
  next_at REAL NOT NULL, queued_at REAL NOT NULL, done_at REAL,
  PRIMARY KEY (webhook, workflow_id, seq));
CREATE TABLE IF NOT EXISTS attempt (
  webhook TEXT NOT NULL, workflow_id TEXT NOT NULL, seq INTEGER NOT NULL, number INTEGER NOT NULL,
  at REAL NOT NULL, ms INTEGER NOT NULL, http_status INTEGER, error TEXT);
"""


@contextmanager
def _outbox(home: Path) -> Iterator[sqlite3.Connection]:
    folder = Path(home) / OUTBOX_DIR
    folder.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(folder / OUTBOX_FILE, timeout=10, isolation_level=None)) as db:
        db.execute("PRAGMA busy_timeout = 10000")
        db.executescript(_SCHEMA)
        yield db


def backoff(attempts: int) -> float:
    """Seconds before the next try after ``attempts`` failed ones: 0.5, 1, 2, ... at most 300."""
    return min(FIRST_BACKOFF_S * 2 ** max(0, attempts - 1), MAX_BACKOFF_S)


# ---------------------------------------------------------------------------------------------
# what is sent
# ---------------------------------------------------------------------------------------------

def kind_of(status: str) -> str | None:
    """The notification a status calls for, or None while the loop is between its own steps."""
    if status in _NEEDS:
        return _NEEDS[status]
    try:
        return None if Status(status).running else "ended"
    except ValueError:  # a status this build does not know: a person should look
        return "ended"


def payload(hook: Webhook, *, workflow_id: str, status: str, seq: int, at: float, request: str,
            reason: str | None, message: str | None, scrub: Scrubber) -> dict[str, Any]:
    """The body for ``hook`` (scrubbed: no secret, no local path)."""
    kind = kind_of(status) or "ended"
    text = request if len(request) <= REQUEST_CHARS else request[:REQUEST_CHARS - 1] + "\u2026"
    body: dict[str, Any] = {
        "source": "gcv", "event": f"workflow.{kind}", "kind": kind, "workflow_id": workflow_id, "status": status,
        "terminal_reason": reason, "message": message, "request": text, "seq": seq,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at)),
        "next": _NEXT[kind].format(wf=workflow_id) if kind in _NEXT else None,
    }
    if hook.console_url:
        body["url"] = f"{hook.console_url.rstrip('/')}/workflows/{workflow_id}"
    body = scrub.value(body)
    if hook.format == "slack":
        line = f"GCV: workflow {workflow_id} {_WHAT[kind]} ({status}): {body['request']}"
        if body.get("message"):
            line += f" | {body['message']}"
        if body.get("next"):
            line += f" | next: `{body['next']}`"
        if body.get("url"):
            line += f" | {body['url']}"
        return {"text": line}
    return body


@dataclass(frozen=True)
class Outcome:
    """What one ``notify`` call did: queued deliveries, delivered ones, ones still pending."""

    queued: int = 0
    delivered: int = 0
    failed_attempts: int = 0
    pending: int = 0
    warning: str | None = None


def _queue(db: sqlite3.Connection, config: NotifyConfig, home: Path, wf_id: str, now: float) -> int:
    d = WorkflowDir(Path(home) / "workflows" / wf_id, workspace=Path(home))
    state = load_state(d.read_state())  # not a workflow state: ValueError, a warning, never a failure
    moves = transitions(parse_events(d.events()))
    if not moves:
        return 0
    last = moves[-1]
    status = str(last.target)
    if status != str(state.status) or kind_of(status) is None:
        return 0  # the workflow moved on (or is between steps): nothing a person acts on now
    data = last.data
    scrub = Scrubber(workflow_root=d.root, workspace_root=Path(home))
    queued = 0
    for index, hook in enumerate(config.webhook):
        kind = kind_of(status)
        if kind not in hook.events:
            continue
        body = payload(hook, workflow_id=wf_id, status=status, seq=last.seq, at=last.at,
                       request=state.request, reason=str(state.terminal_reason) if state.terminal_reason else None,
                       message=data.message or state.terminal_message, scrub=scrub)
        cur = db.execute("INSERT OR IGNORE INTO delivery (webhook, workflow_id, seq, kind, payload, next_at, "
                         "queued_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (hook.key(index), wf_id, last.seq, kind,
                          json.dumps(body, ensure_ascii=False, sort_keys=True), now, now))
        queued += cur.rowcount
    return queued


def _send(hook: Webhook, body: str, timeout: float) -> tuple[int | None, str | None]:
    """POST ``body``; (HTTP status, error text). Header values come from the environment now."""
    headers = {"content-type": "application/json", "user-agent": "gcv-notify"}
    for name, source in hook.headers.items():
        value = os.environ.get(source[4:])
        if value is None:
            return None, f"header {name}: ${source[4:]} is not set"
        headers[name] = value
    request = urllib.request.Request(hook.url, data=body.encode("utf-8"), headers=headers, method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the receiver, never a proxy
    try:
        with opener.open(request, timeout=timeout) as response:
            response.read(64 * 1024)
            return int(response.status), None
    except urllib.error.HTTPError as exc:
        return int(exc.code), f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return None, f"{type(reason).__name__}: {reason}"[:300]


def _deliver(db: sqlite3.Connection, config: NotifyConfig, deadline: float) -> tuple[int, int, int]:
    hooks = {hook.key(i): hook for i, hook in enumerate(config.webhook)}
    delivered = failed = 0
    while True:
        now = time.time()
        left = deadline - time.monotonic()
        if left <= 0.05:
            break
        row = db.execute("SELECT webhook, workflow_id, seq, payload, attempts, next_at FROM delivery "
                         "WHERE state = 'pending' ORDER BY next_at, queued_at LIMIT 1").fetchone()
        if row is None:
            break
        key, wf_id, seq, body, attempts, next_at = row
        hook = hooks.get(key)
        if hook is None:  # the webhook left notify.toml: nobody to send it to
            db.execute("UPDATE delivery SET state = 'dropped', done_at = ? WHERE webhook = ? AND workflow_id = ? "
                       "AND seq = ?", (now, key, wf_id, seq))
            continue
        if next_at > now:
            wait = next_at - now
            if wait >= left - 0.05:
                break
            time.sleep(wait)
            continue
        started = time.monotonic()
        status, error = _send(hook, body, min(hook.timeout_seconds, max(0.05, left)))
        ms = int(round((time.monotonic() - started) * 1000))
        ok = error is None and status is not None and 200 <= status < 300
        attempts += 1
        db.execute("INSERT INTO attempt VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (key, wf_id, seq, attempts, now, ms, status, error))
        if ok:
            delivered += 1
            db.execute("UPDATE delivery SET state = 'delivered', attempts = ?, done_at = ? WHERE webhook = ? AND "
                       "workflow_id = ? AND seq = ?", (attempts, time.time(), key, wf_id, seq))
        else:
            failed += 1
            gave_up = attempts >= MAX_ATTEMPTS
            db.execute("UPDATE delivery SET state = ?, attempts = ?, next_at = ?, done_at = ? WHERE webhook = ? "
                       "AND workflow_id = ? AND seq = ?",
                       ("gave_up" if gave_up else "pending", attempts, time.time() + backoff(attempts),
                        time.time() if gave_up else None, key, wf_id, seq))
    return delivered, failed, db.execute("SELECT COUNT(*) FROM delivery WHERE state = 'pending'").fetchone()[0]


def notify(home: Path, wf_id: str | None = None, *, budget_seconds: float | None = None) -> Outcome:
    """Queue ``wf_id``'s current situation (if a person acts on it) and deliver what is due.

    Never raises for a receiver's failure or a bad ``notify.toml``: the outcome carries a
    warning, which the caller prints; the workflow is not touched."""
    try:
        config = load_config(Path(home))
    except NotifyConfigError as exc:
        return Outcome(warning=f"notifications are off: {exc}")
    if config is None or not config.webhook:
        return Outcome()
    budget = config.budget_seconds if budget_seconds is None else budget_seconds
    deadline = time.monotonic() + max(0.0, budget)
    try:
        with _outbox(Path(home)) as db:
            queued = _queue(db, config, Path(home), wf_id, time.time()) if wf_id else 0
            try:  # one sender at a time per workspace (threads and processes): never a delivery sent twice
                with FileLock(Path(home) / OUTBOX_DIR / "send.lock", timeout=0):
                    delivered, failed, pending = _deliver(db, config, deadline)
            except Timeout:  # another command is sending; it takes what was queued here too
                delivered, failed = 0, 0
                pending = db.execute("SELECT COUNT(*) FROM delivery WHERE state = 'pending'").fetchone()[0]
    except (sqlite3.Error, OSError, ValueError, StoreError) as exc:
        return Outcome(warning=f"notifications could not be queued or sent: {type(exc).__name__}: {exc}")
    warning = None
    if failed and pending:
        warning = (f"{pending} notification(s) not delivered yet ({failed} failed attempt(s)); "
                   "retried by the next command or `gcv notify flush`")
    return Outcome(queued, delivered, failed, pending, warning)


def deliveries(home: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The delivery log, newest first: each delivery with its attempts."""
    path = Path(home) / OUTBOX_DIR / OUTBOX_FILE
    if not path.is_file():
        return []
    with _outbox(Path(home)) as db:
        rows = db.execute("SELECT webhook, workflow_id, seq, kind, state, attempts, queued_at, done_at, next_at "
                          "FROM delivery ORDER BY queued_at DESC, seq DESC LIMIT ?", (limit,)).fetchall()
        out = []
        for key, wf_id, seq, kind, state, attempts, queued_at, done_at, next_at in rows:
            tries = db.execute("SELECT number, at, ms, http_status, error FROM attempt WHERE webhook = ? AND "
                               "workflow_id = ? AND seq = ? ORDER BY number", (key, wf_id, seq)).fetchall()
            out.append({"webhook": key, "workflow_id": wf_id, "seq": seq, "kind": kind, "state": state,
                        "attempts": [{"number": n, "at": at, "ms": ms, "http_status": st, "error": err}
                                     for n, at, ms, st, err in tries],
                        "queued_at": queued_at, "done_at": done_at,
                        "next_at": next_at if state == "pending" else None})
        return out


def sample_payload(hook: Webhook) -> dict[str, Any]:
    """What ``gcv notify test`` sends: a payload of the configured form that names no workflow."""
    return payload(hook, workflow_id="wf-test", status="evidence_ready", seq=0, at=time.time(),
                   request="a test notification from gcv notify test", reason=None,
                   message="this is a test; no workflow is waiting", scrub=Scrubber())


def send_test(home: Path) -> list[dict[str, Any]]:
    """Send one test payload to every webhook, once, now (nothing is queued); the results."""
    config = load_config(Path(home))
    if config is None:
        raise NotifyConfigError(f"{Path(home) / CONFIG_FILE}: no such file; it names the webhooks (docs/notifications.md)")
    results = []
    for index, hook in enumerate(config.webhook):
        started = time.monotonic()
        status, error = _send(hook, json.dumps(sample_payload(hook)), hook.timeout_seconds)
        results.append({"webhook": hook.key(index), "http_status": status, "error": error,
                        "ok": error is None and status is not None and 200 <= status < 300,
                        "ms": int(round((time.monotonic() - started) * 1000))})
    return results


__all__ = ["notify", "deliveries", "send_test", "load_config", "NotifyConfig", "NotifyConfigError", "Webhook",
           "Outcome", "kind_of", "payload", "backoff", "KINDS", "BUDGET_SECONDS", "MAX_ATTEMPTS"]
