"""The console's pages: server-rendered Jinja2, forms that work without JavaScript, and
small scripts (served by the app) for live progress and the fight viewer.

Each form posts to a page route that calls the same function as the JSON API (and so the
same ``WorkflowLoop`` method as the CLI), then redirects (Post/Redirect/Get). A page offers
an action only when the user's role allows it and the workflow's state takes it
(``decisions_allowed``); the route checks both again.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from gcv.console import api, views
from gcv.console.context import Console, ConsoleError
from gcv.console.security import CSRF_FIELD, SESSION_COOKIE, Caller
from gcv.console.users import ROLE_OF_ACTION, clean_name
from gcv.console.viewer import ViewerError
from gcv.contract.status import FINAL, Status
from gcv.evidence.bundle import default_bundle_path
from gcv.evidence.report import default_report_path
from gcv.evidence.versions import EVIDENCE_VERSION_HEADER, latest
from gcv.workflow.baselines import ensure_registry, history
from gcv.workflow.states import decisions_allowed

TEMPLATES = Path(__file__).with_name("templates")
PAGE_SIZE = 25
REPORT_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'self'"


def templates() -> Jinja2Templates:
    t = Jinja2Templates(directory=str(TEMPLATES))
    t.env.globals.update(Status=Status, FINAL=FINAL, utc=views.utc, status_view=views.status_view)
    t.env.filters["pct"] = lambda v: "" if v is None else f"{v:+.1f}%"
    return t


def _safe_next(target: str | None) -> str:
    """Only a path on this server (never //host or a scheme): no open redirect."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/workflows"
    return target


def router(console: Console) -> APIRouter:
    pages = APIRouter(include_in_schema=False)
    tpl = templates()

    def page(request: Request, name: str, caller: Caller, **context: Any) -> HTMLResponse:
        user = caller.user
        may = {a: bool(user and user.may(a)) for a in ROLE_OF_ACTION}
        return tpl.TemplateResponse(request, name, {"me": user, "may": may, "csrf": console.csrf_for(caller),
                                                    "users_mode": console.users is not None, **context})

    def signed_in(request: Request) -> Caller:
        caller = console.caller(request)
        if caller.via != "browser":
            raise LoginNeeded(request.url.path + (f"?{request.url.query}" if request.url.query else ""))
        return caller

    async def form_of(request: Request, caller: Caller) -> dict[str, str]:
        form = await request.form()
        data = {k: str(v) for k, v in form.items() if isinstance(v, str)}
        await console.check_write(request, caller, data.get(CSRF_FIELD))
        return data

    def back(path: str, **query: str) -> RedirectResponse:
        return RedirectResponse(path + (("?" + urlencode(query)) if query else ""), status_code=303)

    # ------------------------------------------------------------------ sign in
    @pages.get("/")
    def home() -> RedirectResponse:
        return back("/workflows")

    @pages.get("/login")
    def login_form(request: Request, next: str = "/workflows", error: str = "") -> HTMLResponse:
        return tpl.TemplateResponse(request, "login.html", {"me": None, "may": {}, "csrf": "", "next": _safe_next(next),
                                                            "error": error, "users_mode": console.users is not None})

    @pages.post("/login")
    async def login(request: Request) -> Response:
        form = await request.form()
        target = _safe_next(str(form.get("next") or "/workflows"))
        if console.users is None:
            try:
                name = clean_name(str(form.get("name") or ""))
            except ValueError as exc:
                return back("/login", next=target, error=f"name: {exc}")
        else:
            user = console.users.find(str(form.get("token") or "").strip())
            if user is None:
                return back("/login", next=target, error="unknown token")
            name = user.name
        response = RedirectResponse(target, status_code=303)
        cookie = await run_in_threadpool(console.sessions.new, name)
        response.set_cookie(SESSION_COOKIE, cookie, max_age=console.config.session_seconds, httponly=True,
                            samesite="strict", path="/", secure=console.config.tls)
        return response

    @pages.post("/logout")
    async def logout(request: Request) -> Response:
        caller = signed_in(request)
        await form_of(request, caller)
        await run_in_threadpool(console.sign_out, caller)  # the cookie is void on the server, not only forgotten
        response = back("/login")
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict", secure=console.config.tls)
        return response

    # ------------------------------------------------------------------ new change
    @pages.get("/new")
    def new_form(request: Request, error: str = "") -> HTMLResponse:
        caller = signed_in(request)
        engines = views.usable_engines()
        return page(request, "new.html", caller, engines=engines, providers=views.usable_providers(), error=error,
                    baseline=active_baseline_row(console))

    @pages.post("/new")
    async def new_submit(request: Request) -> Response:
        caller = signed_in(request)
        form = await form_of(request, caller)
        actor = console.actor(caller, "submit", None, required=False)
        try:
            body = api.NewWorkflow(request=form.get("request", ""), engine=form.get("engine", "python-sim"),
                                   provider=form.get("provider", "offline"))
        except ValidationError as exc:
            return back("/new", error=_first_error(exc))
        try:
            result = await run_in_threadpool(api.create_workflow, console, body, actor)
        except ConsoleError as exc:
            return back("/new", error=exc.message)
        return back(f"/workflows/{result['workflow_id']}")

    # ------------------------------------------------------------------ workflows
    @pages.get("/workflows")
    def workflows(request: Request, status: str = "", actor: str = "", since: str = "", until: str = "",
                  q: str = "", page_no: int = 1) -> HTMLResponse:
        caller = signed_in(request)
        try:
            f = api.list_filter(status, actor, since, until, q)
            error = ""
        except ConsoleError as exc:
            f, error = api.list_filter(status, actor, None, None, q), exc.message
        total = console.ws.count_workflows(f)
        pages_total = max(1, math.ceil(total / PAGE_SIZE))
        page_no = min(max(1, page_no), pages_total)
        rows = console.ws.list_workflows(PAGE_SIZE, (page_no - 1) * PAGE_SIZE, filter=f)
        query = {k: v for k, v in (("status", status), ("actor", actor), ("since", since), ("until", until),
                                   ("q", q)) if v}
        return page(request, "workflows.html", caller, rows=rows, total=total, page_no=page_no,
                    pages_total=pages_total, query=query, qs=lambda n: urlencode({**query, "page_no": n}),
                    statuses=list(Status), error=error)

    @pages.get("/workflows/{wf_id}")
    def workflow(request: Request, wf_id: str, error: str = "") -> HTMLResponse:
        caller = signed_in(request)
        d, state = api.load(console, wf_id)
        prog = views.progress(console.ws, console.jobs, d, state)
        has_evidence = default_report_path(console.ws, wf_id).is_file()
        return page(request, "workflow.html", caller, s=state, st=views.status_view(state.status), p=prog,
                    proposal=views.proposal(d, state), plan=views.authorization_plan(state),
                    decisions=decisions_allowed(state.status), has_evidence=has_evidence, error=error)

    async def _act(wf_id: str, action: Any, *args: Any) -> Response:
        """Run one workflow action off the event loop; back to the workflow's page, with the
        action's refusal as the page's error (an unknown workflow stays a 404)."""
        try:
            await run_in_threadpool(action, *args)
        except ConsoleError as exc:
            if exc.status == 404:
                raise
            return back(f"/workflows/{quote(wf_id)}", error=exc.message)
        return back(f"/workflows/{quote(wf_id)}")

    @pages.post("/workflows/{wf_id}/answer")
    async def answer(request: Request, wf_id: str) -> Response:
        caller = signed_in(request)
        form = await form_of(request, caller)
        actor = console.actor(caller, "answer", None, required=False)
        # one box per question; the answers go to the requirement agent together, as one answer
        parts = [form[k].strip() for k in sorted((k for k in form if k.startswith("answer-")),
                                                 key=lambda k: int(k.split("-")[1]) if k.split("-")[1].isdigit() else 0)
                 if form[k].strip()]
        text = "\n".join(parts) or form.get("text", "").strip()
        if not text:
            return back(f"/workflows/{quote(wf_id)}", error="answer: empty; answer the questions in plain language")
        return await _act(wf_id, api.answer_workflow, console, wf_id, text[:api.MAX_REQUEST_CHARS], actor)

    @pages.post("/workflows/{wf_id}/authorize")
    async def authorize(request: Request, wf_id: str) -> Response:
        caller = signed_in(request)
        form = await form_of(request, caller)
        actor = console.actor(caller, "authorize", None, required=True)
        if form.get("choice") == "reject":
            # rejecting the runs is the operator's call: the workflow is rolled back, as with
            # `gcv decide WF rollback --actor NAME --note TEXT` (only this state takes it from an operator)
            body = api.DecisionBody(decision="rollback", note=form.get("note", "").strip() or "runs not authorized")
            _, state = api.load(console, wf_id)
            if state.status != Status.AWAITING_AUTHORIZATION:
                return back(f"/workflows/{quote(wf_id)}", error=f"{wf_id} is not awaiting authorization")
            return await _decided(wf_id, body, actor)
        return await _act(wf_id, api.authorize_workflow, console, wf_id, api.AuthorizeBody(), actor)

    @pages.post("/workflows/{wf_id}/resume")
    async def resume(request: Request, wf_id: str) -> Response:
        caller = signed_in(request)
        await form_of(request, caller)
        console.actor(caller, "resume", None, required=False)
        return await _act(wf_id, api.resume_workflow, console, wf_id)

    async def _decided(wf_id: str, body: api.DecisionBody, actor: str) -> Response:
        return await _act(wf_id, api.decide_workflow, console, wf_id, body, actor)

    @pages.post("/workflows/{wf_id}/decide")
    async def decide(request: Request, wf_id: str) -> Response:
        caller = signed_in(request)
        form = await form_of(request, caller)
        promote = form.get("promote") == "on"
        try:
            body = api.DecisionBody(decision=form.get("decision", ""), note=form.get("note", ""), promote=promote)
        except ValidationError as exc:
            return back(f"/workflows/{quote(wf_id)}", error=_first_error(exc))
        actor = console.actor(caller, "promote" if promote else "decide", None, required=True)
        return await _decided(wf_id, body, actor)

    # ------------------------------------------------------------------ review
    @pages.get("/workflows/{wf_id}/review")
    def review(request: Request, wf_id: str) -> HTMLResponse:
        caller = signed_in(request)
        d, state = api.load(console, wf_id)
        verify = views.verify_result(console.ws, d, wf_id)
        return page(request, "review.html", caller, s=state, st=views.status_view(state.status),
                    r=views.review(d, state), viewer=console.viewer.meta(d, state), verify=verify,
                    trust=views.trust(verify),
                    current=views.evidence_current(verify, state),
                    has_report=default_report_path(console.ws, wf_id).is_file(),
                    decisions=decisions_allowed(state.status), plan=views.authorization_plan(state))

    @pages.get("/workflows/{wf_id}/report")
    def report(request: Request, wf_id: str) -> Response:
        signed_in(request)
        api.load(console, wf_id)
        newest = latest(default_report_path(console.ws, wf_id).parent, wf_id, "report")
        if newest.path is None:
            raise ConsoleError(404, f"{wf_id} has no evidence report yet")
        return FileResponse(newest.path, media_type="text/html; charset=utf-8",
                            headers={"content-security-policy": REPORT_CSP, "cache-control": "no-store",
                                     EVIDENCE_VERSION_HEADER: str(newest.number or "unversioned")})

    @pages.get("/workflows/{wf_id}/bundle")
    def bundle(request: Request, wf_id: str) -> Response:
        signed_in(request)
        api.load(console, wf_id)
        newest = latest(default_bundle_path(console.ws, wf_id).parent, wf_id, "bundle")
        if newest.path is None:
            raise ConsoleError(404, f"{wf_id} has no evidence bundle yet")
        # the latest version, named by its number (WF.evidence.vN.zip)
        return FileResponse(newest.path, media_type="application/zip", filename=newest.path.name,
                            headers={"cache-control": "no-store",
                                     EVIDENCE_VERSION_HEADER: str(newest.number or "unversioned")})

    @pages.get("/workflows/{wf_id}/viewer.json")
    def viewer_meta(request: Request, wf_id: str) -> dict[str, Any]:
        signed_in(request)
        d, state = api.load(console, wf_id)
        return console.viewer.meta(d, state)

    @pages.get("/workflows/{wf_id}/frames/{side}/{tick}.png")
    async def frame(request: Request, wf_id: str, side: str, tick: int) -> Response:
        signed_in(request)
        if side not in ("baseline", "candidate"):
            raise ConsoleError(404, "side is baseline or candidate")
        d, state = api.load(console, wf_id)
        try:
            data = await run_in_threadpool(console.viewer.frame, d, state, side, tick)
        except ViewerError as exc:
            raise ConsoleError(404, str(exc)) from None
        return Response(data, media_type="image/png", headers={"cache-control": "private, max-age=86400"})

    @pages.get("/workflows/{wf_id}/fair/{side}/{name}")
    async def fair(request: Request, wf_id: str, side: str, name: str) -> Response:
        signed_in(request)
        kinds = {"safe_area.svg": "image/svg+xml", "tightest.png": "image/png", "report.json": "application/json"}
        if side not in ("baseline", "candidate") or name not in kinds:
            raise ConsoleError(404, "no such fairness file")
        d, state = api.load(console, wf_id)
        folder = await run_in_threadpool(console.fair.get, d, state, side)
        if folder is None or not (folder / name).is_file():
            raise ConsoleError(404, f"no {name} for the {side} of {wf_id}")
        return FileResponse(folder / name, media_type=kinds[name])

    # ------------------------------------------------------------------ baselines, batches
    @pages.get("/baselines")
    def baselines(request: Request, error: str = "") -> HTMLResponse:
        caller = signed_in(request)
        rows = ensure_registry(console.ws, console.config.clock())
        return page(request, "baselines.html", caller, rows=rows, activations=history(console.ws, 0.0)[::-1],
                    error=error)

    @pages.post("/baselines/rollback")
    async def baselines_rollback(request: Request) -> Response:
        caller = signed_in(request)
        form = await form_of(request, caller)
        actor = console.actor(caller, "rollback_baseline", None, required=True)
        try:
            body = api.RollbackBody(to=form.get("to") or None, note=form.get("note", ""))
        except ValidationError as exc:
            return back("/baselines", error=_first_error(exc))
        try:
            await run_in_threadpool(api.rollback_baseline, console, body, actor)
        except ConsoleError as exc:
            return back("/baselines", error=exc.message)
        return back("/baselines")

    @pages.get("/batches")
    def batches(request: Request) -> HTMLResponse:
        caller = signed_in(request)
        return page(request, "batches.html", caller, batches=views.batches(console.ws.root))

    return pages


def active_baseline_row(console: Console) -> dict[str, Any]:
    rows = ensure_registry(console.ws, console.config.clock())
    active = next((r for r in rows if r["active"]), rows[-1])
    return {"version": active["version"], "config_hash": active["config_hash"], "source": active["source"]}


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "input"
    return f"{where}: {first['msg']}"


class LoginNeeded(Exception):
    """A page asked for without a browser session: the app redirects to the sign-in page."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target

__all__ = ["router", "LoginNeeded", "templates", "REPORT_CSP"]
