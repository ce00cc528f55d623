"""The JSON API under ``/api/``: the same objects as the CLI's ``--json``, and the same records.

Every action goes through the same ``WorkflowLoop`` methods as the CLI command it mirrors
(``gcv run`` without ``--yes``, ``answer``, ``authorize``, ``resume``, ``decide``, ``baselines
rollback``), so a workflow started here shows in ``gcv list`` and a decision taken with
``gcv decide`` shows here, with the same events.
"""

from __future__ import annotations

import asyncio
import calendar
import os
import time
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from gcv.contract.base import GcvModel
from gcv.contract.loading import GcvInputError, parse_json_text
from gcv.console import views
from gcv.console.context import Console, ConsoleError
from gcv.console.events import LogTail, sse
from gcv.console.security import SAFE_METHODS, Caller
from gcv.console.jobs import write_evidence
from gcv.contract.status import FINAL
from gcv.store.catalog import WorkflowFilter
from gcv.store.errors import StoreError, WorkflowLocked
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.baselines import BaselineError, active_baseline, ensure_registry, rollback, show
from gcv.workflow.loop import WorkflowError
from gcv.workflow.state import Budgets, Settings, WorkflowState
from gcv.workflow.states import IllegalTransition
from gcv.workflow.summary import summary_object

MAX_REQUEST_CHARS = 4000
MAX_NOTE_CHARS = 4000
POLL_SECONDS = 0.1
KEEPALIVE_SECONDS = 15.0


class _Body(GcvModel):
    # built at once: FastAPI builds request bodies when it registers the routes anyway, and a
    # deferred model there only makes it warn about the alias it gives the body parameter
    model_config = ConfigDict(extra="forbid", defer_build=False)


class NewWorkflow(_Body):
    request: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS, description="the change, in plain language (EN or ZH)")
    engine: str = Field(default="python-sim", max_length=64, description="an engine `gcv engines` reports available")
    provider: str = Field(default="offline", max_length=64, description="a provider `gcv agents` reports usable")
    seed: int = Field(default=1, ge=0, le=(1 << 63) - 1)
    actor: str | None = Field(default=None, max_length=64, description="loopback console without users only")


class AnswerBody(_Body):
    text: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS, description="the answers, in plain language")
    actor: str | None = Field(default=None, max_length=64)


class AuthorizeBody(_Body):
    actor: str | None = Field(default=None, max_length=64, description="required on a loopback console's local API")
    max_runs: int | None = Field(default=None, ge=1, le=50, description="candidate engine runs")
    max_model_calls: int | None = Field(default=None, ge=1, le=100)
    max_tokens: int | None = Field(default=None, ge=0, le=50_000_000)
    deadline: float | None = Field(default=None, ge=1, le=86_400, description="seconds after authorization")


class DecisionBody(_Body):
    decision: str = Field(pattern="^(accept|revise|rollback)$")
    actor: str | None = Field(default=None, max_length=64)
    note: str = Field(default="", max_length=MAX_NOTE_CHARS)
    promote: bool = False


class RollbackBody(_Body):
    to: str | None = Field(default=None, max_length=12, description="v2 or 2 (default: the previous version)")
    actor: str | None = Field(default=None, max_length=64)
    note: str = Field(min_length=1, max_length=MAX_NOTE_CHARS)


