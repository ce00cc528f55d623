"""*finish*: write the next evidence version (report and bundle) at the end of a use case.

One error policy for both doors: writing evidence never undoes or fails the workflow's own
result (it is recorded before); a failure comes back as a typed :class:`EvidenceFailure`,
which the CLI turns into exit 2 (a damaged record) or 70 (the disk, a bug) and the console
logs (the service itself prints and logs nothing). Before, the CLI and the console each had their own ``try`` with different catches.
"""

from __future__ import annotations

from gcv.contract.status import Status
from gcv.evidence.collect import EvidenceError
from gcv.evidence import finalize  # looked up at each call: a test stands a full disk in for it
from gcv.service.results import EvidenceFailure, EvidenceOutcome
from gcv.store.catalog import Workspace
from gcv.workflow.state import WorkflowState


def finish(ws: Workspace, state: WorkflowState) -> EvidenceOutcome:
    """The workflow's next evidence version, or why it was not written (never raises for a
    failure to write: the caller decides what the failure means to its user)."""
    if state.status == Status.AWAITING_AUTHORIZATION or state.status.running:
        return EvidenceOutcome(skipped=True)  # nothing has run yet, or the loop is still at it
    try:
        written = finalize.finalize_evidence(ws, state.id)
    except EvidenceError as exc:
        failure = EvidenceFailure("damaged" if exc.damaged else "environment", f"evidence not written: {exc}")
    except OSError as exc:  # a full or read-only disk: the environment's failure, not a bug
        where = f"{exc.filename}: " if exc.filename else ""
        failure = EvidenceFailure("environment", f"evidence not written: {where}{exc.strerror or exc}; the workflow "
                                                 f"itself is recorded; `gcv bundle {state.id}` and `gcv report "
                                                 f"{state.id}` write it again once the disk is usable")
    except Exception as exc:  # noqa: BLE001 - the workflow's result stands; say what failed
        failure = EvidenceFailure("internal", f"evidence not written (internal error, please report): "
                                              f"{type(exc).__name__}: {exc}; the workflow itself is recorded in "
                                              f"{ws.workflow_dir(state.id).root}")
    else:
        return EvidenceOutcome(paths=written.paths(), version=written.version.number)
    return EvidenceOutcome(failure=failure)


__all__ = ["finish"]
