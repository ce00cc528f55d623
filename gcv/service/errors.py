"""The refusals of the use cases: one hierarchy, each with a machine-readable ``kind``.

An interface maps a refusal by its *type* (the CLI to an exit code, the console to an HTTP
status), never by its message, so the message can be worded for people without breaking a
caller. The message is the same through both doors and never carries a workspace path.
"""

from __future__ import annotations

from typing import Any, ClassVar


class Refusal(Exception):
    """The use case did not do what was asked, for a reason the caller can act on.

    ``field`` names the input at fault (``engine``, ``text``...), when one is. ``origin`` is the
    store's own exception when the store raised it outside the loop (a damaged artifact met
    while summarizing, a catalog that cannot be written): the CLI reports that one as every
    command reports a store failure (exit 2 for a damaged record, 70 for the environment).
    """

    kind: ClassVar[str] = "refused"

    def __init__(self, message: str, *, field: str | None = None, hint: str | None = None,
                 origin: Exception | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.hint = hint
        self.origin = origin

    def as_dict(self) -> dict[str, Any]:
        """The refusal as data: what the console's JSON error carries besides its status."""
        return {"error": self.message, "kind": self.kind, "field": self.field}


class InvalidInput(Refusal):
    """An input the use case cannot take (an empty request, an unknown engine, a bad choice)."""

    kind = "invalid_input"


class NotFound(Refusal):
    """No such workflow (or baseline version) in this workspace."""

    kind = "not_found"


class Conflict(Refusal):
    """The workflow exists but does not take this now (the loop refused it)."""

    kind = "conflict"


class WrongState(Conflict):
    """The workflow's status does not take this use case (answering a workflow that asks nothing)."""

    kind = "wrong_state"


class Busy(Conflict):
    """The workflow is being run right now (by this console's job or another process)."""

    kind = "busy"


class Locked(Busy):
    """Another writer holds the workflow's lock (``workflows/<wf>/.lock``)."""

    kind = "locked"


class Damaged(Refusal):
    """A stored record of the workflow is missing or not what GCV wrote: it is unusable as it
    stands, and every command refuses it the same way."""

    kind = "damaged"


class WorkspaceRefusal(Refusal):
    """The workspace could not do what was asked (unreadable, not writable)."""

    kind = "workspace"


__all__ = ["Refusal", "InvalidInput", "NotFound", "Conflict", "WrongState", "Busy", "Locked", "Damaged",
           "WorkspaceRefusal"]
