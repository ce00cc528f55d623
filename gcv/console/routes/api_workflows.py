"""``/api/workflows``: the same objects as the CLI's ``--json``, and the same records.

Every action is a use case of ``gcv.service`` (through ``gcv.console.actions``), the same as
the CLI command it mirrors (``gcv run`` without ``--yes``, ``answer``, ``authorize``,
``resume``, ``decide``), so a workflow started here shows in ``gcv list`` and a decision
taken with ``gcv decide`` shows here, with the same events.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from gcv.console import actions, views
from gcv.console.context import Console, ConsoleError
from gcv.console.deps import ConsoleDep, SignedIn, Writer
from gcv.console.events import LogTail, sse
from gcv.console.models import (AnswerBody, AuthorizeBody, AuthorizedOut, ChoiceBody, ChosenOut, DecidedOut,
                                DecisionBody, NewWorkflow, Proposed, ResubmitBody, ResumedOut, WorkflowList,
                                WorkflowSummary)
from gcv.console.routes.strict import StrictJSONRoute
from gcv.contract.status import FINAL
from gcv.service.errors import Refusal
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.summary import summary_object

POLL_SECONDS = 0.1
KEEPALIVE_SECONDS = 15.0

router = APIRouter(prefix="/api", tags=["workflows"], route_class=StrictJSONRoute)


@router.get("/workflows", response_model=WorkflowList,
            summary="Workflows, newest first (gcv list --json), filtered and paginated")
def list_workflows(console: ConsoleDep, caller: SignedIn, status: str | None = None, actor: str | None = None,
                   since: str | None = None, until: str | None = None, q: str | None = None,
                   needs: str | None = None, limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """``needs=ROLE[,ROLE]``: only the workflows waiting for a person with one of those roles."""
    if not 1 <= limit <= 1000:
        raise ConsoleError(422, "limit: allowed 1..1000", field="limit")
    if offset < 0:
        raise ConsoleError(422, "offset: must be 0 or more", field="offset")
    roles = tuple(r.strip() for r in needs.split(",") if r.strip()) if needs else None
    f = actions.list_filter(status, actor, since, until, q, needs=roles)
    return {"workflows": console.ws.list_workflows(limit, offset, filter=f), "total": console.ws.count_workflows(f),
            "limit": limit, "offset": offset}


@router.post("/workflows", status_code=201, response_model=Proposed,
             summary="Submit a request (gcv run without --yes): the proposal")
async def post_workflow(console: ConsoleDep, caller: Writer, body: NewWorkflow) -> dict[str, Any]:
    actor = console.actor(caller, "submit", body.actor, required=False)
    return await run_in_threadpool(actions.create_workflow, console, body, actor)


@router.get("/workflows/{wf_id}", response_model=WorkflowSummary, summary="One workflow: exactly `gcv status WF --json`")
def get_workflow(console: ConsoleDep, caller: SignedIn, wf_id: str) -> dict[str, Any]:
    d, state = actions.load(console, wf_id)
    return summary_object(d, state)


@router.post("/workflows/{wf_id}/answers", response_model=Proposed,
             summary="Answer the questions (gcv answer): the same request continues")
async def post_answer(console: ConsoleDep, caller: Writer, wf_id: str, body: AnswerBody) -> dict[str, Any]:
    actor = console.actor(caller, "answer", body.actor, required=False)
    return await run_in_threadpool(actions.answer_workflow, console, wf_id, body.text, actor)


@router.post("/workflows/{wf_id}/choice", status_code=202, response_model=ChosenOut,
             summary="Pick a trade-off (gcv answer WF --choose N); its candidate runs in the background")
async def post_choice(console: ConsoleDep, caller: Writer, wf_id: str, body: ChoiceBody) -> dict[str, Any]:
    actor = console.actor(caller, "answer", body.actor, required=False)
    return await run_in_threadpool(actions.choose_workflow, console, wf_id, body.number, actor)


@router.post("/workflows/{wf_id}/authorize", status_code=202, response_model=AuthorizedOut,
             summary="Authorize the runs (gcv authorize) and run the loop in the background")
async def post_authorize(console: ConsoleDep, caller: Writer, wf_id: str, body: AuthorizeBody) -> dict[str, Any]:
    actor = console.actor(caller, "authorize", body.actor, required=True)
    return await run_in_threadpool(actions.authorize_workflow, console, wf_id, body, actor)


@router.post("/workflows/{wf_id}/resubmit", status_code=201, response_model=Proposed,
             summary="Edit and resubmit a workflow that ended revise, blocked or budget exhausted (gcv resubmit)")
async def post_resubmit(console: ConsoleDep, caller: Writer, wf_id: str, body: ResubmitBody) -> dict[str, Any]:
    actor = console.actor(caller, "submit", body.actor, required=False)
    return await run_in_threadpool(actions.resubmit_workflow, console, wf_id, body.request, actor)


@router.post("/workflows/{wf_id}/rerun", status_code=202, response_model=AuthorizedOut,
             summary="Run a budget-exhausted workflow again with a larger budget: a linked resubmission, authorized")
async def post_rerun(console: ConsoleDep, caller: Writer, wf_id: str, body: AuthorizeBody) -> dict[str, Any]:
    actor = console.actor(caller, "authorize", body.actor, required=True)
    return await run_in_threadpool(actions.rerun_workflow, console, wf_id, body, actor)


@router.post("/workflows/{wf_id}/resume", status_code=202, response_model=ResumedOut,
             summary="Resume an interrupted workflow (gcv resume)")
async def post_resume(console: ConsoleDep, caller: Writer, wf_id: str) -> dict[str, Any]:
    console.actor(caller, "resume", None, required=False)
    return await run_in_threadpool(actions.resume_workflow, console, wf_id)


@router.post("/workflows/{wf_id}/decision", response_model=DecidedOut, summary="The human decision (gcv decide)")
async def post_decision(console: ConsoleDep, caller: Writer, wf_id: str, body: DecisionBody) -> dict[str, Any]:
    actor = console.actor(caller, "promote" if body.promote else "decide", body.actor, required=True)
    return await run_in_threadpool(actions.decide_workflow, console, wf_id, body, actor)


@router.get("/workflows/{wf_id}/events", summary="Live events (server-sent events from the event log)",
            response_class=StreamingResponse)
async def events(request: Request, console: ConsoleDep, caller: SignedIn, wf_id: str, after: int = -1,
                 follow: bool = True) -> StreamingResponse:
    d, _ = actions.load(console, wf_id)
    last = request.headers.get("last-event-id")
    if last is not None:
        try:
            after = int(last)
        except ValueError:
            raise ConsoleError(400, "Last-Event-ID must be an event number") from None
    return StreamingResponse(event_stream(console, request, d, after, follow), media_type="text/event-stream",
                             headers={"cache-control": "no-store", "x-accel-buffering": "no"})


async def event_stream(console: Console, request: Request, d: WorkflowDir, after: int,
                       follow: bool) -> AsyncIterator[bytes]:
    """SSE frames: the log's events after ``after``, then progress whenever the state changes."""
    tail = LogTail(d.events_path)
    state_mark: tuple[int, int] | None = None
    quiet = 0.0
    yield b"retry: 2000\n\n"
    while True:
        try:
            events = await run_in_threadpool(tail.read)
        except ValueError as exc:
            yield sse({"kind": "error", "message": f"the event log cannot be read: {exc}"})
            return
        if tail.reset:
            tail.reset = False
            after = -1
            yield sse({"kind": "reset", "events": tail.count - len(events)})
        for event in events:
            if event["seq"] > after:
                after = event["seq"]
                yield sse({"kind": "event", "event": event}, event_id=event["seq"])
        try:
            st = os.stat(d.state_path)
            mark: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            mark = None
        final = False
        if mark != state_mark or events:
            state_mark = mark
            try:
                _, state = await run_in_threadpool(actions.load, console, d.id)
                yield sse(await run_in_threadpool(views.progress, console.ws, console.jobs, d, state))
                final = state.status in FINAL
            except Refusal as exc:
                yield sse({"kind": "error", "message": str(exc)})
                return
            quiet = 0.0
        if not follow or final:
            return
        if await request.is_disconnected():
            return
        await asyncio.sleep(POLL_SECONDS)
        quiet += POLL_SECONDS
        if quiet >= KEEPALIVE_SECONDS:
            quiet = 0.0
            yield b": keepalive\n\n"


__all__ = ["router", "event_stream"]
