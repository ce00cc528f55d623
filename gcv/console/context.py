"""The console's shared parts (workspace, jobs, sessions, viewer) and who the caller is."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request

from gcv.console.batch_jobs import BatchJobs
from gcv.console.fair import FairCache
from gcv.console.jobs import Jobs
from gcv.console.security import (CSRF_FIELD, CSRF_HEADER, SAFE_METHODS, SESSION_COOKIE, Caller, Origins,
                                  default_allowed_hosts)
from gcv.console.sessions import (LOCAL_BINDING, SESSION_MAX_AGE, Session, Sessions, SessionStore, WorkspaceSecret,
                                  workspace_secret)
from gcv.console.users import ROLE_OF_ACTION, ROLES, User, Users, clean_name
from gcv.console.viewer import FightViewer
from gcv.store.catalog import Workspace
from gcv.workflow.activities import Activities
from gcv.workflow.loop import default_actor


class ConsoleError(Exception):
    """An answer other than 200 that the caller can act on (never carries internals)."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


@dataclass
class ConsoleConfig:
    workspace: Path
    host: str = "127.0.0.1"
    port: int = 8765
    users: Users | None = None
    allow_hosts: tuple[str, ...] = ()
    tls: bool = False  # served over HTTPS: origins are https, the session cookie is Secure
    secret: bytes | None = None  # default: kept in the workspace, so a restart keeps sessions
    session_seconds: int = SESSION_MAX_AGE  # a session ends this long after sign-in (gcv serve --session-seconds)
    activities_factory: Callable[[], Activities | None] = field(default=lambda: None)
    clock: Callable[[], float] = time.time


class Console:
    def __init__(self, config: ConsoleConfig) -> None:
        self.config = config
        self.ws = Workspace(config.workspace)
        self.cache_root = config.workspace / "cache"
        self.jobs = Jobs(self.ws, activities_factory=config.activities_factory, clock=config.clock)
        self.batch_jobs = BatchJobs(self.ws)
        secret = WorkspaceSecret(config.secret) if config.secret is not None else workspace_secret(config.workspace)
        # for whoever starts the console to say (gcv serve prints them before it listens)
        self.warnings = [secret.warning] if secret.warning else []
        self.sessions = Sessions(secret.key, SessionStore(config.workspace / "console" / "sessions.sqlite"),
                                 binding=self.binding, max_age=config.session_seconds, clock=config.clock)
        self.origins = Origins(default_allowed_hosts(config.host, config.allow_hosts), config.port, config.tls)
        self.viewer = FightViewer(self.cache_root)
        self.fair = FairCache(self.cache_root)
        self.started = time.time()

    @property
    def users(self) -> Users | None:
        return self.config.users

    @property
    def binding(self) -> str:
        """What this console's sessions are valid for: the loopback single-user console, or the
        ``--users`` console of this very users database."""
        return LOCAL_BINDING if self.users is None else f"users:{self.users.digest}"

    # ------------------------------------------------------------------ who is asking
    def caller(self, request: Request) -> Caller:
        """Who is asking, from the headers alone (the gate asks before any body is read; the
        answer is kept for the route in the request's state)."""
        known = request.scope.get("state", {}).get("gcv_caller")
        if isinstance(known, Caller):
            return known
        caller = self._caller(request)
        request.scope.setdefault("state", {})["gcv_caller"] = caller
        return caller

    def _caller(self, request: Request) -> Caller:
        auth = request.headers.get("authorization")
        if auth is not None and self.users is not None:
            scheme, _, token = auth.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise ConsoleError(401, "the Authorization header must be 'Bearer TOKEN'")
            user = self.users.find(token.strip())
            if user is None:
                raise ConsoleError(401, "unknown token")
            return Caller(user=user, via="token")
        session = self.sessions.read(request.cookies.get(SESSION_COOKIE))
        if session is not None:
            user = self.session_user(session)
            if user is not None:
                return Caller(user=user, via="browser", session=session)
        if self.users is None:
            return Caller(user=None, via="local")
        return Caller(user=None, via="anonymous")

    def session_user(self, session: Session) -> User | None:
        if self.users is None:
            return User(name=session.name, roles=frozenset(ROLES), local=True)
        return self.users.named(session.name)

    def sign_out(self, caller: Caller) -> None:
        """End the caller's session on the server: its cookie is refused from now on, here and
        after a restart, whoever holds a copy."""
        if caller.session is not None:
            self.sessions.end(caller.session)

    def signed_in(self, request: Request) -> Caller:
        caller = self.caller(request)
        if caller.via == "anonymous":
            raise ConsoleError(401, "sign in first (a browser session, or Authorization: Bearer TOKEN)")
        return caller

    async def check_write(self, request: Request, caller: Caller, form_token: str | None = None) -> None:
        """CSRF for browser sessions; JSON only for a loopback console's credential-less scripts."""
        if request.method in SAFE_METHODS:
            return
        if caller.via == "browser":
            assert caller.session is not None
            token = request.headers.get(CSRF_HEADER) or form_token
            if not self.sessions.csrf_ok(caller.session, token):
                raise ConsoleError(403, "missing or wrong CSRF token; reload the page and try again")
        elif caller.via == "local":
            ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                raise ConsoleError(415, "send JSON (Content-Type: application/json)")
        elif caller.via == "anonymous":
            raise ConsoleError(401, "sign in first")

    def actor(self, caller: Caller, action: str, given: str | None, *, required: bool) -> str:
        """Who the records will name: the signed-in user; on a loopback console's local API the
        ``actor`` given (required where the CLI requires ``--actor``), else the login name."""
        user = caller.user
        if user is not None:
            if not user.may(action):
                raise ConsoleError(403, f"{user.name} may not {action.replace('_', ' ')}: that needs the "
                                        f"{ROLE_OF_ACTION[action]} role")
            if given and given.strip() and clean(given) != user.name:
                raise ConsoleError(403, f"you are signed in as {user.name}; actions are recorded under your own name")
            return user.name
        if caller.via != "local":
            raise ConsoleError(401, "sign in first")
        if given is None or not given.strip():
            if required:
                raise ConsoleError(422, "actor: who does this (a name) is required", field="actor")
            return default_actor()
        return clean(given)

    def csrf_for(self, caller: Caller) -> str:
        return self.sessions.csrf_token(caller.session) if caller.session else ""


def clean(name: str) -> str:
    try:
        return clean_name(name)
    except ValueError as exc:
        raise ConsoleError(422, f"actor: {exc}", field="actor") from None


__all__ = ["Console", "ConsoleConfig", "ConsoleError", "workspace_secret", "CSRF_FIELD"]
