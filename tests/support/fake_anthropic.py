"""A local fake of the Anthropic Messages API: a real HTTP server on 127.0.0.1, scripted.

The official SDK reaches it through ``base_url``, so the provider's real code path runs:
request building, the SDK's own retries and timeouts, response parsing. Each test scripts
the replies in order (``server.reply(...)``); every request is recorded with its headers
and JSON body (``server.requests``) so a test can assert exactly what was sent, including
how many HTTP attempts the SDK made. A request with nothing left in the script gets a 400
with ``x-should-retry: false``, which the provider reports as unavailable: a test that
scripted too little fails loudly instead of hanging.

Use the ``fake_anthropic`` fixture: it starts the server in a thread for one test, points
``ANTHROPIC_BASE_URL`` at it, sets a test key and small SDK retry/timeout settings, and
stops it afterwards.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

TEST_KEY = "sk-ant-test-0123456789abcdef-NEVER-LOGGED"


@dataclass
class Reply:
    """One scripted answer: an HTTP status, a JSON body, headers, an optional delay."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def usage(input_tokens: int = 100, output_tokens: int = 50, cache_creation: int = 0,
          cache_read: int = 0) -> dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens,
            "cache_creation_input_tokens": cache_creation, "cache_read_input_tokens": cache_read}


class FakeAnthropic:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                with server._lock:
                    server.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = server.script.popleft() if server.script else Reply(
                        400, _error("invalid_request_error", "fake server: no scripted reply left"),
                        {"x-should-retry": "false"})
                if reply.delay and server._stopping.wait(reply.delay):
                    return
                data = json.dumps(reply.body).encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.send_header("request-id", f"req_fake_{len(server.requests)}")
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       name="fake-anthropic", daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAnthropic:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    # -- scripting ---------------------------------------------------------------------------
    def reply(self, *replies: Reply) -> FakeAnthropic:
        with self._lock:
            self.script.extend(replies)
        return self

    def next_id(self) -> str:
        self._ids += 1
        return f"toolu_fake_{self._ids:03d}"

    def message(self, content: list[dict[str, Any]], *, stop_reason: str = "tool_use",
                usage_: dict[str, int] | None = None, delay: float = 0.0,
                model: str = "claude-sonnet-5-5") -> Reply:
        body = {"id": f"msg_fake_{self._ids}", "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop_reason, "stop_sequence": None,
                "usage": usage_ or usage()}
        return Reply(200, body, delay=delay)

    def tool(self, name: str, tool_input: dict[str, Any], *, usage_: dict[str, int] | None = None,
             delay: float = 0.0, text: str | None = None) -> Reply:
        content: list[dict[str, Any]] = []
        if text:
            content.append({"type": "text", "text": text})
        content.append({"type": "tool_use", "id": self.next_id(), "name": name, "input": tool_input})
        return self.message(content, usage_=usage_, delay=delay)

    def error(self, status: int, kind: str, message: str, *, retry_after_ms: str | None = "1") -> Reply:
        headers = {"retry-after-ms": retry_after_ms} if retry_after_ms is not None else {}
        return Reply(status, _error(kind, message), headers)

    # -- reading what was sent ---------------------------------------------------------------
    def messages_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/v1/messages")]


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


@pytest.fixture
def fake_anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    """A started fake server, with the environment pointing the anthropic provider at it."""
    server = FakeAnthropic().start()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_PROFILE", "GCV_ANTHROPIC_MODEL",
                 "GCV_ANTHROPIC_MAX_TOKENS", "GCV_AGENT_MAX_RETRIES", "GCV_ANTHROPIC_TOOL_CHOICE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("GCV_ANTHROPIC_MAX_RETRIES", "1")
    monkeypatch.setenv("GCV_ANTHROPIC_TIMEOUT", "10")
    try:
        yield server
    finally:
        server.stop()


def wire_form(decision: Any) -> dict[str, Any]:
    """A RequirementDecision as a good model sends it through the strict tool schema: every field
    present (the strict schema requires them all, null where unset), ``asked`` as JSON text."""
    data = decision.model_dump(mode="json")
    data.pop("asks", None)  # the tool omits the offline reader's typed questions
    if data["goal"] is not None:
        data["goal"].pop("goal")
        data["goal"].pop("source_text")
        data["goal"]["constraints"].setdefault("require_dodgeable", None)
        for edit in data["goal"]["edits"]:
            edit.setdefault("qualitative", None)
    if data["candidate"] is not None:
        data["candidate"]["targets"].setdefault("require_dodgeable", False)
    for issue in data["issues"]:
        issue["asked"] = json.dumps(issue["asked"])
    return data
