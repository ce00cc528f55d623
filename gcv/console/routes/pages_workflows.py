"""The workflow pages: a new change, the list, one workflow and its forms.

Each form posts to a route that calls the same function as the JSON API (``gcv.console.
actions``, one use case of ``gcv.service`` each), then redirects (Post/Redirect/Get) with the
use case's refusal, if any, as the page's error. A page offers an action only when the
user's role allows it and the workflow's state takes it (``decisions_allowed``); the use
case checks both again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from gcv.console import actions, views
from gcv.console.context import Console, ConsoleError
from gcv.console.deps import ConsoleDep, PageCaller, PageForm
from gcv.console.models import MAX_REQUEST_CHARS, AuthorizeBody, DecisionBody, NewWorkflow
from gcv.console.refusals import message_of
from gcv.console.rendering import back, first_error, page
from gcv.contract.status import Status
from gcv.evidence.report import default_report_path
from gcv.service.errors import NotFound, Refusal
from gcv.service.workflows import NEEDS, RESUBMITTABLE
from gcv.workflow.baselines import active_baseline, ensure_registry
from gcv.workflow.states import decisions_allowed

PAGE_SIZE = 25

router = APIRouter(include_in_schema=False)


def active_baseline_row(console: Console) -> dict[str, Any]:
    rows = ensure_registry(console.ws, console.config.clock())
    active = next((r for r in rows if r["active"]), rows[-1])
    return {"version": active["version"], "config_hash": active["config_hash"], "source": active["source"]}


def answer_text(form: dict[str, str]) -> str:
    """One box per question (``answer-1``, ``answer-2``...) or one ``text`` box: the answers go
    to the requirement agent together, as one answer."""
    def order(key: str) -> int:
        number = key.split("-")[1]
        return int(number) if number.isdigit() else 0

    parts = [form[k].strip() for k in sorted((k for k in form if k.startswith("answer-")), key=order)
             if form[k].strip()]
    return "\n".join(parts) or form.get("text", "").strip()


async def _attempt(wf_id: str, where: str, action: Callable[..., Any], *args: Any) -> Any | Response:
    """Run one workflow action off the event loop: its result, or a redirect back to ``where``
    with the action's refusal as that page's error (an unknown workflow stays a 404)."""
    try:
        return await run_in_threadpool(action, *args)
    except Refusal as exc:
        if isinstance(exc, NotFound):
            raise
        return back(where, error=message_of(exc))
    except ConsoleError as exc:
        if exc.status == 404:
            raise
        return back(where, error=exc.message)


async def act(wf_id: str, action: Callable[..., Any], *args: Any, refused_to: str = "") -> Response:
    """Run one workflow action; back to the workflow's page, with the action's refusal as the
    error of that page (or of ``refused_to``, the page the form was on)."""
    done = await _attempt(wf_id, refused_to or f"/workflows/{quote(wf_id)}", action, *args)
    return done if isinstance(done, Response) else back(f"/workflows/{quote(wf_id)}")


def budget_body(form: dict[str, str]) -> AuthorizeBody:
    """The budgets an operator typed into the number inputs (an empty one keeps the workflow's);
    ``ValidationError`` names the input out of range."""
    return AuthorizeBody.model_validate({name: form[name].strip() for name, *_ in views.BUDGET_INPUTS
                                         if form.get(name, "").strip()})


async def to_new(wf_id: str, action: Callable[..., Any], *args: Any) -> Response:
    """Run an action that makes a new workflow out of ``wf_id``; to the new workflow's page, or
    back to the old one's with the refusal."""
    done = await _attempt(wf_id, f"/workflows/{quote(wf_id)}", action, *args)
    return done if isinstance(done, Response) else back(f"/workflows/{quote(done['workflow_id'])}")


# ---------------------------------------------------------------------- new change
@router.get("/new")
def new_form(request: Request, console: ConsoleDep, caller: PageCaller, error: str = "") -> HTMLResponse:
    baseline = active_baseline_row(console)  # the registry exists from here on
    config, _ = active_baseline(console.ws, console.config.clock())
    _, still = console.viewer.still(config)
    return page(console, request, "new.html", caller, engines=views.usable_engines(console.ws.root),
                providers=views.usable_providers(), error=error, baseline=baseline,
                can=views.changeable(config), still=still)


@router.get("/new/baseline.png")
def new_still(console: ConsoleDep, caller: PageCaller) -> Response:
    """The active baseline's fight at its middle tick (the New change page's picture)."""
    active_baseline_row(console)
    config, _ = active_baseline(console.ws, console.config.clock())
    data, _ = console.viewer.still(config)
    return Response(data, media_type="image/png", headers={"cache-control": "no-cache"})


@router.post("/new")
async def new_submit(console: ConsoleDep, caller: PageCaller, form: PageForm) -> Response:
    actor = console.actor(caller, "submit", None, required=False)
    try:
        body = NewWorkflow(request=form.get("request", ""), engine=form.get("engine", "python-sim"),
                           provider=form.get("provider", "offline"))
    except ValidationError as exc:
        return back("/new", error=first_error(exc))
    try:
        result = await run_in_threadpool(actions.create_workflow, console, body, actor)
    except Refusal as exc:
        return back("/new", error=message_of(exc))
    except ConsoleError as exc:
        return back("/new", error=exc.message)
    return back(f"/workflows/{result['workflow_id']}")


# ---------------------------------------------------------------------- workflows
def needs_roles(caller_roles: frozenset[str] | None, needs: str) -> tuple[str, ...] | None:
    """``needs=me``: the signed-in user's roles; ``needs=ROLE``: that role's; else no such filter."""
    if needs == "me":
        return tuple(r for r in NEEDS if r in (caller_roles or frozenset()))
    return (needs,) if needs in NEEDS else None


@router.get("/workflows")
def workflows(request: Request, console: ConsoleDep, caller: PageCaller, status: str = "", actor: str = "",
              since: str = "", until: str = "", q: str = "", needs: str = "", page_no: int = 1,
              error: str = "") -> HTMLResponse:
    roles = needs_roles(caller.user.roles if caller.user else None, needs)
    if roles is None:
        needs = ""
    try:
        f = actions.list_filter(status, actor, since, until, q, needs=roles)
    except ConsoleError as exc:
        f, error = actions.list_filter(status, actor, None, None, q, needs=roles), exc.message
    total = console.ws.count_workflows(f)
    pages_total = max(1, math.ceil(total / PAGE_SIZE))
    page_no = min(max(1, page_no), pages_total)
    rows = console.ws.list_workflows(PAGE_SIZE, (page_no - 1) * PAGE_SIZE, filter=f)
    query = {k: v for k, v in (("status", status), ("actor", actor), ("since", since), ("until", until),
                               ("q", q), ("needs", needs)) if v}
    my_roles = [r for r in NEEDS if caller.user is not None and r in caller.user.roles]
    return page(console, request, "workflows.html", caller, rows=rows, total=total, page_no=page_no,
                pages_total=pages_total, query=query, qs=lambda n: urlencode({**query, "page_no": n}),
                statuses=list(Status), error=error, needs=needs, my_roles=my_roles,
                needs_statuses={r: [s.title for s in NEEDS[r]] for r in NEEDS},
                now=console.config.clock(), ago=views.ago)


@router.get("/workflows/{wf_id}")
def workflow(request: Request, console: ConsoleDep, caller: PageCaller, wf_id: str, error: str = "") -> HTMLResponse:
    d, state = actions.load(console, wf_id)
    prog = views.progress(console.ws, console.jobs, d, state)
    # something to review: a report of a loop that ran the engine (a stop before any run, as a
    # question or a refusal, writes a report too, but there is no evidence of a change in it)
    has_evidence = state.usage.engine_runs > 0 and default_report_path(console.ws, wf_id).is_file()
    return page(console, request, "workflow.html", caller, s=state, st=views.status_view(state.status), p=prog,
                proposal=views.proposal(d, state), plan=views.authorization_plan(state),
                decisions=decisions_allowed(state.status), has_evidence=has_evidence, error=error,
                history=views.step_history(d),
                budgets=views.budget_inputs(state), larger=views.budget_inputs(state, grow=True),
                resubmittable=state.status in RESUBMITTABLE,
                superseded_by=actions.resubmissions_of(console, wf_id), max_request=MAX_REQUEST_CHARS)


@router.post("/workflows/{wf_id}/answer")
async def answer(console: ConsoleDep, caller: PageCaller, form: PageForm, wf_id: str) -> Response:
    actor = console.actor(caller, "answer", None, required=False)
    text = answer_text(form)
    if not text:
        return back(f"/workflows/{quote(wf_id)}", error="answer: empty; answer the questions in plain language")
    return await act(wf_id, actions.answer_workflow, console, wf_id, text[:MAX_REQUEST_CHARS], actor)


@router.post("/workflows/{wf_id}/choose")
async def choose(console: ConsoleDep, caller: PageCaller, form: PageForm, wf_id: str) -> Response:
    actor = console.actor(caller, "answer", None, required=False)
    try:
        number = int(form.get("number", ""))
    except ValueError:
        return back(f"/workflows/{quote(wf_id)}", error="choice: pick one of the offered trade-offs")
    return await act(wf_id, actions.choose_workflow, console, wf_id, number, actor)


@router.post("/workflows/{wf_id}/authorize")
async def authorize(console: ConsoleDep, caller: PageCaller, form: PageForm, wf_id: str) -> Response:
    actor = console.actor(caller, "authorize", None, required=True)
    if form.get("choice") == "reject":  # the operator refuses the runs: the workflow is rolled back
        try:
            note = DecisionBody(decision="rollback", note=form.get("note", "")).note
        except ValidationError as exc:
            return back(f"/workflows/{quote(wf_id)}", error=first_error(exc))
        return await act(wf_id, actions.reject_runs, console, wf_id, note, actor)
    try:
        body = budget_body(form)
    except ValidationError as exc:
        return back(f"/workflows/{quote(wf_id)}", error=first_error(exc))
    return await act(wf_id, actions.authorize_workflow, console, wf_id, body, actor)


@router.post("/workflows/{wf_id}/resubmit")
async def resubmit(console: ConsoleDep, caller: PageCaller, form: PageForm, wf_id: str) -> Response:
    actor = console.actor(caller, "submit", None, required=False)
    text = form.get("request", "").strip()
    if not text:
        return back(f"/workflows/{quote(wf_id)}", error="request: empty; describe the change in plain language")
    return await to_new(wf_id, actions.resubmit_workflow, console, wf_id, text[:MAX_REQUEST_CHARS], actor)


@router.post("/workflows/{wf_id}/rerun")
async def rerun(console: ConsoleDep, caller: PageCaller, form: PageForm, wf_id: str) -> Response:
    actor = console.actor(caller, "authorize", None, required=True)
    try:
        body = budget_body(form)
    except ValidationError as exc:
        return back(f"/workflows/{quote(wf_id)}", error=first_error(exc))
    return await to_new(wf_id, actions.rerun_workflow, console, wf_id, body, actor)


@router.post("/workflows/{wf_id}/resume")
async def resume(console: ConsoleDep, caller: PageCaller, form: PageForm, wf_id: str) -> Response:
    console.actor(caller, "resume", None, required=False)
    return await act(wf_id, actions.resume_workflow, console, wf_id)


@router.post("/workflows/{wf_id}/decide")
async def decide(console: ConsoleDep, caller: PageCaller, form: PageForm, wf_id: str) -> Response:
    promote = form.get("promote") == "on"
    # a refusal goes back to the page the form was on (the review page or the workflow's)
    where = f"/workflows/{quote(wf_id)}" + ("/review" if form.get("from") == "review" else "")
    try:
        body = DecisionBody(decision=form.get("decision", ""), note=form.get("note", ""), promote=promote)
    except ValidationError as exc:
        return back(where, error=first_error(exc))
    actor = console.actor(caller, "promote" if promote else "decide", None, required=True)
    return await act(wf_id, actions.decide_workflow, console, wf_id, body, actor, refused_to=where)


__all__ = ["router", "active_baseline_row", "answer_text", "PAGE_SIZE", "budget_body", "needs_roles"]
