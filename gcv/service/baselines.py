"""The baseline registry's use cases: show one version, roll back (audited).

The registry's ``BaselineError`` says many things in one type; here each becomes a typed
refusal by *where* it arose (parsing the version is the caller's input; a version that does
not exist is not found; the rest is the registry refusing), so the console no longer reads
the message to pick its status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gcv.service.errors import Conflict, InvalidInput, NotFound, WorkspaceRefusal
from gcv.store.catalog import Workspace
from gcv.store.errors import StoreError
from gcv.workflow.baselines import BaselineError, parse_version, rollback, show


def version_number(text: str | int) -> int:
    """``v2``, ``V2`` or ``2`` -> 2; anything else is ``InvalidInput``."""
    try:
        return parse_version(text)
    except BaselineError as exc:
        raise InvalidInput(str(exc), field="version") from None


def show_version(ws: Workspace, version: str | int, clock: Callable[[], float]) -> dict[str, Any]:
    """One baseline version with its provenance, activations and config (``NotFound`` when none)."""
    number = version_number(version)
    try:
        return show(ws, number, clock())
    except BaselineError as exc:  # the number parsed: what is left is a version that does not exist
        raise NotFound(str(exc)) from None


def roll_back(ws: Workspace, to: str | int | None, clock: Callable[[], float], *, actor: str,
              note: str) -> dict[str, Any]:
    """Make an earlier version active again (the actor and the note are recorded)."""
    target = None if to is None else version_number(to)
    if not actor.strip():
        raise InvalidInput("a rollback needs an actor name (--actor)", field="actor")
    if not note.strip():
        raise InvalidInput("a rollback needs a note saying why (--note)", field="note")
    try:
        return rollback(ws, target, clock(), actor=actor, note=note)
    except BaselineError as exc:  # no such version, the first one, or the active one already
        raise Conflict(str(exc)) from None
    except StoreError as exc:
        raise WorkspaceRefusal(str(exc)) from None


__all__ = ["version_number", "show_version", "roll_back"]