class StrictJSONRoute(APIRoute):
    """A route whose JSON body is first read by the CLI's strict loader: a duplicate key, NaN,
    Infinity or a number too large for a float is a 422 naming it, as ``gcv`` refuses it in a
    file (the framework's parser would keep the last of two keys). The body is small by then:
    the gate has capped it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            if request.method not in SAFE_METHODS:
                ctype = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
                raw = await request.body()
                if raw.strip() and (ctype == "application/json" or ctype.endswith("+json")):
                    _strict_json(raw)
            return await handler(request)

        return strict


def _strict_json(raw: bytes) -> None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConsoleError(422, "body: not UTF-8 text", field="body") from None
    try:
        parse_json_text(text, "body")
    except GcvInputError as exc:
        where = (exc.path_in_doc or "").removeprefix("$.").removeprefix("$") or "body"  # as the 422s name fields
        raise ConsoleError(422, f"{where}: {exc.message}", field=where) from None


# ---------------------------------------------------------------------- shared with the pages
def load(console: Console, wf_id: str) -> tuple[WorkflowDir, WorkflowState]:
    """The workflow, looked up through the store (ids are validated there): 404 when unknown."""
    try:
        d = console.ws.workflow_dir(wf_id)
    except StoreError:
        raise ConsoleError(404, "no such workflow (ids are letters, digits, '-' and '_')") from None
    if not d.state_path.is_file():
        raise ConsoleError(404, f"no workflow {wf_id} in this workspace")
    try:
        return console.jobs.loop().load(wf_id)
    except WorkflowError as exc:
        raise ConsoleError(409, f"workflow {wf_id} cannot be read: {exc}") from None


def _refusal(exc: Exception) -> ConsoleError:
    if isinstance(exc, WorkflowLocked):
        return ConsoleError(409, str(exc))
    if isinstance(exc, IllegalTransition):
        return ConsoleError(409, str(exc))
    if isinstance(exc, (WorkflowError, StoreError, BaselineError)):
        return ConsoleError(409, str(exc))
    raise exc


def create_workflow(console: Console, body: NewWorkflow, actor: str) -> dict[str, Any]:
    """``gcv run REQUEST`` without ``--yes``: create, propose, stop where a person is needed."""
    request = body.request.strip()
    if not request:
        raise ConsoleError(422, "request: empty; describe the change in plain language", field="request")
    engines = {e["engine"]: e for e in views.usable_engines()}
    if body.engine not in engines:
        raise ConsoleError(422, f"engine: unknown engine {body.engine!r}; available: {', '.join(engines)}",
                           field="engine")
    if not engines[body.engine]["usable"]:
        raise ConsoleError(422, f"engine: {body.engine} cannot run here ({engines[body.engine]['reason']}); see "
                                "`gcv engines`", field="engine")
    providers = [p["name"] for p in views.usable_providers()]
    if body.provider not in providers:
        raise ConsoleError(422, f"provider: {body.provider!r} is not usable here; usable: {', '.join(providers)} "
                                "(see `gcv agents`)", field="provider")
    loop = console.jobs.loop()
    base, source = active_baseline(loop.ws, loop.clock())
    settings = Settings(engine=body.engine, provider=body.provider, seed=body.seed, budgets=Budgets())
    wf_id = loop.create(request, base, settings, baseline_source=source, actor=actor)
    state = loop.advance(wf_id)
    write_evidence(loop.ws, state)
    d = loop.ws.workflow_dir(wf_id)
    return {**summary_object(d, state), "proposal": views.proposal(d, state), "exit_code": state.status.exit_code}


def answer_workflow(console: Console, wf_id: str, text: str, actor: str) -> dict[str, Any]:
    """``gcv answer WF ANSWER``: the same request continues with the designer's answers."""
    load(console, wf_id)
    loop = console.jobs.loop()
    try:
        loop.answer(wf_id, text=text, actor=actor)
        state = loop.advance(wf_id)
    except (WorkflowError, StoreError, IllegalTransition) as exc:
        raise _refusal(exc) from None
    write_evidence(loop.ws, state)
    d = loop.ws.workflow_dir(wf_id)
    return {**summary_object(d, state), "proposal": views.proposal(d, state), "exit_code": state.status.exit_code}


def authorize_workflow(console: Console, wf_id: str, body: AuthorizeBody, actor: str) -> dict[str, Any]:
    """``gcv authorize WF --actor NAME`` then ``gcv resume WF`` (in the background)."""
    _, state = load(console, wf_id)
    current = state.settings.budgets.model_dump()
    for key, value in (("max_candidate_runs", body.max_runs), ("max_model_calls", body.max_model_calls),
                       ("max_tokens", body.max_tokens), ("deadline_seconds", body.deadline)):
        if value is not None:
            current[key] = value
    try:
        state = console.jobs.loop().authorize(wf_id, actor=actor, via="gcv console",
                                              budgets=Budgets.model_validate(current))
    except (WorkflowError, StoreError, IllegalTransition) as exc:
        raise _refusal(exc) from None
    console.jobs.start(wf_id, "run")
    return {"workflow_id": wf_id, "status": str(state.status),
            "authorization": state.authorization.model_dump(mode="json") if state.authorization else None,
            "exit_code": 0}


def resume_workflow(console: Console, wf_id: str) -> dict[str, Any]:
    """``gcv resume WF`` in the background (refused while anyone is running it)."""
    _, state = load(console, wf_id)
    if not state.status.running:
        raise ConsoleError(409, f"{wf_id} is {state.status} ({state.status.title}); there is nothing to resume")
    live = views.liveness(console.ws, console.jobs, state)
    if live["running"]:
        raise ConsoleError(409, f"{wf_id} is running ({live['holder']}); wait for it to finish")
    console.jobs.start(wf_id, "resume")
    return {"workflow_id": wf_id, "status": str(state.status), "resumed": True, "exit_code": 0}


