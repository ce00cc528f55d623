"""What keeps the console safe on a studio network.

* **Host and Origin** (DNS rebinding, cross-site requests): every request's ``Host`` must
  name this server (one of its allowed host names, on its port); a request that carries an
  ``Origin`` (or ``Sec-Fetch-Site: cross-site``) must come from this very server. Refused
  with 400 / 403 before any route runs.
* **Sessions** (``gcv.console.sessions``): a browser signs in once (its name on a loopback
  console without users; its token with ``--users``) and gets a signed, HttpOnly,
  SameSite=Strict cookie that names the user and a random session id, signed with a key of
  this kind of console (loopback, or these users), with an expiry, live only while the
  workspace's session table holds it (sign-out ends it). Roles are looked up on every
  request, never trusted from the cookie.
* **Before any body is read** (``gcv.console.gate``): who is asking (cookie, Bearer token,
  loopback script) and the CSRF rules are checked from the headers, and every route caps
  its body (413 past the cap).
* **CSRF**: every state-changing request made with a session cookie carries the session's
  CSRF token (form field ``csrf`` or header ``X-CSRF-Token``): an HMAC of the session id, so
  it cannot be guessed from the page of another session. Requests without a cookie (scripts:
  ``Authorization: Bearer``, or a loopback console's local API) are not sent by browsers on
  their own; on a loopback console without users such a request must be JSON (a cross-site
  form cannot send JSON without a preflight this server never grants).
* **Headers**: a strict Content-Security-Policy (scripts and styles from this server only,
  no inline script, no framing by others), ``X-Content-Type-Options``, ``Referrer-Policy``.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import psutil

from gcv.console.sessions import SESSION_MAX_AGE, Session, Sessions
from gcv.console.users import User

SESSION_COOKIE = "gcv_session"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def is_loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def default_allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names a browser may use to reach a server bound to ``bind``.

    Loopback: the loopback names. One address or name: that one (plus the loopback names if
    it is loopback). The wildcard address: every address of this machine's interfaces and its
    host names. ``extra``: names the operator adds (``--allow-host``), e.g. a DNS alias."""
    names = {h.strip("[]").lower() for h in extra if h.strip()}
    bind_name = bind.strip("[]").lower()
    if is_loopback(bind_name):
        names |= LOOPBACK_NAMES | {bind_name}
    elif is_wildcard(bind_name):
        names |= LOOPBACK_NAMES
        for addrs in psutil.net_if_addrs().values():
            for a in addrs:
                if a.family in (socket.AF_INET, socket.AF_INET6):
                    names.add(a.address.split("%", 1)[0].lower())
        for name in (socket.gethostname(), socket.getfqdn()):
            if name:
                names.add(name.lower())
    else:
        names.add(bind_name)
    return frozenset(names)


def split_host(value: str) -> tuple[str, int | None] | None:
    """``name[:port]`` or ``[v6][:port]`` -> (name lowercased, port or None); None if malformed."""
    try:
        parts = urlsplit("//" + value)
        port = parts.port
        name = parts.hostname
    except ValueError:
        return None
    if not name or parts.username is not None or parts.path or parts.query:
        return None
    return name.lower(), port


@dataclass(frozen=True)
class Origins:
    allowed_hosts: frozenset[str]
    port: int
    tls: bool = False  # served over HTTPS (gcv serve --tls-cert/--tls-key)

    @property
    def default_port(self) -> int:
        """The port a browser leaves out of Host and Origin for this scheme."""
        return 443 if self.tls else 80

    def host_ok(self, host_header: str | None) -> bool:
        if not host_header:
            return False
        parsed = split_host(host_header)
        if parsed is None:
            return False
        name, port = parsed
        return name in self.allowed_hosts and (port or self.default_port) == self.port

    def origin_ok(self, origin: str, host_header: str | None) -> bool:
        """The origin is this server, as the browser addressed it (same host and port as Host)."""
        if origin == "null":
            return False
        try:
            parts = urlsplit(origin)
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        # a plain-HTTP server may sit behind a TLS proxy (https origins); a TLS server is never http
        schemes = ("https",) if self.tls else ("http", "https")
        if parts.scheme not in schemes or not parts.hostname or parts.path not in ("", "/"):
            return False
        own = split_host(host_header or "")
        if own is None:
            return False
        return (parts.hostname.lower() == own[0] and port == (own[1] or self.default_port)
                and self.host_ok(host_header))


class SecurityMiddleware:
    """Pure ASGI (so server-sent events stream unbuffered): checks Host and Origin first,
    then adds the security headers to every response."""

    def __init__(self, app: Callable[..., Awaitable[None]], origins: Origins) -> None:
        self.app = app
        self.origins = origins

    async def _refuse(self, send: Callable[..., Awaitable[None]], status: int, message: str) -> None:
        body = ('{"error": "%s"}' % message).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                       send: Callable[..., Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host")
        if not self.origins.host_ok(host):
            await self._refuse(send, 400, "unknown Host header: this console answers only to its own address "
                                          "(see --allow-host)")
            return
        origin = headers.get("origin")
        if origin is not None and not self.origins.origin_ok(origin, host):
            await self._refuse(send, 403, "cross-origin request refused (the Origin is not this console)")
            return
        if headers.get("sec-fetch-site") == "cross-site" and scope["method"] not in SAFE_METHODS:
            await self._refuse(send, 403, "cross-site request refused")
            return

        started = time.perf_counter()

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                existing = {k.lower() for k, _ in message.get("headers", [])}
                # Server-Timing: the server's own time to the first byte (benchmarks/bench_console.py reads it)
                timing = f"app;dur={(time.perf_counter() - started) * 1000:.2f}".encode()
                message = {**message, "headers": [*message.get("headers", []),
                                                  *[(k, v) for k, v in SECURITY_HEADERS if k not in existing],
                                                  (b"server-timing", timing)]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


@dataclass(frozen=True)
class Caller:
    """Who is asking, and how: ``browser`` (a session cookie: CSRF applies), ``token`` (Bearer)
    or ``local`` (a loopback console's script, without credentials)."""

    user: User | None
    via: str  # "browser" | "token" | "local" | "anonymous"
    session: Session | None = None


__all__ = ["SecurityMiddleware", "Origins", "Sessions", "Caller", "default_allowed_hosts", "is_loopback",
           "is_wildcard", "SESSION_COOKIE", "SESSION_MAX_AGE", "CSRF_FIELD", "CSRF_HEADER", "SAFE_METHODS", "CSP"]
