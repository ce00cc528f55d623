"""What the console's routes call: the use cases of ``gcv.service``, on this console's loop,
shaped as the CLI's ``--json`` objects.

An API route and the page route that mirrors it call the same function here, and each
function is one use case (the console adds only what is its own: the background job of an
authorization, and whether that job still runs). Refusals are the service's typed ones; the
app maps them to HTTP statuses by type (``gcv.console.refusals``).
"""

from __future__ import annotations

import calendar
import logging
import time
from typing import Any

from gcv.console import views
from gcv.console.context import Console, ConsoleError
from gcv.console.jobs import write_evidence
from gcv.console.models import AuthorizeBody, DecisionBody, NewWorkflow, RollbackBody
from gcv.service import baselines as baseline_cases
from gcv.service import workflows
from gcv.service.errors import Busy
from gcv.service.results import Decided
from gcv.store.catalog import WorkflowFilter
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.state import WorkflowState
from gcv.workflow.summary import summary_object

log = logging.getLogger("gcv.console")


def load(console: Console, wf_id: str) -> tuple[WorkflowDir, WorkflowState]:
    """The workflow, looked up through the store (ids are validated there): ``NotFound`` when
    unknown, ``Damaged`` when its records cannot be read."""
    loop = console.jobs.loop()
    state = workflows.load(loop, wf_id)
    return loop.ws.workflow_dir(wf_id), state


def _proposed(console: Console, state: WorkflowState) -> dict[str, Any]:
    d = console.ws.workflow_dir(state.id)
    return {**summary_object(d, state), "proposal": views.proposal(d, state), "exit_code": state.status.exit_code}


def create_workflow(console: Console, body: NewWorkflow, actor: str) -> dict[str, Any]:
    """``gcv run REQUEST`` without ``--yes``: create, propose, stop where a person is needed."""
    submission = workflows.Submission(request=body.request.strip(), engine=body.engine, provider=body.provider,
                                      seed=body.seed, actor=actor, offered_providers_only=True)
    submitted = workflows.submit(console.jobs.loop(), submission)
    write_evidence(console.ws, submitted.state)
    return _proposed(console, submitted.state)


def answer_workflow(console: Console, wf_id: str, text: str, actor: str) -> dict[str, Any]:
    """``gcv answer WF ANSWER``: the same request continues with the designer's answers."""
    answered = workflows.answer(console.jobs.loop(), wf_id, text=text, actor=actor)
    write_evidence(console.ws, answered.state)
    return _proposed(console, answered.state)


def choose_workflow(console: Console, wf_id: str, number: int, actor: str) -> dict[str, Any]:
    """``gcv answer WF --choose N``: the choice is recorded now, its candidate runs in the background."""
    chosen = workflows.choose(console.jobs.loop(), wf_id, number=number, actor=actor, advance=False)
    console.jobs.start(wf_id, "run")
    rnd = chosen.state.rounds[-2] if len(chosen.state.rounds) > 1 else chosen.state.rounds[-1]
    return {"workflow_id": wf_id, "status": str(chosen.status),
            "choice": rnd.choice.model_dump(mode="json") if rnd.choice else None, "exit_code": 0}


def overrides_of(body: AuthorizeBody) -> workflows.BudgetOverrides:
    return workflows.BudgetOverrides(max_candidate_runs=body.max_runs, max_model_calls=body.max_model_calls,
                                     max_tokens=body.max_tokens, deadline_seconds=body.deadline)


def authorize_workflow(console: Console, wf_id: str, body: AuthorizeBody, actor: str) -> dict[str, Any]:
    """``gcv authorize WF --actor NAME`` then ``gcv resume WF`` (in the background)."""
    authorized = workflows.authorize(console.jobs.loop(), wf_id, actor=actor, via="gcv console",
                                     overrides=overrides_of(body))
    console.jobs.start(wf_id, "run")
    return {"workflow_id": wf_id, "status": str(authorized.status),
            "authorization": authorized.authorization.model_dump(mode="json"), "exit_code": 0}


def resubmit_workflow(console: Console, wf_id: str, request: str, actor: str) -> dict[str, Any]:
    """``gcv resubmit WF "edited request"``: a new workflow linked to WF, proposed."""
    resubmitted = workflows.resubmit(console.jobs.loop(), wf_id, request, actor=actor)
    write_evidence(console.ws, resubmitted.state)
    return _proposed(console, resubmitted.state)