def decide_workflow(console: Console, wf_id: str, body: DecisionBody, actor: str) -> dict[str, Any]:
    """``gcv decide WF accept|revise|rollback --actor NAME --note TEXT [--promote]``."""
    load(console, wf_id)
    try:
        state = console.jobs.loop().decide(wf_id, decision=body.decision, actor=actor, note=body.note,
                                           promote=body.promote)
    except (WorkflowError, StoreError, IllegalTransition) as exc:
        raise _refusal(exc) from None
    assert state.human_decision is not None
    evidence = write_evidence(console.ws, state)  # the decision's own evidence version
    return {"workflow_id": wf_id, "status": str(state.status),
            "human_decision": state.human_decision.model_dump(mode="json"), "evidence": evidence,
            "evidence_written": bool(evidence), "exit_code": 0}


def rollback_baseline(console: Console, body: RollbackBody, actor: str) -> dict[str, Any]:
    """``gcv baselines rollback [--to V] --actor NAME --note TEXT`` (audited)."""
    try:
        result = rollback(console.ws, body.to, console.config.clock(), actor=actor, note=body.note)
    except BaselineError as exc:
        raise ConsoleError(422 if "not a baseline version" in str(exc) else 409, str(exc)) from None
    return {**result, "exit_code": 0}


def list_filter(status: str | None, actor: str | None, since: str | None, until: str | None,
                q: str | None) -> WorkflowFilter:
    return WorkflowFilter(status=status or None, actor=actor or None, since=_date(since, "since"),
                          until=_date(until, "until", end=True), text=q or None)


def _date(text: str | None, name: str, *, end: bool = False) -> float | None:
    """``YYYY-MM-DD`` (UTC) -> seconds; ``until`` is the end of that day."""
    if not text:
        return None
    try:
        parsed = time.strptime(text.strip(), "%Y-%m-%d")
    except ValueError:
        raise ConsoleError(422, f"{name}: {text[:20]!r} is not a date; write YYYY-MM-DD", field=name) from None
    return float(calendar.timegm(parsed)) + (86_400 if end else 0)


