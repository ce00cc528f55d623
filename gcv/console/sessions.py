"""Browser sessions of the console: signed cookies bound to the console that issued them,
with an issue time and an expiry, and a table in the workspace that sign-out ends them in.

Why each part is there:

* **A key per kind of console.** Several consoles may serve one workspace: ``gcv serve``
  on loopback (anyone at this machine signs in under any name) and ``gcv serve --users FILE``
  (named users with tokens). They share the workspace's ``console/secret.key``, so each signs
  with a key derived from it and from its *binding*: ``local``, or ``users:`` and the digest
  of its users database. A cookie made on the loopback console under a reviewer's name is
  then no session at all on the ``--users`` console, nor on one with another users file.
* **An issue time and an expiry** inside the signed payload (``iat``, ``exp``): the server
  refuses an expired cookie whatever the browser kept.
* **A session table** (``console/sessions.sqlite``, in the workspace): a cookie is honoured
  only while its session's row is there, not revoked and not expired. Sign-out revokes the
  row, so a copied cookie dies with it, and the record survives a restart. The table keeps
  the sha256 of each session id, never the id itself (the CSRF token derives from the id).
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import secrets
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock
from itsdangerous import BadSignature, URLSafeTimedSerializer

from gcv.store.errors import StoreError

SESSION_MAX_AGE = 12 * 3600
MIN_SECRET_BYTES = 32
MAX_SECRET_BYTES = 4096
MIN_DISTINCT_BYTES = 8  # 32 random bytes hold ~30 distinct values; 64 hex digits at least ~14
LOCAL_BINDING = "local"
TABLE = """CREATE TABLE IF NOT EXISTS sessions (
    sid_sha256 TEXT PRIMARY KEY, binding TEXT NOT NULL, name TEXT NOT NULL,
    issued_at REAL NOT NULL, expires_at REAL NOT NULL, revoked_at REAL)"""


class SessionStoreError(StoreError):
    """The session table or the key file cannot be used: the message names the file."""


@dataclass(frozen=True)
class WorkspaceSecret:
    key: bytes
    warning: str | None = None  # set when a weak key file was replaced


def weak_reason(data: bytes) -> str | None:
    """Why ``data`` must not sign sessions (None when it may)."""
    if len(data) < MIN_SECRET_BYTES:
        return f"it holds {len(data)} byte(s), fewer than {MIN_SECRET_BYTES}"
    if len(data) > MAX_SECRET_BYTES:
        return f"it holds more than {MAX_SECRET_BYTES} bytes: not a key this console wrote"
    if len(set(data)) < MIN_DISTINCT_BYTES:
        return f"it holds only {len(set(data))} distinct byte value(s): not random"
    return None


def _read_key_file(path: Path) -> bytes | None:
    """The key file's bytes (None when absent). A symlink, FIFO, device or folder in its place is
    refused naming the file: reading one could block or never end, and a link may point anywhere."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SessionStoreError(f"the console's key file {path} is a symbolic link; it must be a regular "
                                    "file: remove it (a new key is made, everyone signs in again)") from None
        if exc.errno == errno.EISDIR:
            raise SessionStoreError(f"the console's key file {path} is a folder; it must be a regular file: "
                                    "remove it (a new key is made, everyone signs in again)") from None
        raise SessionStoreError(f"cannot read the console's key file {path}: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SessionStoreError(f"the console's key file {path} is not a regular file (a FIFO, device or "
                                    "socket); remove it (a new key is made, everyone signs in again)")
        return os.read(fd, MAX_SECRET_BYTES + 1)
    finally:
        os.close(fd)