def resubmissions_of(console: Console, wf_id: str) -> list[str]:
    """The workflows that resubmit ``wf_id`` (it is superseded by them)."""
    return workflows.resubmissions(console.jobs.loop(), wf_id)


def rerun_workflow(console: Console, wf_id: str, body: AuthorizeBody, actor: str) -> dict[str, Any]:
    """Run a budget-exhausted workflow again with a larger budget: a linked resubmission of the
    same request, authorized by the operator with the larger budgets, run in the background."""
    rerun = workflows.rerun_with_larger_budget(console.jobs.loop(), wf_id, actor=actor, overrides=overrides_of(body),
                                               via="gcv console (run again with a larger budget)", advance=False)
    if rerun.status == "authorized":
        console.jobs.start(rerun.wf_id, "run")
    else:
        write_evidence(console.ws, rerun.state)
    return {"workflow_id": rerun.wf_id, "resubmitted_from": wf_id, "status": str(rerun.status),
            "authorization": rerun.state.authorization.model_dump(mode="json") if rerun.state.authorization else None,
            "exit_code": 0}


def resume_workflow(console: Console, wf_id: str) -> dict[str, Any]:
    """``gcv resume WF`` in the background (refused while anyone is running it)."""
    state = workflows.resumable(console.jobs.loop(), wf_id)
    live = views.liveness(console.ws, console.jobs, state)
    if live["running"]:
        raise Busy(f"{wf_id} is running ({live['holder']}); wait for it to finish")
    console.jobs.start(wf_id, "resume")
    return {"workflow_id": wf_id, "status": str(state.status), "resumed": True, "exit_code": 0}


def decide_workflow(console: Console, wf_id: str, body: DecisionBody, actor: str) -> dict[str, Any]:
    """``gcv decide WF accept|revise|rollback --actor NAME --note TEXT [--promote]``."""
    decided = workflows.decide(console.jobs.loop(), wf_id, decision=body.decision, actor=actor, note=body.note,
                               promote=body.promote)
    return _decided(decided)


def reject_runs(console: Console, wf_id: str, note: str, actor: str) -> dict[str, Any]:
    """The operator refuses the runs of a workflow awaiting authorization (it is rolled back)."""
    return _decided(workflows.reject(console.jobs.loop(), wf_id, actor=actor, note=note))


def _decided(decided: Decided) -> dict[str, Any]:
    if decided.evidence.failure is not None:
        log.warning("workflow %s: %s", decided.wf_id, decided.evidence.failure.message)
    evidence = decided.evidence.as_dict()  # the decision's own evidence version
    return {"workflow_id": decided.wf_id, "status": str(decided.status),
            "human_decision": decided.decision.model_dump(mode="json"), "evidence": evidence,
            "evidence_written": bool(evidence), "exit_code": 0}


def rollback_baseline(console: Console, body: RollbackBody, actor: str) -> dict[str, Any]:
    """``gcv baselines rollback [--to V] --actor NAME --note TEXT`` (audited)."""
    return {**baseline_cases.roll_back(console.ws, body.to, console.config.clock, actor=actor, note=body.note),
            "exit_code": 0}


def baseline_version(console: Console, version: str) -> dict[str, Any]:
    """``gcv baselines show V --json``."""
    return baseline_cases.show_version(console.ws, version, console.config.clock)


def list_filter(status: str | None, actor: str | None, since: str | None, until: str | None,
                q: str | None, needs: tuple[str, ...] | None = None) -> WorkflowFilter:
    """``needs``: the roles whose waiting workflows to list (what needs me: gcv.service.workflows.NEEDS)."""
    return WorkflowFilter(status=status or None, actor=actor or None, since=_date(since, "since"),
                          until=_date(until, "until", end=True), text=q or None,
                          statuses=workflows.needed_by(needs) if needs is not None else None)


def _date(text: str | None, name: str, *, end: bool = False) -> float | None:
    """``YYYY-MM-DD`` (UTC) -> seconds; ``until`` is the end of that day."""
    if not text:
        return None
    try:
        parsed = time.strptime(text.strip(), "%Y-%m-%d")
    except ValueError:
        raise ConsoleError(422, f"{name}: {text[:20]!r} is not a date; write YYYY-MM-DD", field=name) from None
    return float(calendar.timegm(parsed)) + (86_400 if end else 0)


__all__ = ["load", "create_workflow", "answer_workflow", "authorize_workflow", "resume_workflow", "decide_workflow",
           "reject_runs", "rollback_baseline", "baseline_version", "list_filter", "resubmit_workflow", "rerun_workflow", "resubmissions_of",
           "overrides_of"]