# ---------------------------------------------------------------------- routes
def router(console: Console) -> APIRouter:
    api = APIRouter(prefix="/api", tags=["api"], route_class=StrictJSONRoute)

    def who(request: Request) -> Any:
        return console.signed_in(request)

    async def writer(request: Request) -> Caller:
        """Signed in, and CSRF / JSON checked, before the body is even read."""
        caller = console.signed_in(request)
        await console.check_write(request, caller)
        return caller

    @api.get("/health", summary="Is the console up (and, to a signed-in caller, on which workspace)")
    def health(request: Request) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": True, "users": console.users is not None}
        if console.caller(request).via != "anonymous":
            out.update(workspace=str(console.ws.root), workflows=console.ws.count_workflows())
        return out

    @api.get("/me", summary="Who the caller is and what they may do")
    def me(request: Request) -> dict[str, Any]:
        caller = who(request)
        return {"via": caller.via, "user": caller.user.as_dict() if caller.user else None}

    @api.get("/workflows", summary="Workflows, newest first (gcv list --json), filtered and paginated")
    def list_workflows(request: Request, status: str | None = None, actor: str | None = None,
                       since: str | None = None, until: str | None = None, q: str | None = None,
                       limit: int = 50, offset: int = 0) -> dict[str, Any]:
        who(request)
        if not 1 <= limit <= 1000:
            raise ConsoleError(422, "limit: allowed 1..1000", field="limit")
        if offset < 0:
            raise ConsoleError(422, "offset: must be 0 or more", field="offset")
        f = list_filter(status, actor, since, until, q)
        return {"workflows": console.ws.list_workflows(limit, offset, filter=f), "total": console.ws.count_workflows(f),
                "limit": limit, "offset": offset}

    @api.post("/workflows", status_code=201, summary="Submit a request (gcv run without --yes): the proposal")
    async def post_workflow(request: Request, body: NewWorkflow,
                  caller: Caller = Depends(writer)) -> dict[str, Any]:
        actor = console.actor(caller, "submit", body.actor, required=False)
        return await run_in_threadpool(create_workflow, console, body, actor)

    @api.get("/workflows/{wf_id}", summary="One workflow: exactly `gcv status WF --json`")
    def get_workflow(request: Request, wf_id: str) -> dict[str, Any]:
        who(request)
        d, state = load(console, wf_id)
        return summary_object(d, state)

    @api.post("/workflows/{wf_id}/answers", summary="Answer the questions (gcv answer): the same request continues")
    async def post_answer(request: Request, wf_id: str, body: AnswerBody,
                  caller: Caller = Depends(writer)) -> dict[str, Any]:
        actor = console.actor(caller, "answer", body.actor, required=False)
        return await run_in_threadpool(answer_workflow, console, wf_id, body.text, actor)

    @api.post("/workflows/{wf_id}/authorize", status_code=202,
              summary="Authorize the runs (gcv authorize) and run the loop in the background")
    async def post_authorize(request: Request, wf_id: str, body: AuthorizeBody,
                  caller: Caller = Depends(writer)) -> dict[str, Any]:
        actor = console.actor(caller, "authorize", body.actor, required=True)
        return await run_in_threadpool(authorize_workflow, console, wf_id, body, actor)

    @api.post("/workflows/{wf_id}/resume", status_code=202, summary="Resume an interrupted workflow (gcv resume)")
    async def post_resume(request: Request, wf_id: str, caller: Caller = Depends(writer)) -> dict[str, Any]:
        console.actor(caller, "resume", None, required=False)
        return await run_in_threadpool(resume_workflow, console, wf_id)

    @api.post("/workflows/{wf_id}/decision", summary="The human decision (gcv decide)")
    async def post_decision(request: Request, wf_id: str, body: DecisionBody,
                  caller: Caller = Depends(writer)) -> dict[str, Any]:
        actor = console.actor(caller, "promote" if body.promote else "decide", body.actor, required=True)
        return await run_in_threadpool(decide_workflow, console, wf_id, body, actor)

    @api.get("/workflows/{wf_id}/events", summary="Live events (server-sent events from the event log)",
             response_class=StreamingResponse)
    async def events(request: Request, wf_id: str, after: int = -1, follow: bool = True) -> StreamingResponse:
        who(request)
        d, _ = load(console, wf_id)
        last = request.headers.get("last-event-id")
        if last is not None:
            try:
                after = int(last)
            except ValueError:
                raise ConsoleError(400, "Last-Event-ID must be an event number") from None
        return StreamingResponse(event_stream(console, request, d, after, follow), media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    @api.get("/baselines", summary="Baseline versions (gcv baselines list --json)")
    def baselines(request: Request) -> dict[str, Any]:
        who(request)
        return {"baselines": ensure_registry(console.ws, console.config.clock())}

    @api.get("/baselines/{version}", summary="One baseline version (gcv baselines show V --json)")
    def baseline(request: Request, version: str) -> dict[str, Any]:
        who(request)
        try:
            return show(console.ws, version, console.config.clock())
        except BaselineError as exc:
            raise ConsoleError(404 if "no baseline version" in str(exc) else 422, str(exc)) from None

    @api.post("/baselines/rollback", summary="Make an earlier version active (audited)")
    async def post_rollback(request: Request, body: RollbackBody,
                  caller: Caller = Depends(writer)) -> dict[str, Any]:
        actor = console.actor(caller, "rollback_baseline", body.actor, required=True)
        return await run_in_threadpool(rollback_baseline, console, body, actor)

    @api.get("/engines", summary="Engine runners and whether each can run here (gcv engines)")
    def engines(request: Request) -> dict[str, Any]:
        who(request)
        return {"engines": views.usable_engines()}

    @api.get("/agents", summary="Agent providers and whether each can be used (gcv agents)")
    def agents(request: Request) -> dict[str, Any]:
        who(request)
        return {"providers": views.usable_providers()}

    return api


async def event_stream(console: Console, request: Request, d: WorkflowDir, after: int, follow: bool):
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
            mark = (st.st_mtime_ns, st.st_size)
        except OSError:
            mark = None
        final = False
        if mark != state_mark or events:
            state_mark = mark
            try:
                _, state = await run_in_threadpool(console.jobs.loop().load, d.id)
                yield sse(await run_in_threadpool(views.progress, console.ws, console.jobs, d, state))
                final = state.status in FINAL
            except WorkflowError as exc:
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


__all__ = ["router", "load", "create_workflow", "answer_workflow", "authorize_workflow", "resume_workflow",
           "decide_workflow", "rollback_baseline", "list_filter", "NewWorkflow", "AnswerBody", "AuthorizeBody",
           "DecisionBody", "RollbackBody", "MAX_REQUEST_CHARS"]