def workspace_secret(root: Path) -> WorkspaceSecret:
    """The workspace's session secret (``console/secret.key``, readable by its owner only).

    Made on first use; a weak one (empty, short, not random: anyone could then sign a session
    for any user) is replaced atomically, with a warning, and never used. A lock makes two
    consoles starting together agree on one key."""
    path = root / "console" / "secret.key"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SessionStoreError(f"cannot make the folder {path.parent}: {exc.strerror}") from None
    data = _read_key_file(path)
    if data is not None and weak_reason(data) is None:
        return WorkspaceSecret(data)
    try:
        with FileLock(str(path.with_name(".secret.key.lock")), timeout=30):
            data = _read_key_file(path)  # another console may have made it meanwhile
            if data is not None and weak_reason(data) is None:
                return WorkspaceSecret(data)
            why = weak_reason(data) if data is not None else None
            new = secrets.token_bytes(MIN_SECRET_BYTES)
            tmp = path.with_name(f".secret.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(new)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise SessionStoreError(f"cannot write the console's key file {path}: {exc.strerror or exc}") from None
    if why is None:
        return WorkspaceSecret(new)
    return WorkspaceSecret(new, f"warning: the console's key file {path} was weak ({why}); it was replaced by a "
                                "new random key, so sessions signed before are void and everyone signs in again")


def session_key(secret: bytes, binding: str) -> bytes:
    """The signing key of one kind of console: HMAC(workspace secret, binding)."""
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(f"a session secret must be at least {MIN_SECRET_BYTES} bytes")
    return hmac.new(secret, b"gcv-console-session\0" + binding.encode("utf-8"), hashlib.sha256).digest()


def _sid_digest(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8")).hexdigest()


class SessionStore:
    """The workspace's session table (SQLite: several consoles and restarts share it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as exc:
            raise SessionStoreError(f"cannot use the session table {path}: {exc.strerror}") from None
        if mode is not None and not stat.S_ISREG(mode):
            raise SessionStoreError(f"the session table {path} is not a regular file; remove it (everyone signs "
                                    "in again)")
        with self._db(write=True) as db:
            db.execute(TABLE)

    @contextmanager
    def _db(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise SessionStoreError(f"cannot open the session table {self.path}: {exc}") from None
        try:
            db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise SessionStoreError(f"the session table {self.path} cannot be used ({exc}); stop the consoles, "
                                    "move it away and start again (everyone signs in again)") from None
        finally:
            db.close()

    def add(self, sid: str, binding: str, name: str, issued_at: float, expires_at: float) -> None:
        with self._db(write=True) as db:
            db.execute("DELETE FROM sessions WHERE expires_at < ?", (issued_at,))  # expired rows go on sign-in
            db.execute("INSERT INTO sessions VALUES (?,?,?,?,?,NULL)",
                       (_sid_digest(sid), binding, name, issued_at, expires_at))

    def live(self, sid: str, binding: str, name: str, now: float) -> bool:
        with self._db() as db:
            row = db.execute("SELECT binding, name, expires_at, revoked_at FROM sessions WHERE sid_sha256=?",
                             (_sid_digest(sid),)).fetchone()
        return (row is not None and row[0] == binding and row[1] == name and row[3] is None
                and now < float(row[2]))

    def revoke(self, sid: str, at: float) -> None:
        with self._db(write=True) as db:
            db.execute("UPDATE sessions SET revoked_at=? WHERE sid_sha256=? AND revoked_at IS NULL",
                       (at, _sid_digest(sid)))


@dataclass(frozen=True)
class Session:
    name: str
    sid: str
    issued_at: float
    expires_at: float

    def __getitem__(self, key: str) -> str:  # the older dict view ({"n": name, "sid": id})
        return {"n": self.name, "sid": self.sid}[key]


class Sessions:
    """Signed session cookies of one console, and the CSRF token of each session."""

    def __init__(self, secret: bytes, store: SessionStore, *, binding: str = LOCAL_BINDING,
                 max_age: int = SESSION_MAX_AGE, clock: Callable[[], float] = time.time) -> None:
        self.binding = binding
        self.key = session_key(secret, binding)
        self.store = store
        self.max_age = max_age
        self.clock = clock
        self.serializer = URLSafeTimedSerializer(self.key, salt="gcv-console-session")

    def new(self, name: str) -> str:
        now = self.clock()
        sid = secrets.token_urlsafe(18)
        exp = now + self.max_age
        self.store.add(sid, self.binding, name, now, exp)
        return self.serializer.dumps({"n": name, "sid": sid, "iat": round(now, 3), "exp": round(exp, 3),
                                      "b": self.binding})

    def read(self, cookie: str | None) -> Session | None:
        """The session a cookie names, if this console issued it and it is live now."""
        if not cookie or len(cookie) > 4096:
            return None
        try:
            data = self.serializer.loads(cookie, max_age=self.max_age)
        except BadSignature:
            return None
        if not isinstance(data, dict) or data.get("b") != self.binding:
            return None
        name, sid, iat, exp = data.get("n"), data.get("sid"), data.get("iat"), data.get("exp")
        if not (isinstance(name, str) and isinstance(sid, str) and isinstance(iat, (int, float))
                and isinstance(exp, (int, float))):
            return None
        now = self.clock()
        if not iat - 60 <= now < exp or exp - iat > self.max_age + 1:
            return None
        if not self.store.live(sid, self.binding, name, now):
            return None
        return Session(name=name, sid=sid, issued_at=float(iat), expires_at=float(exp))

    def end(self, session: Session) -> None:
        """Sign-out: the session is over on the server, whoever still holds its cookie."""
        self.store.revoke(session.sid, self.clock())

    def csrf_token(self, session: Session) -> str:
        return hmac.new(self.key, f"csrf:{session.sid}".encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf_token(session), str(token))


__all__ = ["Sessions", "Session", "SessionStore", "SessionStoreError", "session_key", "SESSION_MAX_AGE",
           "MIN_SECRET_BYTES", "LOCAL_BINDING", "WorkspaceSecret", "workspace_secret", "weak_reason"]
