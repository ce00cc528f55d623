"""The gate every request passes before any of its body is read.

A ``--users`` console used to read a 200 MB body from an anonymous client before answering
401: the web framework reads and parses a route's body before the route (and its checks)
run. This pure-ASGI middleware runs first and decides from the headers alone:

* **who is asking** (a session cookie, ``Authorization: Bearer``, a loopback script): a
  state-changing request from nobody is refused (401 on the API, to the sign-in page for a
  form), and a wrong Bearer token is 401;
* **CSRF**: a state-changing request made with a session cookie carries the session's token
  in ``X-CSRF-Token``, or it is a form post whose ``Origin`` header names this server (the
  Host/Origin middleware has checked it is this server); the form's own ``csrf`` field is
  checked again by the route once the small body is read. A loopback console's script
  without credentials sends JSON (a cross-site form cannot);
* **how large a body may be**, per route (:func:`body_cap`): 413 past the cap, from
  ``Content-Length`` when given, and while reading a chunked body otherwise, never reading
  past the cap. Every refusal with a body pending closes the connection, so the rest of the
  body is never read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from gcv.console.context import Console, ConsoleError
from gcv.console.security import CSRF_HEADER, SAFE_METHODS, SECURITY_HEADERS

KIB = 1024
# A form or a JSON body of this console is a few kilobytes (a request, an answer or a note
# is at most 4000 characters: 24 KB of JSON when every one is \u-escaped).
DEFAULT_CAP = 64 * KIB
CAPS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"^/login$"), 8 * KIB),  # a name or a token; the only body read from anyone
    (re.compile(r"^/logout$"), 4 * KIB),  # the CSRF token
    (re.compile(r"^(/api)?/workflows/[^/]+/resume$"), 4 * KIB),
)
SAFE_CAP = 4 * KIB  # GET and HEAD carry no body worth reading
OPEN_PATHS = frozenset({"/login"})  # the one state-changing route open to everyone

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def body_cap(method: str, path: str) -> int:
    """The largest body (bytes) a request to ``path`` may carry."""
    if method in SAFE_METHODS:
        return SAFE_CAP
    return next((cap for pattern, cap in CAPS if pattern.match(path)), DEFAULT_CAP)


class Refusal(Exception):
    def __init__(self, status: int, message: str, location: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.location = location


class RequestGate:
    def __init__(self, app: Callable[..., Awaitable[None]], console: Console) -> None:
        self.app = app
        self.console = console

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        pending = "transfer-encoding" in headers or headers.get("content-length", "0").strip() not in ("", "0")
        try:
            cap = body_cap(method, path)
            length = _content_length(headers)
            if method not in SAFE_METHODS:  # a session is looked up in the workspace's table: off the event loop
                await run_in_threadpool(self.check_caller, Request(scope), headers, path)
            if length is not None and length > cap:
                raise Refusal(413, f"the body is {length} bytes; this route takes at most {cap}")
            if length is None and "transfer-encoding" in headers:
                receive = await _read_capped(receive, cap)
        except Refusal as exc:
            await _refuse(send, exc, close=pending)
            return
        await self.app(scope, receive, send)

    def check_caller(self, request: Request, headers: dict[str, str], path: str) -> None:
        """Authentication and CSRF of a state-changing request, from its headers."""
        try:
            caller = self.console.caller(request)
        except ConsoleError as exc:  # a malformed or unknown Bearer token
            raise Refusal(exc.status, exc.message) from None
        if path in OPEN_PATHS:
            return
        if path.startswith("/api/"):
            if caller.via == "anonymous":
                raise Refusal(401, "sign in first (a browser session, or Authorization: Bearer TOKEN)")
            if caller.via == "browser":
                assert caller.session is not None
                if not self.console.sessions.csrf_ok(caller.session, headers.get(CSRF_HEADER)):
                    raise Refusal(403, "missing or wrong CSRF token (X-CSRF-Token); reload the page and try again")
            elif caller.via == "local":
                ctype = headers.get("content-type", "").split(";")[0].strip().lower()
                if ctype != "application/json":
                    raise Refusal(415, "send JSON (Content-Type: application/json)")
            return
        if caller.via != "browser":  # the pages' forms are for a signed-in browser
            raise Refusal(303, "sign in first", location="/login?" + urlencode({"next": path}))
        assert caller.session is not None
        if self.console.sessions.csrf_ok(caller.session, headers.get(CSRF_HEADER)):
            return
        # a form post: browsers send Origin with every POST (checked to be this server already)
        if "origin" not in headers and headers.get("sec-fetch-site") != "same-origin":
            raise Refusal(403, "missing CSRF proof: a form post must come from this console's own page "
                               "(Origin header) or carry X-CSRF-Token")


def _content_length(headers: dict[str, str]) -> int | None:
    value = headers.get("content-length")
    if value is None:
        return None
    value = value.strip()
    if not value.isdigit() or len(value) > 18:
        raise Refusal(400, "malformed Content-Length")
    return int(value)


async def _read_capped(receive: Receive, cap: int) -> Receive:
    """Read a body of unknown length up to ``cap`` bytes (413 beyond), then hand it on whole."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away; the app sees the disconnect
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            raise Refusal(413, f"the body is more than {cap} bytes, the most this route takes")
        parts.append(chunk)
        if not message.get("more_body", False):
            break
    body = b"".join(parts)
    given = False

    async def replay() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(send: Send, exc: Refusal, *, close: bool) -> None:
    body = json.dumps({"error": exc.message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store"), *SECURITY_HEADERS]
    if exc.location is not None:
        headers.append((b"location", exc.location.encode("latin-1")))
    if close:  # the body is never read: the connection cannot be used again
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": exc.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


__all__ = ["RequestGate", "body_cap", "DEFAULT_CAP", "CAPS"]
