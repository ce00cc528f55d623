"""Reading a workflow without the loop: its folder and typed state, read only.

``gcv status``, ``gcv list`` and the console read workflows far more often than they run
one; this is all the reading needs (the store and the state's models), so a read-only
command starts without the loop and the layers it drives (agents, simulator, evaluators,
repair search, engines). ``WorkflowLoop.load`` is this same function.
"""

from __future__ import annotations

import os

from pydantic import ValidationError

from gcv.store.catalog import Workspace
from gcv.store.errors import StoreError
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.state import WorkflowState


class WorkflowError(Exception):
    """The workflow cannot do what was asked (unknown id, wrong status, corrupt files...)."""


def workflow_dir(ws: Workspace, wf_id: str) -> WorkflowDir:
    """The folder of an existing workflow (``WorkflowError`` for an unknown or unsafe id)."""
    try:
        d = ws.workflow_dir(wf_id)
    except StoreError as exc:
        raise WorkflowError(str(exc)) from None
    if not os.path.lexists(d.state_path):  # something else there is refused by read_state, naming it
        raise WorkflowError(f"no workflow {wf_id!r} in {ws.root}; see `gcv list`")
    return d


def read_workflow(ws: Workspace, wf_id: str) -> tuple[WorkflowDir, WorkflowState]:
    """The workflow's folder and typed state, read only (nothing is changed)."""
    d = workflow_dir(ws, wf_id)
    try:
        data = d.read_state()
        state = WorkflowState.model_validate(data)
        d.check_history(data)  # a truncated, emptied or deleted log is refused before anyone believes the state
        return d, state
    except StoreError as exc:
        raise WorkflowError(str(exc)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise WorkflowError(f"{d.state_path} does not hold a workflow state ({where}: {first['msg']}); it was "
                            "damaged or written by another program") from None


__all__ = ["WorkflowError", "read_workflow", "workflow_dir"]
