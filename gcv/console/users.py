"""Who may use the console, and for what: users, tokens and roles.

Without ``--users`` the console serves one local user with every role, and only on a
loopback address (``gcv serve`` refuses anything else). With ``--users FILE`` (TOML) every
request must name a user, by a browser session (after signing in with the token) or by
``Authorization: Bearer TOKEN``::

    [[user]]
    name = "dana"
    roles = ["designer"]
    token_sha256 = "9f86d0..."   # sha256 of the token (hex); or token = "..." (at least 16 characters)

Roles: ``designer`` submits requests and answers questions, ``operator`` authorizes and
resumes runs and starts batches, ``reviewer`` decides, promotes and rolls back baselines. Everyone signed in
may read everything.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gcv.contract.loading import GcvInputError, read_input_text

ROLES = ("designer", "operator", "reviewer")
# What each role may do (the API and the pages check these; the pages offer nothing else).
ROLE_OF_ACTION = {
    "submit": "designer", "answer": "designer",
    "authorize": "operator", "resume": "operator", "start_batch": "operator",
    "decide": "reviewer", "promote": "reviewer", "rollback_baseline": "reviewer",
}
MIN_TOKEN_CHARS = 16
MAX_NAME_CHARS = 64


class UsersFileError(ValueError):
    """The users file cannot be used; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class User:
    name: str
    roles: frozenset[str] = field(default_factory=lambda: frozenset(ROLES))
    local: bool = False  # the single local user of a loopback console without --users

    def may(self, action: str) -> bool:
        return ROLE_OF_ACTION[action] in self.roles

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "roles": sorted(self.roles), "local": self.local,
                "may": {a: self.may(a) for a in ROLE_OF_ACTION}}


def clean_name(text: str) -> str:
    """A person's name as recorded for an actor: trimmed, printable, 1..64 characters."""
    name = " ".join(str(text).split())
    if not name:
        raise ValueError("the name is empty")
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"the name is longer than {MAX_NAME_CHARS} characters")
    if not name.isprintable():
        raise ValueError("the name contains control characters")
    return name


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Users:
    """The named users of a ``--users`` file, found by token digest."""

    by_digest: dict[str, User]
    source: str

    def find(self, token: str) -> User | None:
        digest = token_digest(token)
        for known, user in self.by_digest.items():  # constant time per entry: no early exit on a prefix
            if hmac.compare_digest(known, digest):
                return user
        return None

    def named(self, name: str) -> User | None:
        return next((u for u in self.by_digest.values() if u.name == name), None)

    @property
    def digest(self) -> str:
        """The sha256 of this users database (every name, its roles and its token digest, in a
        fixed order). Sessions are bound to it: a changed file (a new token, a new role, a user
        gone) ends the sessions signed for the old one; comments and order do not."""
        rows = sorted([digest, user.name, sorted(user.roles)] for digest, user in self.by_digest.items())
        return hashlib.sha256(json.dumps(rows, separators=(",", ":")).encode("utf-8")).hexdigest()


def load_users(path: Path) -> Users:
    try:  # a regular file under the users cap (no FIFO, no /dev/zero), UTF-8
        data = tomllib.loads(read_input_text(path, "users"))
    except GcvInputError as exc:
        raise UsersFileError(f"cannot read the users file {path}: {exc.message}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsersFileError(f"the users file {path} is not TOML: {exc}") from None
    except RecursionError:
        raise UsersFileError(f"the users file {path} is not TOML: nested too deeply") from None
    unknown = set(data) - {"user"}
    if unknown:
        raise UsersFileError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; write each user as a [[user]] table")
    entries = data.get("user")
    if not isinstance(entries, list) or not entries:
        raise UsersFileError(f"{path}: no users; add at least one [[user]] table with name, roles and token_sha256")
    by_digest: dict[str, User] = {}
    names: set[str] = set()
    for i, entry in enumerate(entries, start=1):
        where = f"{path}: user {i}"
        if not isinstance(entry, dict):
            raise UsersFileError(f"{where} is not a table")
        extra = set(entry) - {"name", "roles", "token", "token_sha256"}
        if extra:
            raise UsersFileError(f"{where}: unknown field(s) {', '.join(sorted(extra))}; allowed: name, roles, "
                                 "token_sha256 (or token)")
        try:
            name = clean_name(entry.get("name", ""))
        except ValueError as exc:
            raise UsersFileError(f"{where}: field name: {exc}") from None
        if name in names:
            raise UsersFileError(f"{where}: the name {name!r} is used twice")
        names.add(name)
        roles = entry.get("roles")
        if not isinstance(roles, list) or not roles or not all(isinstance(r, str) for r in roles):
            raise UsersFileError(f"{where} ({name}): field roles must be a non-empty list; allowed: {', '.join(ROLES)}")
        bad = sorted(set(roles) - set(ROLES))
        if bad:
            raise UsersFileError(f"{where} ({name}): unknown role(s) {', '.join(bad)}; allowed: {', '.join(ROLES)}")
        if ("token" in entry) == ("token_sha256" in entry):
            raise UsersFileError(f"{where} ({name}): give exactly one of token_sha256 (recommended) or token")
        if "token" in entry:
            token = entry["token"]
            if not isinstance(token, str) or len(token) < MIN_TOKEN_CHARS:
                raise UsersFileError(f"{where} ({name}): field token must be at least {MIN_TOKEN_CHARS} characters")
            digest = token_digest(token)
        else:
            digest = str(entry["token_sha256"]).lower()
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                raise UsersFileError(f"{where} ({name}): field token_sha256 must be 64 hex digits (sha256 of the token)")
        if digest in by_digest:
            raise UsersFileError(f"{where} ({name}): the same token as {by_digest[digest].name}; give each user "
                                 "their own token")
        by_digest[digest] = User(name=name, roles=frozenset(roles))
    return Users(by_digest=by_digest, source=str(path))


__all__ = ["ROLES", "ROLE_OF_ACTION", "User", "Users", "UsersFileError", "load_users", "clean_name", "token_digest"]
