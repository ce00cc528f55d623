"""A use case's refusal as an HTTP answer: the status by the refusal's *type* (one table),
never by reading its message."""

from __future__ import annotations

from typing import Any

from gcv.service.errors import Conflict, Damaged, InvalidInput, NotFound, Refusal, WorkspaceRefusal

# the most specific type a refusal is an instance of wins (Locked and WrongState are Conflicts)
HTTP_STATUS: dict[type[Refusal], int] = {
    InvalidInput: 422,
    NotFound: 404,
    Conflict: 409,
    Damaged: 409,  # the workflow exists but its records cannot be used as they stand
    WorkspaceRefusal: 409,
    Refusal: 409,
}


def http_status(exc: Refusal) -> int:
    return next(HTTP_STATUS[k] for k in type(exc).__mro__ if k in HTTP_STATUS)


def message_of(exc: Refusal) -> str:
    """The message as the console words a field's error: ``engine: ...``."""
    return f"{exc.field}: {exc.message}" if exc.field and not exc.message.startswith(f"{exc.field}:") else exc.message


def body_of(exc: Refusal) -> dict[str, Any]:
    """The JSON error: the message, the refusal's machine-readable kind, and the field at fault."""
    return {"kind": exc.kind, **({"field": exc.field} if exc.field else {})}


__all__ = ["HTTP_STATUS", "http_status", "message_of", "body_of"]
